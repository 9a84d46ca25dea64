BEGIN;
SELECT plan(4);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

CREATE TEMP TABLE dead AS SELECT jobq.enqueue('t', queue => 'q', job_key => 'pgtap:nightly') AS id;
CREATE TEMP TABLE c AS SELECT * FROM jobq.claim_job('w', ARRAY['q']);
SELECT is(jobq.fail_job((SELECT id FROM c), (SELECT lease_token FROM c), 'x', retryable => false), 'dead', 'setup: the keyed job is dead');
CREATE TEMP TABLE live AS SELECT jobq.enqueue('t', queue => 'q', job_key => 'pgtap:nightly') AS id;

SELECT throws_ok(format('SELECT jobq.retry_job(%s)', (SELECT id FROM dead)),
    'JQ203', format('JOB.STATE_CONFLICT: job %s cannot be queued again: a live job holds its job_key', (SELECT id FROM dead)),
    'retry_job refuses a dead job whose key a live job holds, with JQ203');
SELECT is((SELECT state FROM jobq.job_history WHERE id = (SELECT id FROM dead)), 'dead', 'the dead job stays dead in history');
SELECT is((SELECT count(*) FROM jobq.jobs WHERE job_key = 'pgtap:nightly'), 1::bigint, 'only the live job holds the key');

SELECT * FROM finish();
ROLLBACK;
