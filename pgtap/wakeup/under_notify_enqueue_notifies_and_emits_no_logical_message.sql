-- wakeup = notify (the default): enqueue NOTIFYs channel jobq once per queue that got a due job,
-- as it always did, and emits no logical message.
--
-- NOTIFYs and logical messages exist only once a transaction commits, which a rolled-back test
-- never reaches, so a second session (dblink, autocommit) LISTENs on channel jobq and runs the
-- probe in one committed transaction that sets wakeup, enqueues, and then puts everything back
-- (jobs, task, setting): the database is left as it was. A temporary test_decoding slot, made
-- before this file's transaction takes an xid (a new logical slot waits for running
-- transactions), sees every message the probe's transaction emitted; the server drops it when
-- this session ends.
DO $$ BEGIN PERFORM pg_create_logical_replication_slot('jobq_pgtap_wakeup_notify', 'test_decoding', true); END $$;

BEGIN;
SELECT plan(6);

-- A runner of these queues waits: this session holds their doorbells, so that the probe's
-- enqueues and wake-ups NOTIFY under the setting doorbell (true as installed).
SELECT ok(jobq.hold_doorbell(ARRAY['wakeup_probe_due', 'wakeup_probe_many', 'wakeup_probe_later', 'wakeup_probe_many_later']),
          'setup: this session holds the doorbells of the probe''s queues, as a waiting runner does');

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
        UPDATE jobq.settings SET value = 'notify' WHERE name = 'wakeup';
        PERFORM jobq.enqueue('wakeup-probe', queue => 'wakeup_probe_due');
        PERFORM jobq.enqueue_many('[{"task": "wakeup-probe", "queue": "wakeup_probe_many"},
                                    {"task": "wakeup-probe", "queue": "wakeup_probe_many"}]');
        PERFORM jobq.enqueue('wakeup-probe', queue => 'wakeup_probe_later', run_at => now() + interval '1 hour');
        PERFORM jobq.enqueue_many('[{"task": "wakeup-probe", "queue": "wakeup_probe_many_later", "run_at": "2999-01-01T00:00:00Z"},
                                    {"task": "wakeup-probe", "queue": "wakeup_probe_many_later", "run_at": "2999-01-01T00:00:00Z"}]');
        DELETE FROM jobq.jobs WHERE task = 'wakeup-probe';
        IF NOT v_declared THEN
            DELETE FROM jobq.tasks WHERE name = 'wakeup-probe';
        END IF;
        UPDATE jobq.settings SET value = v_wakeup WHERE name = 'wakeup';
    END
    $probe$ $$), 'DO', 'setup: the second session committed its enqueues and put back what it changed');

SELECT bag_eq(
    $$ SELECT notify_name::text, extra FROM dblink_get_notify('wakeup_probe') $$,
    $$ VALUES ('jobq', 'wakeup_probe_due'), ('jobq', 'wakeup_probe_many') $$,
    'under wakeup notify, channel jobq gets one notification per queue that got a due job, with the queue name, and none for a queue whose jobs are due later (enqueue or enqueue_many)');
SELECT is_empty(
    $$ SELECT data FROM pg_logical_slot_get_changes('jobq_pgtap_wakeup_notify', NULL, NULL, 'include-xids', '0')
       WHERE data LIKE 'message:%' $$,
    'under wakeup notify, enqueue emits no logical message');

DO $$ BEGIN PERFORM dblink_disconnect('wakeup_probe'); END $$;
DO $$ BEGIN PERFORM jobq.release_doorbell(ARRAY['wakeup_probe_due', 'wakeup_probe_many', 'wakeup_probe_later', 'wakeup_probe_many_later']); END $$;
SELECT * FROM finish();
ROLLBACK;
