-- With the setting doorbell false (what 00013 installs while runners of the release before are
-- live, since they never hold a doorbell), wakeup notify keeps its meaning: every enqueue of a due
-- job NOTIFYs its queue, whether or not a session holds the queue's doorbell.
--
-- A second session (dblink, autocommit) LISTENs on channel jobq and, in one committed
-- transaction, sets doorbell false, enqueues, and puts back the jobs, the task and the setting.
BEGIN;
SELECT plan(4);

CREATE EXTENSION IF NOT EXISTS dblink;
SELECT is(dblink_connect('bell_off', jobq_test.loopback()), 'OK', 'setup: a second session is connected');
SELECT is(dblink_exec('bell_off', 'LISTEN jobq'), 'LISTEN', 'setup: the second session listens on channel jobq');
SELECT is(dblink_exec('bell_off', $$
    DO $probe$
    DECLARE
        v_doorbell constant text := (SELECT value FROM jobq.settings WHERE name = 'doorbell');
    BEGIN
        IF NOT EXISTS (SELECT 1 FROM jobq.tasks WHERE name = 'bell-off-probe') THEN
            PERFORM jobq.define_task('bell-off-probe');
        END IF;
        UPDATE jobq.settings SET value = 'false' WHERE name = 'doorbell';
        PERFORM jobq.enqueue('bell-off-probe', queue => 'bell_off_one');
        PERFORM jobq.enqueue_many('[{"task": "bell-off-probe", "queue": "bell_off_many"}]');
        DELETE FROM jobq.jobs WHERE task = 'bell-off-probe';
        DELETE FROM jobq.tasks WHERE name = 'bell-off-probe';
        UPDATE jobq.settings SET value = v_doorbell WHERE name = 'doorbell';
    END
    $probe$ $$), 'DO', 'setup: the second session set doorbell false, enqueued, and put back what it changed');
SELECT bag_eq($$ SELECT notify_name::text, extra FROM dblink_get_notify('bell_off') $$,
              $$ VALUES ('jobq', 'bell_off_one'), ('jobq', 'bell_off_many') $$,
              'with doorbell false every queue that got a due job is notified, though no session holds a doorbell');

DO $$ BEGIN PERFORM dblink_disconnect('bell_off'); END $$;
SELECT * FROM finish();
ROLLBACK;
