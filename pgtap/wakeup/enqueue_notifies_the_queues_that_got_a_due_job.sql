-- NOTIFY is delivered only at commit, which a rolled-back test never reaches, so the check runs in
-- a second session (dblink) that LISTENs on channel jobq, enqueues, deletes what it enqueued and
-- commits (autocommit): the database is left as it was, and the session receives its own
-- notifications. It declares task notify-probe for the enqueues when it is not declared, and
-- removes it again. Where dblink or a passwordless loopback connection is not available (it is in
-- jobq sandbox), the test says so and skips.
BEGIN;
SELECT plan(4);

-- A runner of these queues waits: this session holds their doorbells, so that the probe's
-- enqueues and wake-ups NOTIFY under the setting doorbell (true as installed).
SELECT ok(jobq.hold_doorbell(ARRAY['notify_probe_due', 'notify_probe_many', 'notify_probe_later']),
          'setup: this session holds the doorbells of the probe''s queues, as a waiting runner does');

CREATE FUNCTION pg_temp.second_session() RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
    CREATE EXTENSION IF NOT EXISTS dblink;
    PERFORM dblink_connect('notify_probe', jobq_test.loopback());
    RETURN true;
EXCEPTION WHEN OTHERS THEN
    RETURN false;
END
$$;
CREATE TEMP TABLE probe AS SELECT pg_temp.second_session() AS connected;

SELECT CASE WHEN connected
            THEN is(dblink_exec('notify_probe', 'LISTEN jobq'), 'LISTEN', 'setup: a second session listens on channel jobq')
            ELSE skip('dblink or a passwordless loopback connection is not available', 1) END
FROM probe;

SELECT CASE WHEN connected
            THEN is(dblink_exec('notify_probe', $$
                DO $probe$
                DECLARE
                    v_declared boolean := EXISTS (SELECT 1 FROM jobq.tasks WHERE name = 'notify-probe');
                BEGIN
                    IF NOT v_declared THEN
                        PERFORM jobq.define_task('notify-probe');
                    END IF;
                    PERFORM jobq.enqueue('notify-probe', queue => 'notify_probe_due');
                    PERFORM jobq.enqueue_many('[{"task": "notify-probe", "queue": "notify_probe_many"},
                                                {"task": "notify-probe", "queue": "notify_probe_many"}]');
                    PERFORM jobq.enqueue('notify-probe', queue => 'notify_probe_later', run_at => now() + interval '1 hour');
                    DELETE FROM jobq.jobs WHERE task = 'notify-probe';
                    IF NOT v_declared THEN
                        DELETE FROM jobq.tasks WHERE name = 'notify-probe';
                    END IF;
                END
                $probe$ $$), 'DO',
                'setup: the second session enqueued due jobs in two queues and a later job in a third, then removed them')
            ELSE skip('dblink or a passwordless loopback connection is not available', 1) END
FROM probe;

SELECT CASE WHEN connected
            THEN bag_eq(
                $$ SELECT notify_name::text, extra FROM dblink_get_notify('notify_probe') $$,
                $$ VALUES ('jobq', 'notify_probe_due'), ('jobq', 'notify_probe_many') $$,
                'channel jobq gets one notification per queue that got a due job, with the queue name; a job not yet due notifies nothing')
            ELSE skip('dblink or a passwordless loopback connection is not available', 1) END
FROM probe;

DO $$ BEGIN IF (SELECT connected FROM probe) THEN PERFORM dblink_disconnect('notify_probe'); END IF; END $$;
DO $$ BEGIN PERFORM jobq.release_doorbell(ARRAY['notify_probe_due', 'notify_probe_many', 'notify_probe_later']); END $$;
SELECT * FROM finish();
ROLLBACK;
