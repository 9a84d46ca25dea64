BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

SELECT lives_ok($$ SELECT jobq.enqueue('t', queue => 'q') FROM generate_series(1, 2) $$, 'setup: two jobs');
CREATE TEMP TABLE c AS SELECT row_number() OVER (ORDER BY id) AS n, * FROM jobq.claim_job('w', ARRAY['q'], 2);

SELECT is(jobq.snooze((SELECT id FROM c WHERE n = 1), (SELECT lease_token FROM c WHERE n = 1), '0'), now(),
          'snooze with delay 0 makes the job due now');
SELECT is((SELECT id FROM jobq.claim_job('w', ARRAY['q'])), (SELECT id FROM c WHERE n = 1),
          'a job snoozed for 0 can be claimed at once');

SELECT throws_ok(
    format('SELECT jobq.snooze(%s, %L, %L)', (SELECT id FROM c WHERE n = 2), (SELECT lease_token FROM c WHERE n = 2), '-1 second'),
    'JQ105', 'JOB.LEASE_INVALID: delay -00:00:01 must be zero or positive',
    'snooze refuses a negative delay with JQ105');
SELECT throws_ok(
    format('SELECT jobq.snooze(%s, %L, NULL)', (SELECT id FROM c WHERE n = 2), (SELECT lease_token FROM c WHERE n = 2)),
    'JQ105', 'JOB.LEASE_INVALID: delay NULL must be zero or positive',
    'snooze refuses a NULL delay with JQ105');
SELECT results_eq(
    $$ SELECT state, attempt, lease_token FROM jobq.jobs WHERE id = (SELECT id FROM c WHERE n = 2) $$,
    $$ SELECT 'running'::text, 1, lease_token FROM c WHERE n = 2 $$,
    'a refused snooze leaves the job running under its lease');

SELECT * FROM finish();
ROLLBACK;
