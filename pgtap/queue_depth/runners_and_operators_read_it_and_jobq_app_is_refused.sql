-- jobq.queue_depth() is for runners (metrics) and operators: worker_runtime reads the counts
-- although it cannot read jobq.jobs, jobq_operator reads them, and jobq_app is refused.
BEGIN;
SELECT plan(3);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-t');
SELECT jobq.enqueue('pgtap-t', queue => 'pgtap_d');

SET LOCAL ROLE worker_runtime;
SELECT is((SELECT queued FROM jobq.queue_depth(ARRAY['pgtap_d'])), 1::bigint, 'worker_runtime reads the depth of a queue');
RESET ROLE;
SET LOCAL ROLE jobq_operator;
SELECT is((SELECT queued FROM jobq.queue_depth() WHERE queue = 'pgtap_d'), 1::bigint, 'jobq_operator reads the depth of every queue');
RESET ROLE;
SET LOCAL ROLE jobq_app;
SELECT throws_ok($$ SELECT * FROM jobq.queue_depth() $$, '42501', 'permission denied for function queue_depth', 'jobq_app cannot execute queue_depth');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
