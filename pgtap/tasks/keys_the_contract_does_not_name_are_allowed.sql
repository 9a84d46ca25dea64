-- The contract names the keys a task needs; a payload may carry more (a newer producer, tracing
-- data), and they are stored as given.
BEGIN;
SELECT plan(3);

SELECT jobq_test.reset();

SELECT FROM jobq.define_task('pgtap-sync', scope => 'store', payload_schema => '{"storeId": "uuid"}');
SELECT jobq_test.tasks('pgtap-free');

CREATE TEMP TABLE job AS
SELECT jobq.enqueue('pgtap-sync', '{"storeId": "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa", "extra": [1, 2], "traceId": "t-1"}') AS extra,
       jobq.enqueue('pgtap-free', '{"anything": {"at": "all"}}') AS free;

SELECT is((SELECT payload FROM jobq.jobs WHERE id = (SELECT extra FROM job)),
          '{"storeId": "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa", "extra": [1, 2], "traceId": "t-1"}'::jsonb,
          'keys the contract does not name are accepted and stored as given');
SELECT is((SELECT payload FROM jobq.jobs WHERE id = (SELECT free FROM job)), '{"anything": {"at": "all"}}'::jsonb,
          'a task without a contract accepts any object');
SELECT is(jobq.payload_problem('{"storeId": "uuid"}', '{"storeId": "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa", "more": true}'), NULL,
          'payload_problem finds nothing wrong with extra keys');

SELECT * FROM finish();
ROLLBACK;
