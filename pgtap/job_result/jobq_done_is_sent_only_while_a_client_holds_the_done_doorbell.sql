-- The done doorbell: an end of a job NOTIFYs jobq_done only while some session holds the done
-- doorbell (jobq.hold_done_doorbell, as an awaiting client does), then once per job ended; with
-- no holder, and once the holder let go (jobq.release_done_doorbell), it sends nothing, so that
-- the commits of completions nobody waits for are not serialised by NOTIFY.
--
-- NOTIFY is delivered only at commit, so a second session (dblink, autocommit) LISTENs on channel
-- jobq_done and ends jobs in committed transactions that remove what they wrote; this session
-- holds and lets go of the done doorbell in between. The second session's own notifications reach
-- it (PostgreSQL delivers a session's NOTIFY to itself when it listens).
BEGIN;
SELECT plan(10);

CREATE EXTENSION IF NOT EXISTS dblink;
SELECT is(dblink_connect('done_bell', jobq_test.loopback()), 'OK', 'setup: a second session is connected');
SELECT is(dblink_exec('done_bell', 'LISTEN jobq_done'), 'LISTEN', 'setup: the second session listens on channel jobq_done');

-- The second session's probe, one committed transaction: three jobs completed by one
-- complete_jobs, one canceled; their ids kept in its temporary table probe_ids, then removed.
CREATE FUNCTION pg_temp.probe() RETURNS text LANGUAGE sql AS $f$
    SELECT dblink_exec('done_bell', $$
        DO $probe$
        DECLARE
            v_ids bigint[];
            v_tokens uuid[];
            v_canceled bigint;
        BEGIN
            IF NOT EXISTS (SELECT 1 FROM jobq.tasks WHERE name = 'done-bell') THEN
                PERFORM jobq.define_task('done-bell');
            END IF;
            PERFORM jobq.enqueue('done-bell', queue => 'done_bell') FROM generate_series(1, 3);
            v_canceled := jobq.enqueue('done-bell', queue => 'done_bell_cancel');
            SELECT array_agg(c.id), array_agg(c.lease_token) INTO v_ids, v_tokens
            FROM jobq.claim_job('done-bell-worker', ARRAY['done_bell'], 3) c;
            PERFORM jobq.complete_jobs(v_ids, v_tokens);
            PERFORM jobq.cancel_job(v_canceled);
            CREATE TEMP TABLE IF NOT EXISTS probe_ids (id bigint);
            TRUNCATE probe_ids;
            INSERT INTO probe_ids SELECT unnest(v_ids || v_canceled);
            DELETE FROM jobq.audit_log WHERE job_id = ANY (v_ids || v_canceled);
            DELETE FROM jobq.job_attempts WHERE task = 'done-bell';
            DELETE FROM jobq.job_history WHERE task = 'done-bell';
            DELETE FROM jobq.tasks WHERE name = 'done-bell';
        END
        $probe$ $$)
$f$;
CREATE FUNCTION pg_temp.probe_ids() RETURNS SETOF text LANGUAGE sql AS $f$
    SELECT t.id::text FROM dblink('done_bell', 'SELECT id FROM probe_ids') AS t(id bigint)
$f$;

SELECT is(pg_temp.probe(), 'DO', 'setup: the second session ended four jobs while no session held the done doorbell');
SELECT is_empty($$ SELECT notify_name::text, extra FROM dblink_get_notify('done_bell') $$,
                'nobody awaits: ending jobs notifies nothing');

SELECT ok(jobq.hold_done_doorbell(), 'this session holds the done doorbell');
SELECT is(pg_temp.probe(), 'DO', 'setup: the second session ended four jobs again');
SELECT bag_eq($$ SELECT notify_name::text, extra FROM dblink_get_notify('done_bell') $$,
              $$ SELECT 'jobq_done', id FROM pg_temp.probe_ids() AS id $$,
              'with the done doorbell held, each job ended is notified once, its id the payload');

SELECT ok(jobq.release_done_doorbell(), 'this session lets go of the done doorbell it held');
SELECT is(pg_temp.probe(), 'DO', 'setup: the second session ended four jobs once more');
SELECT is_empty($$ SELECT notify_name::text, extra FROM dblink_get_notify('done_bell') $$,
                'once the done doorbell is let go, ending jobs notifies nothing again');

DO $$ BEGIN PERFORM dblink_disconnect('done_bell'); END $$;
SELECT * FROM finish();
ROLLBACK;
