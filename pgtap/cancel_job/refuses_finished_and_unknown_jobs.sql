BEGIN;
SELECT plan(5);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

CREATE TEMP TABLE jobs AS SELECT jobq.enqueue('t', queue => 'q') AS done, jobq.enqueue('t', queue => 'q2') AS canceled;
CREATE TEMP TABLE c AS SELECT * FROM jobq.claim_job('w', ARRAY['q']);
SELECT lives_ok(format('SELECT jobq.complete_job(%s, %L)', (SELECT done FROM jobs), (SELECT lease_token FROM c)), 'setup: one job succeeded');
SELECT is(jobq.cancel_job((SELECT canceled FROM jobs)), 'canceled', 'setup: one job was canceled');

SELECT throws_ok(format('SELECT jobq.cancel_job(%s)', (SELECT done FROM jobs)),
    'JQ203', format('JOB.STATE_CONFLICT: job %s already ended as succeeded', (SELECT done FROM jobs)),
    'cancel_job refuses a succeeded job with JQ203');
SELECT throws_ok(format('SELECT jobq.cancel_job(%s)', (SELECT canceled FROM jobs)),
    'JQ203', format('JOB.STATE_CONFLICT: job %s already ended as canceled', (SELECT canceled FROM jobs)),
    'cancel_job refuses a job canceled before with JQ203');
SELECT throws_ok(format('SELECT jobq.cancel_job(%s)', (SELECT canceled FROM jobs) + 1000000),
    'JQ202', format('JOB.NOT_FOUND: job %s', (SELECT canceled FROM jobs) + 1000000),
    'cancel_job refuses an unknown id with JQ202');

SELECT * FROM finish();
ROLLBACK;
