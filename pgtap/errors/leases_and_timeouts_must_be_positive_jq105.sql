BEGIN;
SELECT plan(8);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

CREATE TEMP TABLE before AS SELECT count(*) AS n FROM jobq.jobs;

SELECT throws_ok($$ SELECT * FROM jobq.claim_job('w', ARRAY['q'], 1, '0') $$,
    'JQ105', 'JOB.LEASE_INVALID: lease 00:00:00 is not positive', 'claim_job refuses a zero lease');
SELECT throws_ok($$ SELECT * FROM jobq.claim_job('w', ARRAY['q'], 1, '-30 seconds') $$,
    'JQ105', 'JOB.LEASE_INVALID: lease -00:00:30 is not positive', 'claim_job refuses a negative lease');
SELECT throws_ok($$ SELECT * FROM jobq.claim_job('w', ARRAY['q'], 1, NULL) $$,
    'JQ105', 'JOB.LEASE_INVALID: lease NULL is not positive', 'claim_job refuses a NULL lease');
SELECT throws_ok($$ SELECT * FROM jobq.heartbeat_jobs('w', ARRAY[]::bigint[], ARRAY[]::uuid[], '0') $$,
    'JQ105', 'JOB.LEASE_INVALID: lease 00:00:00 is not positive', 'heartbeat_jobs refuses a zero lease');
SELECT throws_ok($$ SELECT jobq.heartbeat('w', 1, gen_random_uuid(), '-1 second') $$,
    'JQ105', 'JOB.LEASE_INVALID: lease -00:00:01 is not positive', 'heartbeat refuses a negative lease before looking at the job');
SELECT throws_ok($$ SELECT jobq.enqueue('t', timeout => '-1s') $$,
    'JQ105', 'JOB.LEASE_INVALID: timeout -00:00:01 is not positive', 'enqueue refuses a negative timeout');
SELECT throws_ok($$ SELECT jobq.enqueue('t', timeout => '0') $$,
    'JQ105', 'JOB.LEASE_INVALID: timeout 00:00:00 is not positive', 'enqueue refuses a zero timeout');
SELECT is((SELECT count(*) FROM jobq.jobs), (SELECT n FROM before), 'nothing was written');

SELECT * FROM finish();
ROLLBACK;
