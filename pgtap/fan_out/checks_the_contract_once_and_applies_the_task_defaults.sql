-- The fan-out resolves its task once: a payload that breaks the task's contract is refused before
-- any job is written, and every job gets the task's defaults (queue, priority, attempts, timeout).
BEGIN;
SELECT plan(4);

SELECT jobq_test.reset();
SELECT jobq_test.stores('aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb');
SELECT FROM jobq.define_task('pgtap-aggregate-for-store', scope => 'store',
                             payload_schema => '{"storeId": "uuid", "targetDate": "date"}',
                             max_attempts => 25, queue => 'pgtap_reports', priority => 5, timeout => '10 minutes');

SET LOCAL ROLE worker_runtime;
SELECT throws_ok($$ SELECT jobq.fan_out('pgtap-aggregate-for-store', '{"targetDate": 5}') $$,
    'JQ402', 'JOB.PAYLOAD_INVALID: task pgtap-aggregate-for-store: key targetDate must be a date, not 5',
    'a payload that breaks the task''s contract is refused');
SELECT is(jobq.fan_out('pgtap-aggregate-for-store', '{"targetDate": "2026-05-05"}', 'aggregate:{storeId}:2026-05-05'), 2,
          'a payload that keeps the contract fans out to every store');
RESET ROLE;
SELECT is((SELECT count(*) FROM jobq.jobs WHERE payload ? 'storeId' AND payload->>'targetDate' = '2026-05-05'), 2::bigint,
          'only the valid fan-out wrote jobs, each with its storeId');
SELECT results_eq(
    $$ SELECT DISTINCT queue, priority, max_attempts, timeout FROM jobq.jobs $$,
    $$ VALUES ('pgtap_reports'::text, 5::smallint, 25, interval '10 minutes') $$,
    'every fanned-out job has the task''s defaults');

SELECT * FROM finish();
ROLLBACK;
