-- heartbeat and heartbeat_jobs take the worker id that holds the leases, under the rule of
-- claim_job's worker_id: NULL, empty or spaces only is JOB.INVALID_ARGUMENT (JQ100), above 200
-- characters JOB.VALUE_TOO_LONG (JQ106), rather than an empty answer that reads as "every lease
-- lost". The lease is not renewed.
BEGIN;
SELECT plan(7);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-t');
SELECT FROM jobq.enqueue('pgtap-t', '{}', queue => 'pgtap_q');
CREATE TEMP TABLE held AS SELECT * FROM jobq.claim_job('pgtap-w1', ARRAY['pgtap_q'], 1, '10 seconds');
CREATE TEMP TABLE before_jobs AS SELECT id, lease_expires_at, heartbeat_at, updated_at FROM jobq.jobs;
GRANT SELECT ON held TO worker_runtime;

SET LOCAL ROLE worker_runtime;
SELECT throws_ok(format('SELECT * FROM jobq.heartbeat_jobs(NULL, ARRAY[%s], ARRAY[%L]::uuid[], %L)',
                        (SELECT id FROM held), (SELECT lease_token FROM held), '1 minute'),
    'JQ100', 'JOB.INVALID_ARGUMENT: worker_id is NULL or empty', 'heartbeat_jobs refuses a NULL worker id');
SELECT throws_ok(format('SELECT * FROM jobq.heartbeat_jobs(%L, ARRAY[%s], ARRAY[%L]::uuid[], %L)', '',
                        (SELECT id FROM held), (SELECT lease_token FROM held), '1 minute'),
    'JQ100', 'JOB.INVALID_ARGUMENT: worker_id is NULL or empty', 'heartbeat_jobs refuses an empty worker id');
SELECT throws_ok(format('SELECT * FROM jobq.heartbeat_jobs(%L, ARRAY[%s], ARRAY[%L]::uuid[], %L)', '  ',
                        (SELECT id FROM held), (SELECT lease_token FROM held), '1 minute'),
    'JQ100', 'JOB.INVALID_ARGUMENT: worker_id is NULL or empty', 'heartbeat_jobs refuses a worker id of spaces only');
SELECT throws_ok(format('SELECT * FROM jobq.heartbeat_jobs(%L, ARRAY[%s], ARRAY[%L]::uuid[], %L)', repeat('w', 201),
                        (SELECT id FROM held), (SELECT lease_token FROM held), '1 minute'),
    'JQ106', 'JOB.VALUE_TOO_LONG: worker_id is 201 characters long; the limit is 200', 'heartbeat_jobs refuses a 201-character worker id');
SELECT throws_ok(format('SELECT jobq.heartbeat(NULL, %s, %L, %L)', (SELECT id FROM held), (SELECT lease_token FROM held), '1 minute'),
    'JQ100', 'JOB.INVALID_ARGUMENT: worker_id is NULL or empty',
    'heartbeat refuses a NULL worker id as an invalid argument, not as a lost lease');
SELECT throws_ok(format('SELECT jobq.heartbeat(%L, %s, %L, %L)', ' ', (SELECT id FROM held), (SELECT lease_token FROM held), '1 minute'),
    'JQ100', 'JOB.INVALID_ARGUMENT: worker_id is NULL or empty', 'heartbeat refuses a blank worker id');
RESET ROLE;

SELECT results_eq($$ SELECT id, lease_expires_at, heartbeat_at, updated_at FROM jobq.jobs $$, $$ SELECT * FROM before_jobs $$,
                  'the lease was not renewed');

SELECT * FROM finish();
ROLLBACK;
