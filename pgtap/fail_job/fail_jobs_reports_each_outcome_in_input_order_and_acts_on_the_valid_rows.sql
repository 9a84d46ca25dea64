BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

SELECT lives_ok($$ SELECT jobq.enqueue('t', queue => 'q') FROM generate_series(1, 3) $$, 'setup: three jobs');
CREATE TEMP TABLE claimed AS SELECT row_number() OVER (ORDER BY id) AS n, * FROM jobq.claim_job('w', ARRAY['q'], 3);

CREATE TEMP TABLE outcome AS
SELECT row_number() OVER () AS pos, f.*
FROM jobq.fail_jobs(
    ARRAY(SELECT id FROM claimed ORDER BY n),
    ARRAY[(SELECT lease_token FROM claimed WHERE n = 1), gen_random_uuid(), (SELECT lease_token FROM claimed WHERE n = 3)],
    ARRAY['e1', 'e2', 'e3'],
    ARRAY['C1', 'C2', 'C3'],
    ARRAY[true, true, false],
    ARRAY['1 minute', NULL, NULL]::interval[]) AS f;

SELECT results_eq(
    $$ SELECT pos, job_id, outcome, run_at FROM outcome ORDER BY pos $$,
    $$ VALUES (1::bigint, (SELECT id FROM claimed WHERE n = 1), 'retry_pending'::text, now() + interval '1 minute'),
              (2, (SELECT id FROM claimed WHERE n = 2), 'lease_lost', NULL::timestamptz),
              (3, (SELECT id FROM claimed WHERE n = 3), 'dead', NULL) $$,
    'fail_jobs reports retry_pending (with run_at), lease_lost or dead per input row, in input order');
SELECT results_eq(
    $$ SELECT state, last_error, error_code FROM jobq.jobs WHERE id = (SELECT id FROM claimed WHERE n = 1) $$,
    $$ VALUES ('retry_pending'::text, 'e1'::text, 'C1'::text) $$,
    'the valid retryable row is retried with its own error');
SELECT results_eq(
    $$ SELECT state, last_error, lease_token FROM jobq.jobs WHERE id = (SELECT id FROM claimed WHERE n = 2) $$,
    $$ SELECT 'running'::text, NULL::text, lease_token FROM claimed WHERE n = 2 $$,
    'the row with a wrong token is left running, untouched');
SELECT results_eq(
    $$ SELECT state, reason, last_error, error_code FROM jobq.job_history WHERE id = (SELECT id FROM claimed WHERE n = 3) $$,
    $$ VALUES ('dead'::text, 'not_retryable'::text, 'e3'::text, 'C3'::text) $$,
    'the valid non-retryable row is buried with its own error');
SELECT is_empty($$ SELECT * FROM jobq.fail_jobs(ARRAY[]::bigint[], ARRAY[]::uuid[], ARRAY[]::text[]) $$,
                'fail_jobs of an empty batch returns nothing');

SELECT * FROM finish();
ROLLBACK;
