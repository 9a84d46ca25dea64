-- jobq.job_attempts has forced row security: an application (jobq_app) reads only its store's
-- attempts, operators read all, and nobody but the engine writes.
BEGIN;
SELECT plan(5);

SELECT jobq_test.reset();
SELECT FROM jobq.define_task('store-task', scope => 'store');
SELECT jobq_test.tasks('system-task');

SELECT jobq.enqueue('store-task', queue => 'q', store_id => 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa');
SELECT jobq.enqueue('store-task', queue => 'q', store_id => 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb');
SELECT jobq.enqueue('system-task', queue => 'q');
CREATE TEMP TABLE c AS SELECT * FROM jobq.claim_job('w', ARRAY['q'], 3);
SELECT is((SELECT count(*) FROM jobq.fail_jobs(ARRAY(SELECT id FROM c), ARRAY(SELECT lease_token FROM c), ARRAY(SELECT 'boom' FROM c))),
          3::bigint, 'setup: a failed attempt in store A, in store B and in the system');

SET LOCAL ROLE jobq_app;
SET LOCAL app.current_store_id = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
SELECT results_eq($$ SELECT store_id FROM jobq.job_attempts $$, $$ VALUES ('aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa'::uuid) $$,
                  'the application in store A reads only store A''s attempt');
SELECT throws_ok($$ DELETE FROM jobq.job_attempts $$, '42501', NULL, 'the application cannot delete attempts');
RESET ROLE;

SET LOCAL ROLE jobq_operator;
SELECT is((SELECT count(*) FROM jobq.job_attempts), 3::bigint, 'an operator reads every attempt');
RESET ROLE;

SELECT results_eq(
    $$ SELECT c.relrowsecurity, c.relforcerowsecurity FROM pg_class c WHERE c.oid = 'jobq.job_attempts'::regclass $$,
    $$ VALUES (true, true) $$, 'row security is enabled and forced');

SELECT * FROM finish();
ROLLBACK;
