-- jobq.snooze_jobs with no delay hands running jobs back to run at once and wakes their queue the
-- way the setting wakeup says, like enqueue: notify sends NOTIFY jobq, wal a transactional
-- logical message (prefix jobq, the queue name as content) and no NOTIFY, both the two. A snooze
-- with a delay wakes nothing under any mode.
--
-- NOTIFYs and logical messages exist only once a transaction commits, so a second session
-- (dblink, autocommit) LISTENs on channel jobq and runs the probe in one committed transaction
-- that snoozes jobs under each mode and then puts everything back (jobs, task, setting). Its jobs
-- are enqueued to run in an hour, so enqueue itself wakes nothing. A temporary test_decoding
-- slot, made before this file's transaction takes an xid, sees the messages; the server drops it
-- when this session ends.
DO $$ BEGIN PERFORM pg_create_logical_replication_slot('jobq_pgtap_wake_snooze_jobs', 'test_decoding', true); END $$;

BEGIN;
SELECT plan(6);

-- A runner of these queues waits: this session holds their doorbells, so that the probe's
-- enqueues and wake-ups NOTIFY under the setting doorbell (true as installed).
SELECT ok(jobq.hold_doorbell(ARRAY['wake_snooze_now_notify', 'wake_snooze_later_notify', 'wake_snooze_now_wal', 'wake_snooze_later_wal', 'wake_snooze_now_both', 'wake_snooze_later_both']),
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
        v_queue text;
        v_ids bigint[] := '{}';
    BEGIN
        IF NOT v_declared THEN
            PERFORM jobq.define_task('wake-probe');
        END IF;
        FOREACH v_mode IN ARRAY ARRAY['notify', 'wal', 'both'] LOOP
            UPDATE jobq.settings SET value = v_mode WHERE name = 'wakeup';
            FOREACH v_queue IN ARRAY ARRAY['wake_snooze_now_' || v_mode, 'wake_snooze_later_' || v_mode] LOOP
                v_ids := v_ids || jobq.enqueue('wake-probe', queue => v_queue, run_at => now() + interval '1 hour');
                UPDATE jobq.jobs SET run_at = now() WHERE id = v_ids[cardinality(v_ids)];
                IF (SELECT count(*) FROM jobq.claim_job('wake-probe-worker', ARRAY[v_queue], 1) AS c,
                        jobq.snooze_jobs(ARRAY[c.id], ARRAY[c.lease_token],
                                         CASE WHEN v_queue LIKE 'wake_snooze_now_%' THEN interval '0' ELSE interval '1 hour' END) AS s
                    WHERE s.outcome = 'queued') <> 1 THEN
                    RAISE EXCEPTION 'setup: the job of queue % was not snoozed', v_queue;
                END IF;
            END LOOP;
        END LOOP;
        DELETE FROM jobq.jobs WHERE id = ANY (v_ids);
        IF NOT v_declared THEN
            DELETE FROM jobq.tasks WHERE name = 'wake-probe';
        END IF;
        UPDATE jobq.settings SET value = v_wakeup WHERE name = 'wakeup';
    END
    $probe$ $$), 'DO', 'setup: the second session snoozed a job with no delay and one with a delay under each mode and put back what it changed');

SELECT bag_eq(
    $$ SELECT notify_name::text, extra FROM dblink_get_notify('wake_probe') $$,
    $$ VALUES ('jobq', 'wake_snooze_now_notify'), ('jobq', 'wake_snooze_now_both') $$,
    'snooze_jobs with no delay NOTIFYs the queue under wakeup notify and both, not under wal; with a delay it never does');
SELECT bag_eq(
    $$ SELECT substring(data FROM 'prefix: (.*), sz:') AS prefix, substring(data FROM 'content:(.*)$') AS content
       FROM pg_logical_slot_get_changes('jobq_pgtap_wake_snooze_jobs', NULL, NULL, 'include-xids', '0')
       WHERE data LIKE 'message: transactional: 1 %' $$,
    $$ VALUES ('jobq', 'wake_snooze_now_wal'), ('jobq', 'wake_snooze_now_both') $$,
    'snooze_jobs with no delay emits a transactional logical message, prefix jobq, with the queue under wakeup wal and both, none under notify; with a delay it never does');

DO $$ BEGIN PERFORM dblink_disconnect('wake_probe'); END $$;
DO $$ BEGIN PERFORM jobq.release_doorbell(ARRAY['wake_snooze_now_notify', 'wake_snooze_later_notify', 'wake_snooze_now_wal', 'wake_snooze_later_wal', 'wake_snooze_now_both', 'wake_snooze_later_both']); END $$;
SELECT * FROM finish();
ROLLBACK;
