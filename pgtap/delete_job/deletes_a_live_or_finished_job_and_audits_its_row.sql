BEGIN;
SELECT plan(8);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

CREATE TEMP TABLE jobs AS
SELECT jobq.enqueue('t', '{"x": 1}', queue => 'q') AS queued,
       jobq.enqueue('t', queue => 'r') AS running,
       jobq.enqueue('t', queue => 's') AS done;
CREATE TEMP TABLE c AS SELECT * FROM jobq.claim_job('w', ARRAY['r', 's'], 2);
SELECT lives_ok(format('SELECT jobq.complete_job(%s, %L)', (SELECT done FROM jobs), (SELECT lease_token FROM c WHERE queue = 's')),
                'setup: a queued, a running and a succeeded job');

SELECT is(jobq.delete_job((SELECT queued FROM jobs)), 'queued', 'delete_job of a queued job returns the state it had');
SELECT is(jobq.delete_job((SELECT running FROM jobs)), 'running', 'delete_job of a running job returns running');
SELECT is(jobq.delete_job((SELECT done FROM jobs)), 'succeeded', 'delete_job of a finished job returns succeeded');
SELECT is_empty(
    $$ SELECT id FROM jobq.jobs WHERE id IN (SELECT unnest(ARRAY[queued, running, done]) FROM jobs)
       UNION ALL SELECT id FROM jobq.job_history WHERE id IN (SELECT unnest(ARRAY[queued, running, done]) FROM jobs) $$,
    'deleted jobs are in neither jobq.jobs nor jobq.job_history');
SELECT results_eq(
    $$ SELECT detail->>'previous_state', detail->'job'->>'task', detail->'job'->'payload' FROM jobq.audit_log
       WHERE action = 'delete_job' AND job_id = (SELECT queued FROM jobs) $$,
    $$ VALUES ('queued'::text, 't'::text, '{"x": 1}'::jsonb) $$,
    'the audit row keeps the deleted job''s row');
SELECT throws_ok(format('SELECT jobq.complete_job(%s, %L)', (SELECT running FROM jobs), (SELECT lease_token FROM c WHERE queue = 'r')),
    'JQ201', NULL, 'the lease of a deleted running job stops working');
SELECT throws_ok(format('SELECT jobq.delete_job(%s)', (SELECT done FROM jobs)),
    'JQ202', format('JOB.NOT_FOUND: job %s', (SELECT done FROM jobs)),
    'delete_job of an id that no longer exists raises JQ202');

SELECT * FROM finish();
ROLLBACK;
