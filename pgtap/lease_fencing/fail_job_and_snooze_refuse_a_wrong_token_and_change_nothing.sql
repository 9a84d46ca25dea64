BEGIN;
SELECT plan(5);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

CREATE TEMP TABLE job AS SELECT jobq.enqueue('t', queue => 'q') AS id;
CREATE TEMP TABLE claimed AS SELECT * FROM jobq.claim_job('w1', ARRAY['q']);
CREATE TEMP TABLE snapshot AS SELECT * FROM jobq.jobs WHERE id = (SELECT id FROM job);

SELECT throws_ok(
    format('SELECT jobq.fail_job(%s, %L, %L)', (SELECT id FROM job), gen_random_uuid(), 'boom'),
    'JQ201', format('JOB.LEASE_LOST: job %s is not running under this lease token', (SELECT id FROM job)),
    'fail_job refuses a token that is not the claim''s with JQ201 JOB.LEASE_LOST');
SELECT throws_ok(
    format('SELECT jobq.fail_job(%s, %L, %L, retryable => false)', (SELECT id FROM job), gen_random_uuid(), 'boom'),
    'JQ201', format('JOB.LEASE_LOST: job %s is not running under this lease token', (SELECT id FROM job)),
    'fail_job refuses a wrong token for a non-retryable failure too');
SELECT throws_ok(
    format('SELECT jobq.snooze(%s, %L, %L)', (SELECT id FROM job), gen_random_uuid(), '1 minute'),
    'JQ201', format('JOB.LEASE_LOST: job %s is not running under this lease token', (SELECT id FROM job)),
    'snooze refuses a token that is not the claim''s with JQ201 JOB.LEASE_LOST');
SELECT is_empty($$ SELECT * FROM jobq.jobs WHERE id = (SELECT id FROM job) EXCEPT SELECT * FROM snapshot $$,
                'the refused calls leave the running job exactly as it was');
SELECT is_empty($$ SELECT 1 FROM jobq.job_history WHERE id = (SELECT id FROM job) $$,
                'the refused calls write no history row');

SELECT * FROM finish();
ROLLBACK;
