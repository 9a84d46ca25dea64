-- The gate (enqueue, enqueue_many run as jobq_app_gate) confines an application to the store of
-- app.current_store_id: a job for another store, or a system job, is refused with JQ406 and
-- nothing is written; a job for its own store is enqueued.
BEGIN;
SELECT plan(9);

SELECT jobq_test.reset();
SELECT FROM jobq.define_task('pgtap-store-task', scope => 'store');
SELECT FROM jobq.define_task('pgtap-system-task', app_enqueue => true);

-- Store A, store B and the system each have a live job and a finished (canceled) one (named).
SELECT jobq_test.tenant_jobs();
SELECT is((SELECT count(*) FROM (SELECT id FROM named WHERE name LIKE '%\_done') AS d CROSS JOIN LATERAL jobq.cancel_job(d.id) AS c),
          3::bigint, 'setup: a live and a finished job in store A, in store B and in the system');
GRANT SELECT ON named TO PUBLIC;
CREATE TEMP TABLE snapshot AS
SELECT 'jobs' AS t, to_jsonb(j) AS r FROM jobq.jobs j UNION ALL SELECT 'job_history', to_jsonb(h) FROM jobq.job_history h;

SET LOCAL ROLE jobq_app;
SET LOCAL app.current_store_id = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-store-task', store_id => 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb') $$,
    'JQ406', 'JOB.TENANT_MISMATCH: store bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb is not this session''s store (app.current_store_id = aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa)',
    'as jobq_app in store A, enqueue for store B is refused with JQ406');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-store-task', '{"storeId": "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb"}') $$,
    'JQ406', NULL, 'so is a job whose payload names store B');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-store-task', store_id => 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb', job_key => 'pgtap:b', job_key_mode => 'unsafe_dedupe') $$,
    'JQ406', NULL, 'so is a keyed job for store B');
SELECT throws_ok($$ SELECT jobq.enqueue_many('[{"task": "pgtap-store-task", "store_id": "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"}, {"task": "pgtap-store-task", "store_id": "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb"}]') $$,
    'JQ406', 'JOB.TENANT_MISMATCH: job 2: store bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb is not this session''s store (app.current_store_id = aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa)',
    'enqueue_many refuses a batch with one job for store B, naming its position');
RESET ROLE;
SELECT is_empty(
    $$ SELECT 'jobs' AS t, to_jsonb(j) AS r FROM jobq.jobs j UNION ALL SELECT 'job_history', to_jsonb(h) FROM jobq.job_history h
       EXCEPT SELECT * FROM snapshot $$,
    'the refused enqueues wrote nothing, not even the batchs job for store A');
SET LOCAL ROLE jobq_app;
SET LOCAL app.current_store_id = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
SELECT lives_ok($$ SELECT jobq.enqueue('pgtap-system-task') $$,
    'a session of store A may enqueue a system job of a task declared app_enqueue (system jobs belong to no store)');

SET LOCAL ROLE jobq_app;
SET LOCAL app.current_store_id = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
CREATE TEMP TABLE mine AS
SELECT jobq.enqueue('pgtap-store-task', store_id => 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa') AS by_store_id,
       jobq.enqueue('pgtap-store-task', '{"storeId": "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"}') AS by_payload,
       (SELECT array_agg(id) FROM jobq.enqueue_many('[{"task": "pgtap-store-task", "store_id": "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"}, {"task": "pgtap-store-task", "payload": {"storeId": "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"}}]') AS id) AS many;
RESET ROLE;
SELECT is((SELECT count(*) FROM jobq.jobs WHERE store_id = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa' AND id IN (SELECT by_store_id FROM mine UNION ALL SELECT by_payload FROM mine UNION ALL SELECT unnest(many) FROM mine)),
          4::bigint, 'jobs for store A, by store_id or by payload, one at a time or in a batch, are enqueued in store A');
SELECT is((SELECT count(*) FROM jobq.jobs WHERE store_id = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb'), 1::bigint, 'store B still has only its own live job');

SELECT * FROM finish();
ROLLBACK;
