-- GWT-5: a system scheduler task fans a store-scoped task out to every store: one job per store, in
-- one call, each with the store as store_id and payload storeId and its own job key.
BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
SELECT jobq_test.stores('cccccccc-cccc-4ccc-8ccc-cccccccccccc', 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb');
SELECT FROM jobq.define_task('pgtap-expire-tentative', scope => 'store', payload_schema => '{"storeId": "uuid", "targetDate": "date"}',
                             queue => 'pgtap_maintenance');

SET LOCAL ROLE worker_runtime;
SELECT is(jobq.fan_out('pgtap-expire-tentative', '{"targetDate": "2024-05-01"}', 'expire_tentative:{storeId}'), 3,
          'fan_out returns the number of jobs it enqueued: one per store');
RESET ROLE;
SELECT set_eq(
    $$ SELECT task, store_id, payload, job_key, job_key_mode, queue FROM jobq.jobs $$,
    $$ SELECT 'pgtap-expire-tentative'::text AS task, s.id AS store_id, jsonb_build_object('targetDate', '2024-05-01', 'storeId', s.id) AS payload,
              'expire_tentative:' || s.id AS job_key, 'preserve_run_at'::text AS job_key_mode, 'pgtap_maintenance'::text AS queue
       FROM public.store s $$,
    'each store gets one job of the task, with store_id, payload storeId and job key of its own, preserve_run_at, the task''s queue');
SELECT is((SELECT count(DISTINCT store_id) FROM jobq.jobs), 3::bigint, 'three stores, three jobs');
SELECT is((SELECT count(*) FROM jobq.jobs WHERE state = 'queued' AND run_at = now()), 3::bigint, 'the jobs are queued and due now');

SET LOCAL ROLE worker_runtime;
SELECT is(jobq.fan_out('pgtap-expire-tentative', '{"targetDate": "2024-05-02", "storeId": "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"}', 'expire_tentative:{storeId}:2024-05-02'), 3,
          'a storeId in the fan-out payload is replaced by each store''s own');
RESET ROLE;
SELECT set_eq($$ SELECT store_id, (payload->>'storeId')::uuid FROM jobq.jobs WHERE job_key LIKE '%:2024-05-02' $$,
              $$ SELECT id AS store_id, id AS payload_store_id FROM public.store $$, 'every job''s payload names its own store');

SELECT * FROM finish();
ROLLBACK;
