-- Every wake-up obeys the settings wakeup and doorbell: no function of schema jobq calls pg_notify
-- or pg_logical_emit_message itself but jobq._wake_as (the one helper that sends, given the
-- settings' values), only jobq._wake (which reads the settings) and the fast path of jobq.enqueue
-- (which reads them with its task) call jobq._wake_as, and every function that wakes a queue calls
-- one of the two. A new function that NOTIFYs on its own, and so would NOTIFY under wakeup wal,
-- fails here. The two exceptions are no wake-ups but control messages on channel jobq_control, an
-- operator's rare actions, never on an enqueuer's commit: jobq.detach_worker, so that the detached
-- runner confirms its jobs before their deadline, and jobq.cancel_job of a running job, so that its
-- runner stops the handler at once (issue 34). A third is no wake-up either: jobq._tell_done, which
-- tells waiting clients on channel jobq_done that a job ended (issue 35).
BEGIN;
SELECT plan(4);

SELECT is_empty(
    $$ SELECT p.oid::regprocedure::text
       FROM pg_proc p
       WHERE p.pronamespace = 'jobq'::regnamespace
         AND (p.prosrc ~ '\mpg_notify\s*\(' OR p.prosrc ~ '\mpg_logical_emit_message\s*\(')
         AND p.oid NOT IN ('jobq._wake_as(text,text,boolean)'::regprocedure, 'jobq.detach_worker(text)'::regprocedure,
                           'jobq.cancel_job(bigint)'::regprocedure, 'jobq._tell_done(bigint[])'::regprocedure) $$,
    'no jobq function but jobq._wake_as (and detach_worker and cancel_job on jobq_control, and jobq._tell_done on jobq_done) sends a NOTIFY or a logical message itself');

SELECT set_eq(
    $$ SELECT p.oid::regprocedure::text
       FROM pg_proc p
       WHERE p.pronamespace = 'jobq'::regnamespace AND p.prosrc ~ '\mjobq\._wake_as\s*\('
         -- The grants' declaration names the signature; it calls nothing.
         AND p.oid <> 'jobq._function_grants()'::regprocedure $$,
    $$ VALUES ('jobq._wake(text)'),
              ('jobq.enqueue(text,jsonb,timestamp with time zone,text,text,integer,integer,text,uuid,interval,interval,interval,interval,bigint[],text,text,text)') $$,
    'only jobq._wake and the fast path of jobq.enqueue, which both read the settings wakeup and doorbell, call jobq._wake_as');

SELECT matches(
    (SELECT p.prosrc FROM pg_proc p
     WHERE p.oid = 'jobq.enqueue(text,jsonb,timestamp with time zone,text,text,integer,integer,text,uuid,interval,interval,interval,interval,bigint[],text,text,text)'::regprocedure),
    $re$s\.name = 'wakeup'.*s\.name = 'doorbell'.*jobq\._wake_as\(v_job\.queue, v_wakeup, v_doorbell\)$re$,
    'the fast path of jobq.enqueue passes jobq._wake_as the settings wakeup and doorbell it read');

SELECT set_has(
    $$ SELECT p.oid::regprocedure::text
       FROM pg_proc p
       WHERE p.pronamespace = 'jobq'::regnamespace AND p.prosrc ~ '\mjobq\._wake\s*\(' $$,
    $$ VALUES ('jobq._revive(bigint[],text)'), ('jobq.retry_job(bigint)'),
              ('jobq.snooze_jobs(bigint[],uuid[],interval)'), ('jobq._insert_specs(jobq.job_spec[],boolean)'),
              ('jobq.enqueue_many(jsonb)') $$,
    'enqueue_many, _insert_specs (the slow path of enqueue), retry_job, _revive (retry_job, requeue_dead) and snooze_jobs wake their queues through jobq._wake');

SELECT * FROM finish();
ROLLBACK;
