-- jobq.resume_queue wakes the queue's runners through jobq._wake (under the default wakeup
-- notify: NOTIFY jobq with the queue name), so its jobs are claimed without waiting for a poll;
-- pause_queue wakes nobody.
--
-- A NOTIFY exists only once its transaction commits, so a second session (dblink, autocommit)
-- LISTENs on channel jobq, then pauses and resumes a queue in committed transactions and puts
-- back what it changed (the jobq.queues row, the audit rows).
BEGIN;
SELECT plan(5);

-- A runner of these queues waits: this session holds their doorbells, so that the probe's
-- enqueues and wake-ups NOTIFY under the setting doorbell (true as installed).
SELECT ok(jobq.hold_doorbell(ARRAY['wake_resume_probe']),
          'setup: this session holds the doorbells of the probe''s queues, as a waiting runner does');

CREATE EXTENSION IF NOT EXISTS dblink;
SELECT is(dblink_connect('wake_probe', jobq_test.loopback()), 'OK', 'setup: a second session is connected');
SELECT is(dblink_exec('wake_probe', 'LISTEN jobq'), 'LISTEN', 'setup: the second session listens on channel jobq');
SELECT is(dblink_exec('wake_probe', $$
    DO $probe$
    BEGIN
        PERFORM jobq.pause_queue('wake_resume_probe');
        PERFORM jobq.resume_queue('wake_resume_probe');
        DELETE FROM jobq.queues WHERE name = 'wake_resume_probe';
        DELETE FROM jobq.audit_log WHERE detail ->> 'queue' = 'wake_resume_probe';
    END
    $probe$ $$), 'DO', 'setup: the second session paused and resumed a queue and put back what it changed');
SELECT results_eq($$ SELECT notify_name::text, extra FROM dblink_get_notify('wake_probe') $$,
                  $$ VALUES ('jobq'::text, 'wake_resume_probe'::text) $$,
                  'one NOTIFY jobq naming the queue: the resume''s');

DO $$ BEGIN PERFORM dblink_disconnect('wake_probe'); END $$;
DO $$ BEGIN PERFORM jobq.release_doorbell(ARRAY['wake_resume_probe']); END $$;
SELECT * FROM finish();
ROLLBACK;
