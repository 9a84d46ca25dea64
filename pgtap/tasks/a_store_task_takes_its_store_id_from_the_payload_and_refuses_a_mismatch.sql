-- A store task enqueued without store_id takes its store from the payload's "storeId"; when both are
-- given they must name the same store, else JQ402. The all-zero uuid, reserved for system jobs, is
-- refused through the payload as it is through store_id.
BEGIN;
SELECT plan(9);

SELECT jobq_test.reset();

SELECT FROM jobq.define_task('pgtap-store-task', scope => 'store', payload_schema => '{"storeId": "uuid"}');
SELECT FROM jobq.define_task('pgtap-loose-store-task', scope => 'store');

CREATE TEMP TABLE ids AS
SELECT jobq.enqueue('pgtap-store-task', '{"storeId": "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"}') AS from_payload,
       jobq.enqueue('pgtap-store-task', '{"storeId": "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"}', store_id => 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa') AS both_agree,
       jobq.enqueue('pgtap-loose-store-task', '{"storeId": "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb"}') AS without_contract;
SELECT is((SELECT store_id FROM jobq.jobs WHERE id = (SELECT from_payload FROM ids)), 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa'::uuid,
          'without store_id, the job takes the store of the payload''s storeId');
SELECT is((SELECT store_id FROM jobq.jobs WHERE id = (SELECT both_agree FROM ids)), 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa'::uuid, 'store_id and a storeId that agree are accepted');
SELECT is((SELECT store_id FROM jobq.jobs WHERE id = (SELECT without_contract FROM ids)), 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb'::uuid,
          'a store task whose contract does not name storeId takes it from the payload too');

CREATE TEMP TABLE before AS SELECT count(*) AS n FROM jobq.jobs;
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-store-task', '{"storeId": "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"}', store_id => 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb') $$,
    'JQ402', 'JOB.PAYLOAD_INVALID: task pgtap-store-task: payload storeId aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa differs from store_id bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb',
    'a storeId that differs from store_id is refused with JQ402');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-loose-store-task', '{"storeId": 42}', store_id => 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb') $$,
    'JQ402', NULL, 'a storeId that is not the store_id at all is refused');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-store-task', '{}', store_id => 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa') $$,
    'JQ402', 'JOB.PAYLOAD_INVALID: task pgtap-store-task: required key storeId is missing',
    'store_id does not stand in for a storeId the contract requires');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-loose-store-task', '{"storeId": "00000000-0000-0000-0000-000000000000"}') $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: store_id 00000000-0000-0000-0000-000000000000 is reserved for system jobs; pass NULL',
    'the reserved all-zero store id is refused through the payload as through store_id');
SELECT is((SELECT count(*) FROM jobq.jobs), (SELECT n FROM before), 'the refused enqueues wrote nothing');

SELECT lives_ok($$ SELECT jobq.enqueue('pgtap-store-task', '{"storeId": "AAAAAAAA-AAAA-4AAA-8AAA-AAAAAAAAAAAA"}', store_id => 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa') $$,
    'a storeId in capitals names the same store as store_id: they agree');

SELECT * FROM finish();
ROLLBACK;
