-- Every wake-up obeys the settings wakeup and doorbell: no function of schema jobq calls pg_notify
-- or pg_logical_emit_message itself but jobq._wake (the one helper that reads them), and every
-- function that wakes a queue calls jobq._wake. A new function that NOTIFYs on its own, and so
-- would NOTIFY under wakeup wal, fails here. The one exception is no wake-up: jobq.detach_worker
-- NOTIFYs channel jobq_control so the detached runner confirms its jobs before their deadline (an
-- operator's rare action, never on an enqueuer's commit).
BEGIN;
SELECT plan(2);

SELECT is_empty(
    $$ SELECT p.oid::regprocedure::text
       FROM pg_proc p
       WHERE p.pronamespace = 'jobq'::regnamespace
         AND (p.prosrc ~ '\mpg_notify\s*\(' OR p.prosrc ~ '\mpg_logical_emit_message\s*\(')
         AND p.oid NOT IN ('jobq._wake(text)'::regprocedure, 'jobq.detach_worker(text)'::regprocedure) $$,
    'no jobq function but jobq._wake (and detach_worker on jobq_control) sends a NOTIFY or a logical message itself');

SELECT set_has(
    $$ SELECT p.oid::regprocedure::text
       FROM pg_proc p
       WHERE p.pronamespace = 'jobq'::regnamespace AND p.prosrc ~ '\mjobq\._wake\s*\(' $$,
    $$ VALUES ('jobq._revive(bigint[],text)'), ('jobq.retry_job(bigint)'),
              ('jobq.snooze_jobs(bigint[],uuid[],interval)'), ('jobq._insert_specs(jobq.job_spec[],boolean)'),
              ('jobq.enqueue(text,jsonb,timestamp with time zone,text,text,integer,integer,text,uuid,interval,interval,interval,interval)'),
              ('jobq.enqueue_many(jsonb)') $$,
    'enqueue (its fast path and _insert_specs), enqueue_many, retry_job, _revive (retry_job, requeue_dead) and snooze_jobs wake their queues through jobq._wake');

SELECT * FROM finish();
ROLLBACK;
