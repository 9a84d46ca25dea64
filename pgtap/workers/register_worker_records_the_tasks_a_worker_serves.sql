-- register_worker(..., tasks) records the tasks a runner serves (jobq.workers.tasks): sorted,
-- without duplicates; NULL (omitted: a runner of the release before) for every task; {} for a
-- runner without handlers, which serves none. Registering again replaces the list.
BEGIN;
SELECT plan(5);

SELECT jobq_test.reset();
SET LOCAL ROLE worker_runtime;
SELECT jobq.register_worker('pgtap-w1', 'node-a', 1, ARRAY['default'], 2, 'v', ARRAY['send-receipt', 'resize-image', 'send-receipt']);
SELECT jobq.register_worker('pgtap-w2', 'node-a', 2, ARRAY['default'], 2, 'v');
SELECT jobq.register_worker('pgtap-w3', 'node-a', 3, ARRAY['default'], 2, 'v', '{}');
RESET ROLE;

SELECT is((SELECT tasks FROM jobq.workers WHERE id = 'pgtap-w1'), ARRAY['resize-image', 'send-receipt'], 'the list, sorted, without duplicates');
SELECT is((SELECT tasks FROM jobq.workers WHERE id = 'pgtap-w2'), NULL, 'no list: every task (a runner of the release before)');
SELECT is((SELECT tasks FROM jobq.workers WHERE id = 'pgtap-w3'), '{}'::text[], 'an empty list: no task');

SET LOCAL ROLE worker_runtime;
SELECT jobq.register_worker('pgtap-w1', 'node-a', 1, ARRAY['default'], 2, 'v', ARRAY['resize-image']);
SELECT jobq.register_worker('pgtap-w3', 'node-a', 3, ARRAY['default'], 2, 'v', NULL);
RESET ROLE;
SELECT is((SELECT tasks FROM jobq.workers WHERE id = 'pgtap-w1'), ARRAY['resize-image'], 'registering again replaces the list');
SELECT is((SELECT tasks FROM jobq.workers WHERE id = 'pgtap-w3'), NULL, 'and NULL replaces it with every task');

SELECT * FROM finish();
ROLLBACK;
