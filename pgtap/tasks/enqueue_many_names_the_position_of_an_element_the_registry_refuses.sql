-- enqueue_many checks every element against the registry and, when one fails, names its position in
-- the catalogued error and writes nothing, not even the valid elements.
BEGIN;
SELECT plan(8);

SELECT jobq_test.reset();

SELECT jobq_test.tasks('pgtap-system-task');
SELECT FROM jobq.define_task('pgtap-store-task', scope => 'store', payload_schema => '{"storeId": "uuid", "n": "integer"}');
CREATE TEMP TABLE before AS SELECT count(*) AS n FROM jobq.jobs;

SELECT throws_ok($$ SELECT jobq.enqueue_many('[{"task": "pgtap-system-task"}, {"task": "pgtap-system-task"}, {"task": "pgtap-undeclared"}]') $$,
    'JQ401', 'JOB.UNKNOWN_TASK: job 3: task ''pgtap-undeclared'' is not declared', 'an undeclared task is named by its position');
SELECT throws_ok($$ SELECT jobq.enqueue_many('[{"task": "pgtap-store-task", "payload": {"storeId": "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa", "n": 1}},
                                              {"task": "pgtap-store-task", "payload": {"storeId": "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa", "n": "one"}}]') $$,
    'JQ402', 'JOB.PAYLOAD_INVALID: job 2: task pgtap-store-task: key n must be an integer, not "one"', 'a payload that breaks the contract is named by its position');
SELECT throws_like($$ SELECT jobq.enqueue_many('[{"task": "pgtap-system-task"}, {"task": "pgtap-store-task", "payload": {"n": 1, "storeId": "x"}}]') $$,
    'JOB.PAYLOAD_INVALID: job 2: task pgtap-store-task: key storeId must be a% uuid, not "x"', 'a storeId that is not a uuid is named by its position');
SELECT throws_ok($$ SELECT jobq.enqueue_many('[{"task": "pgtap-system-task"}, {"task": "pgtap-system-task", "store_id": "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"}]') $$,
    'JQ404', 'JOB.STORE_NOT_ALLOWED: job 2: task pgtap-system-task is a system task; it got store aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', 'a system task with a store id is named by its position');
SELECT throws_ok($$ SELECT jobq.enqueue_many('[{"task": "pgtap-store-task", "payload": {"storeId": "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa", "n": 1}, "store_id": "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb"}]') $$,
    'JQ402', 'JOB.PAYLOAD_INVALID: job 1: task pgtap-store-task: payload storeId aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa differs from store_id bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb', 'a store mismatch is named by its position');
SELECT FROM jobq.define_task('pgtap-loose-store-task', scope => 'store');
SELECT throws_ok($$ SELECT jobq.enqueue_many('[{"task": "pgtap-loose-store-task", "store_id": "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"}, {"task": "pgtap-loose-store-task"}]') $$,
    'JQ403', 'JOB.STORE_REQUIRED: job 2: task pgtap-loose-store-task is store-scoped; pass store_id or a storeId in the payload',
    'a store task without a store id is named by its position');
SELECT throws_ok($$ SELECT jobq.enqueue_many('[{"task": "pgtap-undeclared"}, {"task": ""}]') $$,
    'JQ101', 'JOB.TASK_REQUIRED: job 2: task is NULL or empty', 'the checks of every element come before the registry''s');
SELECT is((SELECT count(*) FROM jobq.jobs), (SELECT n FROM before), 'none of the refused batches wrote a job');

SELECT * FROM finish();
ROLLBACK;
