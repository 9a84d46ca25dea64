BEGIN;
SELECT plan(5);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

CREATE TEMP TABLE job AS SELECT jobq.enqueue('t', queue => 'q') AS id;
CREATE TEMP TABLE claimed AS SELECT * FROM jobq.claim_job('w1', ARRAY['q']);
CREATE TEMP TABLE snapshot AS SELECT * FROM jobq.jobs WHERE id = (SELECT id FROM job);

SELECT throws_ok(
    format('SELECT jobq.complete_job(%s, %L)', (SELECT id FROM job), gen_random_uuid()),
    'JQ201', format('JOB.LEASE_LOST: job %s is not running under this lease token', (SELECT id FROM job)),
    'complete_job refuses a token that is not the claim''s with JQ201 JOB.LEASE_LOST');
SELECT throws_ok(
    format('SELECT jobq.complete_job(%s, NULL)', (SELECT id FROM job)),
    'JQ201', format('JOB.LEASE_LOST: job %s is not running under this lease token', (SELECT id FROM job)),
    'complete_job refuses a NULL token');
SELECT is_empty($$ SELECT * FROM jobq.jobs WHERE id = (SELECT id FROM job) EXCEPT SELECT * FROM snapshot $$,
                'a refused complete_job leaves the running job exactly as it was');
SELECT is_empty($$ SELECT 1 FROM jobq.job_history WHERE id = (SELECT id FROM job) $$,
                'a refused complete_job writes no history row');
SELECT throws_ok(
    format('SELECT jobq.complete_job(%s, %L)', (SELECT id FROM job) + 1000000, (SELECT lease_token FROM claimed)),
    'JQ201', format('JOB.LEASE_LOST: job %s is not running under this lease token', (SELECT id FROM job) + 1000000),
    'complete_job refuses a valid token paired with another job id');

SELECT * FROM finish();
ROLLBACK;
