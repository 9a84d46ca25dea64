-- Every job that ends (succeeded, dead, canceled, or deleted while live) notifies channel jobq_done
-- with its id alone as the payload, at the commit; a completion rolled back notifies nothing, nor
-- does deleting a job that had ended already. NOTIFY is delivered only
-- at a commit, which a rolled-back test never reaches, so a second session (dblink) LISTENs,
-- ends jobs, removes what it wrote and commits; it receives its own notifications. This session
-- holds the done doorbell meanwhile, as an awaiting client does (jobq_done is sent only then:
-- jobq_done_is_sent_only_while_a_client_holds_the_done_doorbell.sql).
BEGIN;
SELECT plan(4);

CREATE EXTENSION IF NOT EXISTS dblink;
SELECT dblink_connect('done_probe', jobq_test.loopback());
SELECT is(dblink_exec('done_probe', 'LISTEN jobq_done'), 'LISTEN', 'setup: a second session listens on channel jobq_done');
SELECT ok(jobq.hold_done_doorbell(), 'setup: this session holds the done doorbell');

SELECT is(dblink_exec('done_probe', $$
    DO $probe$
    DECLARE
        v_declared boolean := EXISTS (SELECT 1 FROM jobq.tasks WHERE name = 'done-probe');
        v_ok bigint; v_dead bigint; v_canceled bigint; v_undone bigint; v_deleted bigint;
        v_token uuid;
    BEGIN
        IF NOT v_declared THEN
            PERFORM jobq.define_task('done-probe');
        END IF;
        v_ok := jobq.enqueue('done-probe', queue => 'done_probe_ok');
        v_dead := jobq.enqueue('done-probe', queue => 'done_probe_dead');
        v_canceled := jobq.enqueue('done-probe', queue => 'done_probe_cancel');
        v_undone := jobq.enqueue('done-probe', queue => 'done_probe_undone');
        v_deleted := jobq.enqueue('done-probe', queue => 'done_probe_deleted');
        SELECT c.lease_token INTO v_token FROM jobq.claim_job('done-probe-worker', ARRAY['done_probe_ok']) c;
        PERFORM jobq.complete_job(v_ok, v_token, '{"probe": true}');
        SELECT c.lease_token INTO v_token FROM jobq.claim_job('done-probe-worker', ARRAY['done_probe_dead']) c;
        PERFORM jobq.fail_job(v_dead, v_token, 'probe', retryable => false);
        PERFORM jobq.cancel_job(v_canceled);
        PERFORM jobq.delete_job(v_deleted);
        PERFORM jobq.delete_job(v_ok);  -- ended already: no second notification
        -- A completion that rolls back (a subtransaction here) tells nobody.
        BEGIN
            SELECT c.lease_token INTO v_token FROM jobq.claim_job('done-probe-worker', ARRAY['done_probe_undone']) c;
            PERFORM jobq.complete_job(v_undone, v_token);
            RAISE EXCEPTION 'roll back';
        EXCEPTION WHEN raise_exception THEN NULL;
        END;
        CREATE TEMP TABLE done_probe_ids AS SELECT v_ok AS ok, v_dead AS dead, v_canceled AS canceled, v_deleted AS deleted;
        DELETE FROM jobq.audit_log WHERE job_id IN (v_ok, v_dead, v_canceled, v_undone, v_deleted);
        DELETE FROM jobq.jobs WHERE task = 'done-probe';
        DELETE FROM jobq.job_attempts WHERE task = 'done-probe';
        DELETE FROM jobq.job_history WHERE task = 'done-probe';
        IF NOT v_declared THEN
            DELETE FROM jobq.tasks WHERE name = 'done-probe';
        END IF;
    END
    $probe$ $$), 'DO', 'setup: the second session completed, killed, canceled and deleted jobs, rolled a completion back, then removed them');

CREATE TEMP TABLE ids AS SELECT * FROM dblink('done_probe', 'SELECT ok, dead, canceled, deleted FROM done_probe_ids')
    AS t(ok bigint, dead bigint, canceled bigint, deleted bigint);
SELECT bag_eq(
    $$ SELECT notify_name::text, extra FROM dblink_get_notify('done_probe') $$,
    $$ SELECT 'jobq_done', ok::text FROM ids UNION ALL SELECT 'jobq_done', dead::text FROM ids UNION ALL SELECT 'jobq_done', canceled::text FROM ids
       UNION ALL SELECT 'jobq_done', deleted::text FROM ids $$,
    'channel jobq_done got one notification per ended job (succeeded, dead, canceled, deleted while live), its payload the id alone, '
    'and none for the rolled-back completion nor for deleting a finished job');

SELECT dblink_disconnect('done_probe');
-- A session-level lock outlives the test's ROLLBACK: let go explicitly.
DO $$ BEGIN PERFORM jobq.release_done_doorbell(); END $$;
SELECT * FROM finish();
ROLLBACK;
