-- worker_runtime may call public.list_store_ids_for_fan_out (every store id, whatever its session's
-- store) and jobq.fan_out, which uses it.
BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
SELECT jobq_test.stores('bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb', 'cccccccc-cccc-4ccc-8ccc-cccccccccccc', 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa');
SELECT FROM jobq.define_task('pgtap-store-task', scope => 'store');

SELECT function_privs_are('public', 'list_store_ids_for_fan_out', ARRAY[]::text[], 'worker_runtime', ARRAY['EXECUTE'], 'worker_runtime can execute list_store_ids_for_fan_out');
SELECT function_privs_are('jobq', 'fan_out', ARRAY['text', 'jsonb', 'text', 'text', 'timestamptz'], 'worker_runtime', ARRAY['EXECUTE'], 'worker_runtime can execute fan_out');
SET LOCAL ROLE worker_runtime;
SELECT results_eq($$ SELECT store_id FROM public.list_store_ids_for_fan_out() $$,
                  $$ VALUES ('aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa'::uuid), ('bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb'), ('cccccccc-cccc-4ccc-8ccc-cccccccccccc') $$,
                  'as worker_runtime, list_store_ids_for_fan_out returns every store id, in order');
SET LOCAL app.current_store_id = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
SELECT results_eq($$ SELECT store_id FROM public.list_store_ids_for_fan_out() $$,
                  $$ VALUES ('aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa'::uuid), ('bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb'), ('cccccccc-cccc-4ccc-8ccc-cccccccccccc') $$,
                  'a store setting does not narrow it (public.store''s policy does not apply to its BYPASSRLS owner)');
RESET app.current_store_id;
SELECT is(jobq.fan_out('pgtap-store-task', job_key_template => 'pgtap:{storeId}'), 3, 'as worker_runtime, fan_out enqueues one job per store');
RESET ROLE;
SELECT set_eq($$ SELECT store_id FROM jobq.jobs WHERE task = 'pgtap-store-task' $$, $$ VALUES ('aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa'::uuid), ('bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb'), ('cccccccc-cccc-4ccc-8ccc-cccccccccccc') $$, 'one job for each store');

SELECT * FROM finish();
ROLLBACK;
