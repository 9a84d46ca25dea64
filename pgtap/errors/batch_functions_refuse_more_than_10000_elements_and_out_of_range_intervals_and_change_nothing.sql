-- complete_jobs, fail_jobs, heartbeat_jobs and snooze_jobs take at most 10000 jobs (JQ107); a
-- heartbeat lease is at most 1 day, a snooze delay and a retry_in at most 365 days (JQ107); an
-- error code at most 200 characters (JQ106). A refused call changes nothing.
BEGIN;
SELECT plan(8);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');
CREATE TEMP TABLE before AS SELECT * FROM jobq_test.counts();
SELECT jobq.enqueue('t', queue => 'q');
CREATE TEMP TABLE c AS SELECT id, lease_token FROM jobq.claim_job('w', ARRAY['q']);
CREATE TEMP TABLE big AS SELECT array_agg(g::bigint) AS ids, array_agg(gen_random_uuid()) AS tokens FROM generate_series(1, 10001) AS g;
GRANT SELECT ON c, big TO worker_runtime;
CREATE TEMP TABLE running_before AS SELECT to_jsonb(j) AS job FROM jobq.jobs j;

SET LOCAL ROLE worker_runtime;
SELECT throws_ok($$ SELECT * FROM jobq.complete_jobs((SELECT ids FROM big), (SELECT tokens FROM big)) $$,
    'JQ107', 'JOB.OUT_OF_RANGE: job_ids has 10001 elements; the limit is 10000', 'complete_jobs refuses 10001 jobs');
SELECT throws_ok($$ SELECT * FROM jobq.heartbeat_jobs('w', (SELECT ids FROM big), (SELECT tokens FROM big)) $$,
    'JQ107', 'JOB.OUT_OF_RANGE: job_ids has 10001 elements; the limit is 10000', 'heartbeat_jobs refuses 10001 jobs');
SELECT throws_ok($$ SELECT * FROM jobq.snooze_jobs((SELECT ids FROM big), (SELECT tokens FROM big)) $$,
    'JQ107', 'JOB.OUT_OF_RANGE: job_ids has 10001 elements; the limit is 10000', 'snooze_jobs refuses 10001 jobs');
SELECT throws_ok($$ SELECT jobq.heartbeat('w', (SELECT id FROM c), (SELECT lease_token FROM c), '2 days') $$,
    'JQ107', 'JOB.OUT_OF_RANGE: lease 2 days is above the limit of 1 day', 'heartbeat refuses a lease of 2 days');
SELECT throws_ok($$ SELECT jobq.snooze((SELECT id FROM c), (SELECT lease_token FROM c), '1000000 years') $$,
    'JQ107', 'JOB.OUT_OF_RANGE: delay 1000000 years is above the limit of 365 days', 'snooze refuses a delay of 1000000 years');
SELECT throws_ok($$ SELECT jobq.fail_job((SELECT id FROM c), (SELECT lease_token FROM c), 'boom', retry_in => '366 days') $$,
    'JQ107', 'JOB.OUT_OF_RANGE: retry_in[1] 366 days is above the limit of 365 days', 'fail_job refuses a retry_in of 366 days');
SELECT throws_ok($$ SELECT jobq.fail_job((SELECT id FROM c), (SELECT lease_token FROM c), 'boom', error_code => repeat('E', 201)) $$,
    'JQ106', 'JOB.VALUE_TOO_LONG: error_codes[1] is 201 characters long; the limit is 200', 'fail_job refuses a 201-character error code');
RESET ROLE;
SELECT set_eq($$ SELECT to_jsonb(j) FROM jobq.jobs j $$, $$ SELECT job FROM running_before $$,
              'the running job is as it was: the refused calls changed nothing');

SELECT * FROM finish();
ROLLBACK;
