BEGIN;
SELECT plan(4);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

SELECT lives_ok($$ SELECT jobq.enqueue('t', queue => 'q') FROM generate_series(1, 2) $$, 'setup: two jobs');
CREATE TEMP TABLE claimed AS SELECT row_number() OVER (ORDER BY id) AS n, * FROM jobq.claim_job('w', ARRAY['q'], 2);

-- Job 1's pair three times (a runner that retried a batch whose reply it lost, merged with the
-- retry), job 2 once with a wrong token and once with its own.
CREATE TEMP TABLE outcome AS
SELECT row_number() OVER () AS pos, c.*
FROM jobq.complete_jobs(
    ARRAY[(SELECT id FROM claimed WHERE n = 1), (SELECT id FROM claimed WHERE n = 2),
          (SELECT id FROM claimed WHERE n = 1), (SELECT id FROM claimed WHERE n = 2),
          (SELECT id FROM claimed WHERE n = 1)],
    ARRAY[(SELECT lease_token FROM claimed WHERE n = 1), gen_random_uuid(),
          (SELECT lease_token FROM claimed WHERE n = 1), (SELECT lease_token FROM claimed WHERE n = 2),
          (SELECT lease_token FROM claimed WHERE n = 1)]) AS c;

SELECT results_eq(
    $$ SELECT pos, job_id, outcome FROM outcome ORDER BY pos $$,
    $$ VALUES (1::bigint, (SELECT id FROM claimed WHERE n = 1), 'succeeded'::text),
              (2, (SELECT id FROM claimed WHERE n = 2), 'lease_lost'),
              (3, (SELECT id FROM claimed WHERE n = 1), 'succeeded'),
              (4, (SELECT id FROM claimed WHERE n = 2), 'succeeded'),
              (5, (SELECT id FROM claimed WHERE n = 1), 'succeeded') $$,
    'a pair repeated in one call is succeeded at every position; a wrong token beside the right one is lease_lost');
SELECT results_eq(
    $$ SELECT id, state, lease_token FROM jobq.job_history WHERE id IN (SELECT id FROM claimed) ORDER BY id $$,
    $$ SELECT id, 'succeeded'::text, lease_token FROM claimed ORDER BY id $$,
    'each job moves to history once, under its own token');
SELECT is(
    (SELECT count(*) FROM jobq.jobs WHERE id IN (SELECT id FROM claimed)), 0::bigint,
    'neither job is left in the live table');

SELECT * FROM finish();
ROLLBACK;
