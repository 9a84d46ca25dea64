-- The limit setters refuse, with catalogued errors and without writing: a zero, negative or
-- huge limit (JQ107: 1..1000000), a NULL, blank or overlong queue (JQ100, JQ106), a queue nothing
-- knows (JQ100: no task, job, worker, schedule or control names it; removing a limit there is a
-- no-op), a blank or overlong partition key (JQ100, JQ106), and a partition limit with only one
-- of its key and its number (JQ100).
BEGIN;
SELECT plan(17);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-x');
SELECT jobq.enqueue('pgtap-x', queue => 'pgtap_q');
CREATE TEMP TABLE before AS SELECT * FROM jobq_test.counts();

SELECT throws_ok($$ SELECT jobq.set_concurrency_limit('pgtap_q', 0) $$, 'JQ107', NULL, 'a limit of 0 is refused');
SELECT throws_ok($$ SELECT jobq.set_concurrency_limit('pgtap_q', -1) $$, 'JQ107', NULL, 'a negative limit is refused');
SELECT throws_ok($$ SELECT jobq.set_concurrency_limit('pgtap_q', 1000001) $$, 'JQ107', NULL, 'a limit above 1000000 is refused');
SELECT throws_ok($$ SELECT jobq.set_store_concurrency_limit('pgtap_q', 0) $$, 'JQ107', NULL, 'a per-store limit of 0 is refused');
SELECT throws_ok($$ SELECT jobq.set_partition_concurrency_limit('pgtap_q', 'customerId', 2147483647) $$, 'JQ107', NULL, 'a huge per-partition limit is refused');
SELECT throws_ok($$ SELECT jobq.set_concurrency_limit(NULL, 1) $$, 'JQ100', NULL, 'a NULL queue is refused');
SELECT throws_ok($$ SELECT jobq.set_store_concurrency_limit('  ', 1) $$, 'JQ100', NULL, 'a blank queue is refused');
SELECT throws_ok(format('SELECT jobq.set_concurrency_limit(%L, 1)', repeat('q', 201)), 'JQ106', NULL, 'a queue above 200 characters is refused');
SELECT throws_ok($$ SELECT jobq.set_concurrency_limit('pgtap_typo', 1) $$, 'JQ100',
                 'JOB.INVALID_ARGUMENT: queue ''pgtap_typo'' is not known: no declared task, live job, registered worker, schedule or queue control names it',
                 'a queue nothing knows is refused, by name');
SELECT is(jobq.set_concurrency_limit('pgtap_typo', NULL), false, 'removing a limit of an unknown queue is a no-op');
SELECT throws_ok($$ SELECT jobq.set_partition_concurrency_limit('pgtap_q', ' ', 1) $$, 'JQ100', NULL, 'a blank partition key is refused');
SELECT throws_ok(format('SELECT jobq.set_partition_concurrency_limit(%L, %L, 1)', 'pgtap_q', repeat('k', 201)), 'JQ106', NULL,
                 'a partition key above 200 characters is refused');
SELECT throws_ok($$ SELECT jobq.set_partition_concurrency_limit('pgtap_q', 'customerId', NULL) $$, 'JQ100', NULL,
                 'a partition key without a limit is refused');
SELECT throws_ok($$ SELECT jobq.set_partition_concurrency_limit('pgtap_q', NULL, 1) $$, 'JQ100', NULL,
                 'a limit without a partition key is refused');
SELECT results_eq($$ SELECT * FROM jobq_test.counts() $$, $$ SELECT * FROM before $$, 'no refusal wrote a job, task or audit row');
SELECT is_empty($$ SELECT * FROM jobq.queues $$, 'nor a jobq.queues row');
SELECT lives_ok($$ SELECT jobq.set_concurrency_limit('default', 1000000) $$, 'the queue default is always known, and 1000000 is the largest limit');

SELECT * FROM finish();
ROLLBACK;
