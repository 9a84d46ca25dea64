BEGIN;
SELECT plan(9);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

CREATE TEMP TABLE job AS SELECT jobq.enqueue('t', queue => 'q') AS id;
CREATE TEMP TABLE c AS SELECT * FROM jobq.claim_job('w', ARRAY['q']);
CREATE TEMP TABLE snapshot AS SELECT * FROM jobq.jobs;

SELECT throws_ok(format('SELECT * FROM jobq.complete_jobs(ARRAY[%s, 1], ARRAY[%L]::uuid[])', (SELECT id FROM c), (SELECT lease_token FROM c)),
    'JQ100', 'JOB.INVALID_ARGUMENT: job_ids and lease_tokens must have the same length',
    'complete_jobs refuses one id too many');
SELECT throws_ok(format('SELECT * FROM jobq.fail_jobs(ARRAY[%s], ARRAY[%L]::uuid[], ARRAY[''a'', ''b''])', (SELECT id FROM c), (SELECT lease_token FROM c)),
    'JQ100', 'JOB.INVALID_ARGUMENT: job_ids, lease_tokens, errors, error_codes, retryable, retry_in, reasons, outputs, log_refs and exit_codes must have the same length',
    'fail_jobs refuses one error too many');
SELECT throws_ok(format('SELECT * FROM jobq.fail_jobs(ARRAY[%s], ARRAY[%L]::uuid[], NULL, retryable => ARRAY[true, false])', (SELECT id FROM c), (SELECT lease_token FROM c)),
    'JQ100', 'JOB.INVALID_ARGUMENT: job_ids, lease_tokens, errors, error_codes, retryable, retry_in, reasons, outputs, log_refs and exit_codes must have the same length',
    'fail_jobs refuses a retryable array of another length');
SELECT throws_ok(format('SELECT * FROM jobq.heartbeat_jobs(%L, ARRAY[%s], ARRAY[]::uuid[])', 'w', (SELECT id FROM c)),
    'JQ100', 'JOB.INVALID_ARGUMENT: job_ids and lease_tokens must have the same length',
    'heartbeat_jobs refuses a missing token');
SELECT throws_ok(format('SELECT * FROM jobq.fail_jobs(ARRAY[%s], ARRAY[%L]::uuid[], ARRAY[''x''], retry_in => ARRAY[''-1 second'']::interval[])', (SELECT id FROM c), (SELECT lease_token FROM c)),
    'JQ105', 'JOB.LEASE_INVALID: retry_in must not be negative',
    'fail_jobs refuses a negative retry_in as an invalid delay (JQ105)');
SELECT throws_ok($$ SELECT * FROM jobq.rescue_expired(0) $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: batch_size 0 must be at least 1', 'rescue_expired refuses batch_size 0');
SELECT throws_ok($$ SELECT * FROM jobq.rescue_expired(NULL) $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: batch_size NULL must be at least 1', 'rescue_expired refuses a NULL batch_size');
SELECT throws_ok($$ SELECT jobq.prune_history(-5) $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: batch_size -5 must be at least 1', 'prune_history refuses a negative batch_size');
SELECT is_empty($$ SELECT * FROM jobq.jobs EXCEPT SELECT * FROM snapshot $$, 'the refused batches changed nothing: the job still runs under its lease');

SELECT * FROM finish();
ROLLBACK;
