-- What closes the doorbell's race: an enqueue that probed a doorbell before a runner held it did
-- not notify, and its job is not visible until it commits. Every enqueue of a due job holds its
-- queue's "in flight" lock until its transaction ends, so jobq.doorbell_quiet says false while
-- one is open and true once it ended; a job that is not due takes nothing. hold_doorbell takes
-- all the doorbells listed or none, without waiting: a session that holds one exclusively (an
-- enqueue's probe, for a moment) makes it fail and leave nothing held.
BEGIN;
SELECT plan(10);

CREATE EXTENSION IF NOT EXISTS dblink;
SELECT is(dblink_connect('quiet_probe', jobq_test.loopback()), 'OK', 'setup: a second session is connected');
SELECT is(dblink_exec('quiet_probe', $$
    DO $probe$
    BEGIN
        IF NOT EXISTS (SELECT 1 FROM jobq.tasks WHERE name = 'quiet-probe') THEN
            PERFORM jobq.define_task('quiet-probe');
        END IF;
    END
    $probe$ $$), 'DO', 'setup: task quiet-probe is declared');
SELECT is(dblink_exec('quiet_probe', 'BEGIN'), 'BEGIN', 'setup: the second session opens a transaction');
SELECT is(dblink_exec('quiet_probe', $$ DO $probe$ BEGIN
        PERFORM jobq.enqueue('quiet-probe', queue => 'quiet_a');
        PERFORM jobq.enqueue('quiet-probe', queue => 'quiet_b', run_at => now() + interval '1 hour');
    END $probe$ $$), 'DO', 'setup: it enqueued a due job in quiet_a and one due in an hour in quiet_b, and stays open');

SELECT ok(jobq.hold_doorbell(ARRAY['quiet_a', 'quiet_b']), 'this session holds the doorbells of quiet_a and quiet_b');
SELECT ok(NOT jobq.doorbell_quiet(ARRAY['quiet_b', 'quiet_a']), 'doorbell_quiet is false while the enqueue in quiet_a is in flight');
SELECT ok(jobq.doorbell_quiet(ARRAY['quiet_b']), 'a job not due takes nothing: quiet_b is quiet');

SELECT is(dblink_exec('quiet_probe', 'ROLLBACK'), 'ROLLBACK', 'setup: the second session''s transaction ends');
SELECT ok(jobq.doorbell_quiet(ARRAY['quiet_a', 'quiet_b']), 'doorbell_quiet is true once it ended');
DO $$ BEGIN PERFORM jobq.release_doorbell(ARRAY['quiet_a', 'quiet_b']); END $$;

-- All or nothing: the second session holds quiet_d's doorbell exclusively, as a probe does.
SELECT FROM dblink('quiet_probe', $$ SELECT pg_advisory_lock(1785790466, hashtext('quiet_d')) $$) AS t(v text);
SELECT is(ARRAY[jobq.hold_doorbell(ARRAY['quiet_c', 'quiet_d'])::text,
                (SELECT count(*) FROM pg_locks l WHERE l.locktype = 'advisory' AND l.pid = pg_backend_pid()
                   AND l.classid = 1785790466)::text],
          ARRAY['false', '0'],
          'hold_doorbell fails without waiting when a doorbell is held exclusively, and holds none of those listed');

DO $$ BEGIN PERFORM dblink_exec('quiet_probe', 'DELETE FROM jobq.tasks WHERE name = ''quiet-probe'''); END $$;
DO $$ BEGIN PERFORM dblink_disconnect('quiet_probe'); END $$;
SELECT * FROM finish();
ROLLBACK;
