BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

CREATE TEMP TABLE audit_before AS SELECT coalesce(max(id), 0) AS id FROM jobq.audit_log;
CREATE TEMP TABLE jobs AS SELECT jobq.enqueue('t', queue => 'q') AS running, jobq.enqueue('t', queue => 'q2') AS done;
CREATE TEMP TABLE c AS SELECT * FROM jobq.claim_job('w', ARRAY['q', 'q2'], 2);
SELECT lives_ok(format('SELECT jobq.complete_job(%s, %L)', (SELECT done FROM jobs), (SELECT lease_token FROM c WHERE queue = 'q2')),
                'setup: one job succeeded, the other runs');
CREATE TEMP TABLE snapshot AS SELECT * FROM jobq.jobs;

SELECT throws_ok(format('SELECT jobq.retry_job(%s)', (SELECT running FROM jobs)),
    'JQ203', format('JOB.STATE_CONFLICT: job %s is running; cancel it first or wait for it to end', (SELECT running FROM jobs)),
    'retry_job refuses a running job with JQ203');
SELECT throws_ok(format('SELECT jobq.retry_job(%s)', (SELECT done FROM jobs)),
    'JQ203', format('JOB.STATE_CONFLICT: job %s succeeded; enqueue a new job to run it again', (SELECT done FROM jobs)),
    'retry_job refuses a succeeded job with JQ203');
SELECT throws_ok(format('SELECT jobq.retry_job(%s)', (SELECT done FROM jobs) + 1000000),
    'JQ202', format('JOB.NOT_FOUND: job %s', (SELECT done FROM jobs) + 1000000),
    'retry_job refuses an unknown id with JQ202');
SELECT is_empty($$ SELECT * FROM jobq.jobs EXCEPT SELECT * FROM snapshot $$, 'the refused retries changed no live job');
SELECT is((SELECT count(*) FROM jobq.audit_log WHERE action = 'retry_job' AND id > (SELECT id FROM audit_before)), 0::bigint, 'the refused retries wrote no audit row');

SELECT * FROM finish();
ROLLBACK;
