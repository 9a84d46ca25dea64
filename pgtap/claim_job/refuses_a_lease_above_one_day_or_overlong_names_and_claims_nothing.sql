-- claim_job: lease at most 1 day (JQ107), worker_id and each queue at most 200 characters (JQ106),
-- at most 1000 queues (JQ107). A refused claim claims nothing.
BEGIN;
SELECT plan(5);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');
CREATE TEMP TABLE before AS SELECT * FROM jobq_test.counts();
SELECT jobq.enqueue('t', queue => 'q');

SET LOCAL ROLE worker_runtime;
SELECT throws_ok($$ SELECT * FROM jobq.claim_job('w', ARRAY['q'], 1, '1 day 00:00:01') $$,
    'JQ107', 'JOB.OUT_OF_RANGE: lease 1 day 00:00:01 is above the limit of 1 day', 'a lease above 1 day is refused');
SELECT throws_ok($$ SELECT * FROM jobq.claim_job(repeat('w', 201), ARRAY['q']) $$,
    'JQ106', 'JOB.VALUE_TOO_LONG: worker_id is 201 characters long; the limit is 200', 'a 201-character worker_id is refused');
SELECT throws_ok($$ SELECT * FROM jobq.claim_job('w', ARRAY['q', repeat('q', 201)]) $$,
    'JQ106', 'JOB.VALUE_TOO_LONG: queues[2] is 201 characters long; the limit is 200', 'a 201-character queue is refused, by position');
SELECT throws_ok($$ SELECT * FROM jobq.claim_job('w', ARRAY(SELECT 'q' || g FROM generate_series(1, 1001) AS g)) $$,
    'JQ107', 'JOB.OUT_OF_RANGE: queues has 1001 elements; the limit is 1000', 'more than 1000 queues are refused');
RESET ROLE;
SELECT is((SELECT count(*) FROM jobq.jobs WHERE state = 'running'), 0::bigint, 'nothing was claimed');

SELECT * FROM finish();
ROLLBACK;
