BEGIN;
SELECT plan(6);

-- Known state, whatever database this runs in: no jobs, settings at their migration defaults.
-- Everything is rolled back at the end.
DELETE FROM jobq.jobs;
DELETE FROM jobq.job_history;
UPDATE jobq.settings s SET value = d.value
FROM (VALUES ('history_retention', '7 days'), ('backoff_base', '2 seconds'), ('backoff_max', '1 hour'),
             ('default_max_attempts', '25'), ('default_lease', '30 seconds')) AS d(name, value)
WHERE s.name = d.name;
-- The tasks this file enqueues: every enqueue needs a declared task (jobq.define_task is
-- idempotent and puts back a task whose declaration differs).
SELECT FROM jobq.define_task('t');

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
