BEGIN;
SELECT plan(5);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

SELECT lives_ok($$ SELECT jobq.enqueue('t', queue => 'q') FROM generate_series(1, 3) $$, 'setup: three jobs');
CREATE TEMP TABLE claimed AS SELECT row_number() OVER (ORDER BY id) AS n, * FROM jobq.claim_job('w', ARRAY['q'], 3);
CREATE TEMP TABLE unknown AS SELECT max(id) + 1000000 AS id FROM claimed;

CREATE TEMP TABLE outcome AS
SELECT row_number() OVER () AS pos, c.*
FROM jobq.complete_jobs(
    ARRAY[(SELECT id FROM claimed WHERE n = 1), (SELECT id FROM claimed WHERE n = 2),
          (SELECT id FROM claimed WHERE n = 3), (SELECT id FROM unknown)],
    ARRAY[(SELECT lease_token FROM claimed WHERE n = 1), gen_random_uuid(),
          (SELECT lease_token FROM claimed WHERE n = 3), (SELECT lease_token FROM claimed WHERE n = 2)]) AS c;

SELECT results_eq(
    $$ SELECT pos, job_id, outcome FROM outcome ORDER BY pos $$,
    $$ VALUES (1::bigint, (SELECT id FROM claimed WHERE n = 1), 'succeeded'::text),
              (2, (SELECT id FROM claimed WHERE n = 2), 'lease_lost'),
              (3, (SELECT id FROM claimed WHERE n = 3), 'succeeded'),
              (4, (SELECT id FROM unknown), 'lease_lost') $$,
    'complete_jobs reports succeeded or lease_lost for each input row, in input order');
SELECT set_eq(
    $$ SELECT id FROM jobq.job_history WHERE state = 'succeeded' AND id IN (SELECT id FROM claimed) $$,
    $$ SELECT id FROM claimed WHERE n IN (1, 3) $$,
    'complete_jobs moves the rows with a valid token to history as succeeded');
SELECT results_eq(
    $$ SELECT state, lease_token FROM jobq.jobs WHERE id = (SELECT id FROM claimed WHERE n = 2) $$,
    $$ SELECT 'running'::text, lease_token FROM claimed WHERE n = 2 $$,
    'the row with a wrong token in the same batch stays running under its lease');
SELECT throws_ok(
    $$ SELECT * FROM jobq.complete_jobs(ARRAY[1, 2]::bigint[], ARRAY[gen_random_uuid()]) $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: job_ids and lease_tokens must have the same length',
    'complete_jobs refuses arrays of different lengths');

SELECT * FROM finish();
ROLLBACK;
