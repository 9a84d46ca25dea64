-- jobq.retry_job makes a job due at once and wakes its queue the way the setting wakeup says,
-- like enqueue: notify sends NOTIFY jobq, wal a transactional logical message (prefix jobq, the
-- queue name as content) and no NOTIFY, both the two. That holds on both of its paths: a waiting
-- job whose run_at becomes now, and a dead job queued again from history (jobq._revive), which
-- runs as jobq_app_gate, the owner of retry_job.
--
-- NOTIFYs and logical messages exist only once a transaction commits, so a second session
-- (dblink, autocommit) LISTENs on channel jobq and runs the probe in one committed transaction
-- that retries jobs under each mode and then puts everything back (jobs, history, audit rows,
-- task, setting). Its jobs are enqueued to run in an hour, so enqueue itself wakes nothing. A
-- temporary test_decoding slot, made before this file's transaction takes an xid, sees the
-- messages; the server drops it when this session ends.
DO $$ BEGIN PERFORM pg_create_logical_replication_slot('jobq_pgtap_wake_retry_job', 'test_decoding', true); END $$;

BEGIN;
SELECT plan(6);

-- A runner of these queues waits: this session holds their doorbells, so that the probe's
-- enqueues and wake-ups NOTIFY under the setting doorbell (true as installed).
SELECT ok(jobq.hold_doorbell(ARRAY['wake_retry_waiting_notify', 'wake_retry_dead_notify', 'wake_retry_waiting_wal', 'wake_retry_dead_wal', 'wake_retry_waiting_both', 'wake_retry_dead_both']),
          'setup: this session holds the doorbells of the probe''s queues, as a waiting runner does');

CREATE EXTENSION IF NOT EXISTS dblink;
SELECT is(dblink_connect('wake_probe', jobq_test.loopback()),
          'OK', 'setup: a second session is connected');
SELECT is(dblink_exec('wake_probe', 'LISTEN jobq'), 'LISTEN', 'setup: the second session listens on channel jobq');

SELECT is(dblink_exec('wake_probe', $$
    DO $probe$
    DECLARE
        v_declared constant boolean := EXISTS (SELECT 1 FROM jobq.tasks WHERE name = 'wake-probe');
        v_wakeup constant text := (SELECT value FROM jobq.settings WHERE name = 'wakeup');
        v_mode text;
        v_waiting bigint;
        v_dead bigint;
        v_ids bigint[] := '{}';
    BEGIN
        IF NOT v_declared THEN
            PERFORM jobq.define_task('wake-probe');
        END IF;
        FOREACH v_mode IN ARRAY ARRAY['notify', 'wal', 'both'] LOOP
            UPDATE jobq.settings SET value = v_mode WHERE name = 'wakeup';
            v_waiting := jobq.enqueue('wake-probe', queue => 'wake_retry_waiting_' || v_mode, run_at => now() + interval '1 hour');
            v_dead := jobq.enqueue('wake-probe', queue => 'wake_retry_dead_' || v_mode, run_at => now() + interval '1 hour');
            UPDATE jobq.jobs SET run_at = now() WHERE id = v_dead;
            PERFORM jobq.fail_jobs(ARRAY[c.id], ARRAY[c.lease_token], NULL, retryable => ARRAY[false])
            FROM jobq.claim_job('wake-probe-worker', ARRAY['wake_retry_dead_' || v_mode], 1) AS c;
            IF NOT EXISTS (SELECT 1 FROM jobq.job_history WHERE id = v_dead AND state = 'dead') THEN
                RAISE EXCEPTION 'setup: job % did not die', v_dead;
            END IF;
            PERFORM jobq.retry_job(v_waiting), jobq.retry_job(v_dead);
            v_ids := v_ids || v_waiting || v_dead;
        END LOOP;
        DELETE FROM jobq.jobs WHERE id = ANY (v_ids);
        DELETE FROM jobq.job_history WHERE id = ANY (v_ids);
        DELETE FROM jobq.audit_log WHERE job_id = ANY (v_ids);
        IF NOT v_declared THEN
            DELETE FROM jobq.tasks WHERE name = 'wake-probe';
        END IF;
        UPDATE jobq.settings SET value = v_wakeup WHERE name = 'wakeup';
    END
    $probe$ $$), 'DO', 'setup: the second session retried a waiting and a dead job under each mode and put back what it changed');

SELECT bag_eq(
    $$ SELECT notify_name::text, extra FROM dblink_get_notify('wake_probe') $$,
    $$ VALUES ('jobq', 'wake_retry_waiting_notify'), ('jobq', 'wake_retry_dead_notify'),
              ('jobq', 'wake_retry_waiting_both'), ('jobq', 'wake_retry_dead_both') $$,
    'retry_job NOTIFYs the job''s queue under wakeup notify and both, and not under wal');
SELECT bag_eq(
    $$ SELECT substring(data FROM 'prefix: (.*), sz:') AS prefix, substring(data FROM 'content:(.*)$') AS content
       FROM pg_logical_slot_get_changes('jobq_pgtap_wake_retry_job', NULL, NULL, 'include-xids', '0')
       WHERE data LIKE 'message: transactional: 1 %' $$,
    $$ VALUES ('jobq', 'wake_retry_waiting_wal'), ('jobq', 'wake_retry_dead_wal'),
              ('jobq', 'wake_retry_waiting_both'), ('jobq', 'wake_retry_dead_both') $$,
    'retry_job emits a transactional logical message, prefix jobq, with the job''s queue under wakeup wal and both, and none under notify');

DO $$ BEGIN PERFORM dblink_disconnect('wake_probe'); END $$;
DO $$ BEGIN PERFORM jobq.release_doorbell(ARRAY['wake_retry_waiting_notify', 'wake_retry_dead_notify', 'wake_retry_waiting_wal', 'wake_retry_dead_wal', 'wake_retry_waiting_both', 'wake_retry_dead_both']); END $$;
SELECT * FROM finish();
ROLLBACK;
