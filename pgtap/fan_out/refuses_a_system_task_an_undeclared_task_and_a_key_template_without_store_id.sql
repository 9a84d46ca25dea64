-- fan_out works with store-scoped tasks only: it refuses a system task and a key template without
-- {storeId} (every store would share one key, so one job in all) with JQ100, an undeclared task with
-- JQ401, and a payload that breaks the task's contract with JQ402; nothing is written.
BEGIN;
SELECT plan(7);

SELECT jobq_test.reset();
SELECT jobq_test.stores('cccccccc-cccc-4ccc-8ccc-cccccccccccc', 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb');
SELECT FROM jobq.define_task('pgtap-expire-tentative', scope => 'store', payload_schema => '{"storeId": "uuid", "targetDate": "date"}',
                             queue => 'pgtap_maintenance');
SELECT jobq_test.tasks('pgtap-nightly-scheduler');

SET LOCAL ROLE worker_runtime;
SELECT throws_ok($$ SELECT jobq.fan_out('pgtap-nightly-scheduler') $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: fan_out needs a store-scoped task; pgtap-nightly-scheduler is a system task', 'fan_out refuses a system task');
SELECT throws_ok($$ SELECT jobq.fan_out('pgtap-undeclared') $$,
    'JQ401', 'JOB.UNKNOWN_TASK: task ''pgtap-undeclared'' is not declared', 'fan_out refuses an undeclared task');
SELECT throws_ok($$ SELECT jobq.fan_out('pgtap-expire-tentative', '{"targetDate": "2024-05-01"}', 'expire_tentative') $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: job_key_template ''expire_tentative'' must contain {storeId}, or every store would share one key',
    'fan_out refuses a key template without {storeId}');
SELECT throws_ok($$ SELECT jobq.fan_out('pgtap-expire-tentative', '{"targetDate": "2024-05-01"}', 'expire_tentative:{storeid}') $$,
    'JQ100', NULL, 'the placeholder is {storeId}, case-sensitive');
SELECT throws_ok($$ SELECT jobq.fan_out('pgtap-expire-tentative', '{"targetDate": "tomorrow"}', 'expire_tentative:{storeId}') $$,
    'JQ402', NULL, 'fan_out refuses a payload that breaks the task''s contract');
SELECT throws_ok($$ SELECT jobq.fan_out('pgtap-expire-tentative', '[]', 'expire_tentative:{storeId}') $$,
    'JQ102', NULL, 'fan_out refuses a payload that is not an object');
RESET ROLE;
SELECT is((SELECT count(*) FROM jobq.jobs), 0::bigint, 'the refused fan-outs wrote nothing');

SELECT * FROM finish();
ROLLBACK;
