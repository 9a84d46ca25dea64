-- The wake-up of the enqueue's fast path costs no nested call: jobq._wake_as, and the doorbell's
-- probe jobq._doorbell_silent within it, are SQL functions the planner inlines into the caller's
-- expression, so plpgsql evaluates the wake-up without a query. A SQL function that is not
-- inlined is parsed and planned again at every call; a change that stops the inlining (a SET
-- clause, SECURITY DEFINER, STRICT, a subquery) fails here.
BEGIN;
SELECT plan(4);

SELECT unalike(jobq_test.verbose_plan($$ SELECT jobq._wake_as(t.name, t.scope, t.app_enqueue) FROM jobq.tasks t $$),
               '%jobq._wake_as%', 'a call of jobq._wake_as is planned as its body, not as a call');
SELECT alike(jobq_test.verbose_plan($$ SELECT jobq._wake_as(t.name, t.scope, t.app_enqueue) FROM jobq.tasks t $$),
             '%pg_try_advisory_xact_lock_shared(1785790465, hashtext(name))%pg_notify(''jobq''::text, name)%',
             'its body, with the doorbell''s probe inlined too, takes the lock of an enqueue in flight and notifies');
SELECT unalike(jobq_test.verbose_plan($$ SELECT jobq._doorbell_silent(t.name) FROM jobq.tasks t $$),
               '%jobq._doorbell_silent%', 'a call of jobq._doorbell_silent is planned as its body, not as a call');
SELECT alike(jobq_test.verbose_plan($$ SELECT jobq._doorbell_silent(t.name) FROM jobq.tasks t $$),
             '%pg_try_advisory_xact_lock_shared%pg_try_advisory_lock(1785790466%pg_advisory_unlock(1785790466%',
             'the probe tries the lock of an enqueue in flight, then the doorbell, and lets the doorbell go');

SELECT * FROM finish();
ROLLBACK;
