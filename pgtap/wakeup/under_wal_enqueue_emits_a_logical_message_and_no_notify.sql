-- wakeup = wal: enqueue emits one transactional logical message per queue that got a due job
-- (prefix jobq, the queue name as content), which runners in WAL mode decode from a replication
-- slot once the transaction commits, and sends no NOTIFY at all.
--
-- NOTIFYs and logical messages exist only once a transaction commits, which a rolled-back test
-- never reaches, so a second session (dblink, autocommit) LISTENs on channel jobq and runs the
-- probe in one committed transaction that sets wakeup, enqueues, and then puts everything back
-- (jobs, task, setting): the database is left as it was. A temporary test_decoding slot, made
-- before this file's transaction takes an xid (a new logical slot waits for running
-- transactions), sees every message the probe's transaction emitted; the server drops it when
-- this session ends. To show that the listening session would have heard a NOTIFY, the probe
-- ends with one enqueue under wakeup notify, whose queue alone must be heard.
DO $$ BEGIN PERFORM pg_create_logical_replication_slot('jobq_pgtap_wakeup_wal', 'test_decoding', true); END $$;

BEGIN;
SELECT plan(6);

-- The control's queue has a waiting runner: this session holds its doorbell, so that the
-- control enqueued under notify NOTIFYs under the setting doorbell (true as installed).
SELECT ok(jobq.hold_doorbell(ARRAY['wakeup_probe_control']),
          'setup: this session holds the doorbell of the control''s queue, as a waiting runner does');

CREATE EXTENSION IF NOT EXISTS dblink;
SELECT is(dblink_connect('wakeup_probe', jobq_test.loopback()),
          'OK', 'setup: a second session is connected');
SELECT is(dblink_exec('wakeup_probe', 'LISTEN jobq'), 'LISTEN', 'setup: the second session listens on channel jobq');

SELECT is(dblink_exec('wakeup_probe', $$
    DO $probe$
    DECLARE
        v_declared constant boolean := EXISTS (SELECT 1 FROM jobq.tasks WHERE name = 'wakeup-probe');
        v_wakeup constant text := (SELECT value FROM jobq.settings WHERE name = 'wakeup');
    BEGIN
        IF NOT v_declared THEN
            PERFORM jobq.define_task('wakeup-probe');
        END IF;
        UPDATE jobq.settings SET value = 'wal' WHERE name = 'wakeup';
        PERFORM jobq.enqueue('wakeup-probe', queue => 'wakeup_probe_due');
        PERFORM jobq.enqueue_many('[{"task": "wakeup-probe", "queue": "wakeup_probe_many"},
                                    {"task": "wakeup-probe", "queue": "wakeup_probe_many"}]');
        PERFORM jobq.enqueue('wakeup-probe', queue => 'wakeup_probe_later', run_at => now() + interval '1 hour');
        -- The control: the same session hears this one.
        UPDATE jobq.settings SET value = 'notify' WHERE name = 'wakeup';
        PERFORM jobq.enqueue('wakeup-probe', queue => 'wakeup_probe_control');
        DELETE FROM jobq.jobs WHERE task = 'wakeup-probe';
        IF NOT v_declared THEN
            DELETE FROM jobq.tasks WHERE name = 'wakeup-probe';
        END IF;
        UPDATE jobq.settings SET value = v_wakeup WHERE name = 'wakeup';
    END
    $probe$ $$), 'DO', 'setup: the second session committed its enqueues and put back what it changed');

SELECT bag_eq(
    $$ SELECT notify_name::text, extra FROM dblink_get_notify('wakeup_probe') $$,
    $$ VALUES ('jobq', 'wakeup_probe_control') $$,
    'under wakeup wal, enqueue sends no NOTIFY (the listening session hears only the control enqueued under notify)');
SELECT bag_eq(
    $$ SELECT data FROM pg_logical_slot_get_changes('jobq_pgtap_wakeup_wal', NULL, NULL, 'include-xids', '0')
       WHERE data LIKE 'message:%' $$,
    $$ VALUES ('message: transactional: 1 prefix: jobq, sz: 16 content:wakeup_probe_due'),
              ('message: transactional: 1 prefix: jobq, sz: 17 content:wakeup_probe_many') $$,
    'under wakeup wal, enqueue emits one transactional message, prefix jobq, per queue that got a due job, the queue name as content; a job not yet due emits none');

DO $$ BEGIN PERFORM dblink_disconnect('wakeup_probe'); END $$;
DO $$ BEGIN PERFORM jobq.release_doorbell(ARRAY['wakeup_probe_control']); END $$;
SELECT * FROM finish();
ROLLBACK;
