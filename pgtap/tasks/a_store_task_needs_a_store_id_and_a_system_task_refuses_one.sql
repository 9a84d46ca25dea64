-- A store-scoped task always has a store id: without store_id or a uuid "storeId" in the payload
-- it is refused with JQ403. A system task runs across stores and never has one: a store_id is
-- refused with JQ404 (a "storeId" in its payload is only data).
BEGIN;
SELECT plan(7);

SELECT jobq_test.reset();

SELECT FROM jobq.define_task('pgtap-store-task', scope => 'store');
SELECT FROM jobq.define_task('pgtap-system-task', scope => 'system');
CREATE TEMP TABLE before AS SELECT count(*) AS n FROM jobq.jobs;

SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-store-task') $$,
    'JQ403', 'JOB.STORE_REQUIRED: task pgtap-store-task is store-scoped; pass store_id or a storeId in the payload',
    'a store task without a store id is refused with JQ403');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-store-task', '{"storeId": "s-1"}') $$,
    'JQ403', NULL, 'a payload storeId that is not a uuid gives no store id');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-store-task', '{"storeId": null}') $$,
    'JQ403', NULL, 'nor does a null storeId');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-system-task', store_id => 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa') $$,
    'JQ404', 'JOB.STORE_NOT_ALLOWED: task pgtap-system-task is a system task; it got store aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa',
    'a system task with a store id is refused with JQ404');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-system-task', '{"storeId": "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"}', store_id => 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa') $$,
    'JQ404', NULL, 'even when its payload names the same store');
SELECT is((SELECT count(*) FROM jobq.jobs), (SELECT n FROM before), 'nothing was written');

CREATE TEMP TABLE ok AS
SELECT jobq.enqueue('pgtap-store-task', store_id => 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa') AS store_job,
       jobq.enqueue('pgtap-system-task') AS system_job,
       jobq.enqueue('pgtap-system-task', '{"storeId": "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"}') AS system_with_data;
SELECT results_eq(
    $$ SELECT store_id FROM jobq.jobs WHERE id IN (SELECT store_job FROM ok UNION ALL SELECT system_job FROM ok UNION ALL SELECT system_with_data FROM ok) ORDER BY id $$,
    $$ VALUES ('aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa'::uuid), (NULL::uuid), (NULL::uuid) $$,
    'a store task with a store id and a system task without one are accepted; a system job never gets a store id from its payload');

SELECT * FROM finish();
ROLLBACK;
