-- jobq.requeue_dead queues dead jobs again and wakes their queues the way the setting wakeup
-- says, like enqueue: notify sends NOTIFY jobq, wal a transactional logical message (prefix jobq,
-- the queue name as content) and no NOTIFY, both the two.
--
-- NOTIFYs and logical messages exist only once a transaction commits, so a second session
-- (dblink, autocommit) LISTENs on channel jobq and runs the probe in one committed transaction
-- that requeues a dead job under each mode and then puts everything back (jobs, history, audit
-- rows, task, setting). Its jobs are enqueued to run in an hour, so enqueue itself wakes nothing.
-- A temporary test_decoding slot, made before this file's transaction takes an xid, sees the
-- messages; the server drops it when this session ends.
DO $$ BEGIN PERFORM pg_create_logical_replication_slot('jobq_pgtap_wake_requeue_dead', 'test_decoding', true); END $$;

BEGIN;
SELECT plan(6);

-- A runner of these queues waits: this session holds their doorbells, so that the probe's
-- enqueues and wake-ups NOTIFY under the setting doorbell (true as installed).
SELECT ok(jobq.hold_doorbell(ARRAY['wake_requeue_notify', 'wake_requeue_wal', 'wake_requeue_both']),
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
        v_dead bigint;
        v_ids bigint[] := '{}';
    BEGIN
        IF NOT v_declared THEN
            PERFORM jobq.define_task('wake-probe');
        END IF;
        FOREACH v_mode IN ARRAY ARRAY['notify', 'wal', 'both'] LOOP
            UPDATE jobq.settings SET value = v_mode WHERE name = 'wakeup';
            v_dead := jobq.enqueue('wake-probe', queue => 'wake_requeue_' || v_mode, run_at => now() + interval '1 hour');
            UPDATE jobq.jobs SET run_at = now() WHERE id = v_dead;
            PERFORM jobq.fail_jobs(ARRAY[c.id], ARRAY[c.lease_token], NULL, retryable => ARRAY[false])
            FROM jobq.claim_job('wake-probe-worker', ARRAY['wake_requeue_' || v_mode], 1) AS c;
            IF jobq.requeue_dead(task => 'wake-probe') <> 1 THEN
                RAISE EXCEPTION 'setup: job % was not requeued', v_dead;
            END IF;
            v_ids := v_ids || v_dead;
        END LOOP;
        DELETE FROM jobq.jobs WHERE id = ANY (v_ids);
        DELETE FROM jobq.job_history WHERE id = ANY (v_ids);
        DELETE FROM jobq.audit_log WHERE job_id = ANY (v_ids);
        IF NOT v_declared THEN
            DELETE FROM jobq.tasks WHERE name = 'wake-probe';
        END IF;
        UPDATE jobq.settings SET value = v_wakeup WHERE name = 'wakeup';
    END
    $probe$ $$), 'DO', 'setup: the second session requeued a dead job under each mode and put back what it changed');

SELECT bag_eq(
    $$ SELECT notify_name::text, extra FROM dblink_get_notify('wake_probe') $$,
    $$ VALUES ('jobq', 'wake_requeue_notify'), ('jobq', 'wake_requeue_both') $$,
    'requeue_dead NOTIFYs the queue of the jobs it requeues under wakeup notify and both, and not under wal');
SELECT bag_eq(
    $$ SELECT substring(data FROM 'prefix: (.*), sz:') AS prefix, substring(data FROM 'content:(.*)$') AS content
       FROM pg_logical_slot_get_changes('jobq_pgtap_wake_requeue_dead', NULL, NULL, 'include-xids', '0')
       WHERE data LIKE 'message: transactional: 1 %' $$,
    $$ VALUES ('jobq', 'wake_requeue_wal'), ('jobq', 'wake_requeue_both') $$,
    'requeue_dead emits a transactional logical message, prefix jobq, with the queue of the jobs it requeues under wakeup wal and both, and none under notify');

DO $$ BEGIN PERFORM dblink_disconnect('wake_probe'); END $$;
DO $$ BEGIN PERFORM jobq.release_doorbell(ARRAY['wake_requeue_notify', 'wake_requeue_wal', 'wake_requeue_both']); END $$;
SELECT * FROM finish();
ROLLBACK;
