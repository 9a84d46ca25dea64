-- The stores are listed and their jobs enqueued in store id order (not in the order public.store
-- holds them), keyed or not, so concurrent fan-outs lock keys in one order.
BEGIN;
SELECT plan(5);

SELECT jobq_test.reset();
SELECT jobq_test.stores('cccccccc-cccc-4ccc-8ccc-cccccccccccc', 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb');
SELECT FROM jobq.define_task('pgtap-expire-tentative', scope => 'store', payload_schema => '{"storeId": "uuid", "targetDate": "date"}',
                             queue => 'pgtap_maintenance');

SET LOCAL ROLE worker_runtime;
SELECT results_eq($$ SELECT store_id FROM public.list_store_ids_for_fan_out() $$, $$ VALUES ('aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa'::uuid), ('bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb'), ('cccccccc-cccc-4ccc-8ccc-cccccccccccc') $$,
                  'list_store_ids_for_fan_out returns the stores in id order');
SELECT is(jobq.fan_out('pgtap-expire-tentative', '{"targetDate": "2024-05-01"}', 'expire_tentative:{storeId}'), 3, 'setup: a keyed fan-out');
SELECT is(jobq.fan_out('pgtap-expire-tentative', '{"targetDate": "2024-05-02"}'), 3, 'setup: a fan-out with the default key <task>:{storeId}');
RESET ROLE;
SELECT results_eq($$ SELECT store_id FROM jobq.jobs WHERE job_key LIKE 'expire_tentative:%' ORDER BY id $$, $$ VALUES ('aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa'::uuid), ('bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb'), ('cccccccc-cccc-4ccc-8ccc-cccccccccccc') $$,
                  'the keyed jobs were enqueued in store id order');
SELECT results_eq($$ SELECT store_id FROM jobq.jobs WHERE job_key = 'pgtap-expire-tentative:' || store_id ORDER BY id $$, $$ VALUES ('aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa'::uuid), ('bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb'), ('cccccccc-cccc-4ccc-8ccc-cccccccccccc') $$,
                  'the jobs with the default key <task>:{storeId} were enqueued in store id order');

SELECT * FROM finish();
ROLLBACK;
