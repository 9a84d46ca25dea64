-- What closes the done doorbell's race: a transaction that ended a job while no client held the
-- done doorbell sends nothing, and its end is not visible until it commits. It holds the "silent
-- end in flight" lock until its transaction ends, so jobq.done_quiet says false while it is open
-- and true once it ended. A transaction that ends a job while the doorbell is held notifies and
-- holds nothing, so done_quiet does not wait for it. hold_done_doorbell never waits: while a
-- session holds the doorbell exclusively (an end's probe, for a moment) it says false.
BEGIN;
SELECT plan(12);

CREATE EXTENSION IF NOT EXISTS dblink;
SELECT is(dblink_connect('done_quiet', jobq_test.loopback()), 'OK', 'setup: a second session is connected');
SELECT is(dblink_exec('done_quiet', $$
    DO $probe$
    BEGIN
        IF NOT EXISTS (SELECT 1 FROM jobq.tasks WHERE name = 'done-quiet') THEN
            PERFORM jobq.define_task('done-quiet');
        END IF;
        PERFORM jobq.enqueue('done-quiet', queue => 'done_quiet') FROM generate_series(1, 2);
    END
    $probe$ $$), 'DO', 'setup: task done-quiet is declared and two jobs enqueued');
CREATE FUNCTION pg_temp.end_one() RETURNS text LANGUAGE sql AS $f$
    SELECT dblink_exec('done_quiet', $$ DO $probe$ BEGIN
        PERFORM jobq.complete_job(c.id, c.lease_token) FROM jobq.claim_job('done-quiet-worker', ARRAY['done_quiet']) c;
    END $probe$ $$)
$f$;

SELECT ok(jobq.done_quiet(), 'no transaction ended a job: done_quiet is true');
SELECT is(dblink_exec('done_quiet', 'BEGIN'), 'BEGIN', 'setup: the second session opens a transaction');
SELECT is(pg_temp.end_one(), 'DO', 'setup: it completed a job with no done doorbell held, and stays open');
SELECT ok(jobq.hold_done_doorbell(), 'this session holds the done doorbell');
SELECT ok(NOT jobq.done_quiet(), 'done_quiet is false while the silent end is in flight');
SELECT is(dblink_exec('done_quiet', 'COMMIT'), 'COMMIT', 'setup: the second session commits');
SELECT ok(jobq.done_quiet(), 'done_quiet is true once it ended');

SELECT is(ARRAY[dblink_exec('done_quiet', 'BEGIN'), pg_temp.end_one()], ARRAY['BEGIN', 'DO'],
          'setup: with the doorbell held, the second session completes the other job and stays open');
SELECT ok(jobq.done_quiet(), 'an end that notifies holds nothing: done_quiet is true while it is open');
DO $$ BEGIN PERFORM dblink_exec('done_quiet', 'ROLLBACK'); END $$;
DO $$ BEGIN PERFORM jobq.release_done_doorbell(); END $$;

SELECT FROM dblink('done_quiet', $$ SELECT pg_advisory_lock(1785790468, 0) $$) AS t(v text);
SELECT is(ARRAY[jobq.hold_done_doorbell()::text,
                (SELECT count(*) FROM pg_locks l WHERE l.locktype = 'advisory' AND l.pid = pg_backend_pid()
                   AND l.classid = 1785790468)::text],
          ARRAY['false', '0'],
          'hold_done_doorbell fails without waiting while the doorbell is held exclusively, and holds nothing');
SELECT FROM dblink('done_quiet', $$ SELECT pg_advisory_unlock(1785790468, 0) $$) AS t(v text);

DO $cleanup$ BEGIN PERFORM dblink_exec('done_quiet', $$ DO $probe$ BEGIN
    DELETE FROM jobq.audit_log WHERE job_id IN (SELECT id FROM jobq.job_history WHERE task = 'done-quiet');
    DELETE FROM jobq.jobs WHERE task = 'done-quiet';
    DELETE FROM jobq.job_attempts WHERE task = 'done-quiet';
    DELETE FROM jobq.job_history WHERE task = 'done-quiet';
    DELETE FROM jobq.tasks WHERE name = 'done-quiet';
END $probe$ $$); END $cleanup$;
DO $$ BEGIN PERFORM dblink_disconnect('done_quiet'); END $$;
SELECT * FROM finish();
ROLLBACK;
