-- register_worker takes the queues the runner claims from; a blank name (empty or spaces only) is
-- no queue (enqueue refuses one, so nothing could be claimed from it) and is refused with
-- JOB.INVALID_ARGUMENT (JQ100), as a NULL one is. Nothing is registered.
BEGIN;
SELECT plan(3);

SELECT jobq_test.reset();
CREATE TEMP TABLE before AS SELECT * FROM jobq_test.counts();

SET LOCAL ROLE worker_runtime;
SELECT throws_ok($$ SELECT jobq.register_worker('pgtap-w1', 'node-a', 1, ARRAY['mail', ''], 1) $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: queues must not hold an empty name', 'an empty queue name is refused');
SELECT throws_ok($$ SELECT jobq.register_worker('pgtap-w1', 'node-a', 1, ARRAY['  '], 1) $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: queues must not hold an empty name', 'a queue name of spaces only is refused');
RESET ROLE;

SELECT results_eq($$ SELECT * FROM jobq_test.counts() $$, $$ SELECT * FROM before $$, 'no worker was registered');

SELECT * FROM finish();
ROLLBACK;
