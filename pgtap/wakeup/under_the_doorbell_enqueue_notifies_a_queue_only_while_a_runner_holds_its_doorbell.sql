-- The doorbell (wakeup notify, doorbell true, as installed): an enqueue of a due job NOTIFYs its
-- queue only while some session holds the queue's doorbell (jobq.hold_doorbell, as a waiting
-- runner does), once per queue and transaction, enqueue_many included; with no holder, and once
-- the holder let go (jobq.release_doorbell), it notifies nothing.
--
-- NOTIFY is delivered only at commit, so a second session (dblink, autocommit) LISTENs on channel
-- jobq and enqueues in committed transactions that remove what they enqueued; this session holds
-- and lets go of the doorbells in between.
BEGIN;
SELECT plan(9);

CREATE EXTENSION IF NOT EXISTS dblink;
SELECT is(dblink_connect('bell_probe', jobq_test.loopback()), 'OK', 'setup: a second session is connected');
SELECT is(dblink_exec('bell_probe', 'LISTEN jobq'), 'LISTEN', 'setup: the second session listens on channel jobq');

-- The second session's probe: one enqueue in bell_a, an enqueue_many of two jobs in bell_b and
-- one in bell_c, and a job due in an hour in bell_d, all committed in one transaction and removed.
CREATE FUNCTION pg_temp.probe() RETURNS text LANGUAGE sql AS $f$
    SELECT dblink_exec('bell_probe', $$
        DO $probe$
        BEGIN
            IF NOT EXISTS (SELECT 1 FROM jobq.tasks WHERE name = 'bell-probe') THEN
                PERFORM jobq.define_task('bell-probe');
            END IF;
            PERFORM jobq.enqueue('bell-probe', queue => 'bell_a');
            PERFORM jobq.enqueue_many('[{"task": "bell-probe", "queue": "bell_b"}, {"task": "bell-probe", "queue": "bell_b"},
                                        {"task": "bell-probe", "queue": "bell_c"}]');
            PERFORM jobq.enqueue('bell-probe', queue => 'bell_d', run_at => now() + interval '1 hour');
            DELETE FROM jobq.jobs WHERE task = 'bell-probe';
            DELETE FROM jobq.tasks WHERE name = 'bell-probe';
        END
        $probe$ $$)
$f$;

SELECT is(pg_temp.probe(), 'DO', 'setup: the second session enqueued while no session held a doorbell');
SELECT is_empty($$ SELECT notify_name::text, extra FROM dblink_get_notify('bell_probe') $$,
                'no runner waits: enqueue and enqueue_many notify nothing');

SELECT ok(jobq.hold_doorbell(ARRAY['bell_a', 'bell_b', 'bell_d']), 'this session holds the doorbells of bell_a, bell_b and bell_d');
SELECT is(pg_temp.probe(), 'DO', 'setup: the second session enqueued the same again');
SELECT bag_eq($$ SELECT notify_name::text, extra FROM dblink_get_notify('bell_probe') $$,
              $$ VALUES ('jobq', 'bell_a'), ('jobq', 'bell_b') $$,
              'each queue whose doorbell is held and that got a due job is notified once (enqueue_many''s two jobs in bell_b once); bell_c (not held) and bell_d (no due job) are not');

DO $$ BEGIN PERFORM jobq.release_doorbell(ARRAY['bell_a', 'bell_b', 'bell_d']); END $$;
SELECT is(pg_temp.probe(), 'DO', 'setup: after this session let go, the second session enqueued the same again');
SELECT is_empty($$ SELECT notify_name::text, extra FROM dblink_get_notify('bell_probe') $$,
                'once the doorbells are let go, enqueue notifies nothing again');

DO $$ BEGIN PERFORM dblink_disconnect('bell_probe'); END $$;
SELECT * FROM finish();
ROLLBACK;
