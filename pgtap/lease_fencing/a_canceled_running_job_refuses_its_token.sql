BEGIN;
SELECT plan(7);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

CREATE TEMP TABLE job AS SELECT jobq.enqueue('t', queue => 'q') AS id;
CREATE TEMP TABLE c AS SELECT * FROM jobq.claim_job('w', ARRAY['q']);

SELECT is(jobq.cancel_job((SELECT id FROM job)), 'canceled', 'setup: the running job is canceled');

SELECT throws_ok(format('SELECT jobq.heartbeat(%L, %s, %L)', 'w', (SELECT id FROM job), (SELECT lease_token FROM c)),
    'JQ201', NULL, 'heartbeat of a canceled job raises JQ201, so the runner stops the handler');
SELECT throws_ok(format('SELECT jobq.complete_job(%s, %L)', (SELECT id FROM job), (SELECT lease_token FROM c)),
    'JQ201', NULL, 'complete_job of a canceled job raises JQ201');
SELECT throws_ok(format('SELECT jobq.fail_job(%s, %L, %L)', (SELECT id FROM job), (SELECT lease_token FROM c), 'late'),
    'JQ201', NULL, 'fail_job of a canceled job raises JQ201');
SELECT throws_ok(format('SELECT jobq.snooze(%s, %L, %L)', (SELECT id FROM job), (SELECT lease_token FROM c), '0'),
    'JQ201', NULL, 'snooze of a canceled job raises JQ201');
SELECT results_eq(
    $$ SELECT state, reason FROM jobq.job_history WHERE id = (SELECT id FROM job) $$,
    $$ VALUES ('canceled'::text, 'canceled'::text) $$,
    'the canceled job stays canceled in history');
SELECT is_empty($$ SELECT 1 FROM jobq.jobs WHERE id = (SELECT id FROM job) $$, 'and nothing brought it back to jobq.jobs');

SELECT * FROM finish();
ROLLBACK;
