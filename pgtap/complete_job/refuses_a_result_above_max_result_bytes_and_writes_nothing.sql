-- A result above the setting max_result_bytes (65536 bytes of JSON text as installed) is refused and
-- nothing is written: complete_job raises JQ710 JOB.RESULT_TOO_LARGE (a 50 MB result too), the job
-- still runs under its lease and completes afterwards with a smaller one; complete_jobs reports
-- result_too_large for that lease alone and completes the others of the call. The setting moves
-- the bound.
BEGIN;
SELECT plan(9);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

CREATE TEMP TABLE job AS SELECT n, jobq.enqueue('t', jsonb_build_object('n', n), queue => 'q') AS id FROM generate_series(1, 3) AS n;
CREATE TEMP TABLE c AS SELECT c.*, j.n FROM jobq.claim_job('w', ARRAY['q'], 3) c JOIN job j ON j.id = c.id;
CREATE TEMP TABLE snapshot AS SELECT * FROM jobq.jobs;
CREATE TEMP TABLE before AS SELECT * FROM jobq_test.counts();

SELECT throws_ok(
    format('SELECT jobq.complete_job(%s, %L, to_jsonb(repeat(''x'', 50 * 1024 * 1024)))', id, lease_token),
    'JQ710', format('JOB.RESULT_TOO_LARGE: the result of job %s is 52428802 bytes as JSON text; the limit is 65536 (setting max_result_bytes)', id),
    'complete_job refuses a result of 50 MB with JQ710')
FROM c WHERE n = 1;
SELECT throws_ok(
    format('SELECT jobq.complete_job(%s, %L, to_jsonb(repeat(''x'', 65535)))', id, lease_token),
    'JQ710', NULL, 'complete_job refuses a result one byte above 65536 bytes of JSON text (a string of 65535 characters and its quotes)')
FROM c WHERE n = 1;
SELECT is_empty($$ SELECT * FROM jobq.jobs EXCEPT SELECT * FROM snapshot $$,
                'the refusals leave every job exactly as it was: still running under its lease');
SELECT is_empty($$ SELECT * FROM jobq_test.counts() EXCEPT SELECT * FROM before $$, 'the refusals write nothing');

SELECT results_eq(
    format($$ SELECT job_id, outcome FROM jobq.complete_jobs(ARRAY[%s, %s, %s]::bigint[], ARRAY[%L, %L, %L]::uuid[],
                     results => ARRAY['{"ok": 1}', to_jsonb(repeat('x', 70000)), NULL]::jsonb[]) $$,
           (SELECT id FROM c WHERE n = 1), (SELECT id FROM c WHERE n = 2), (SELECT id FROM c WHERE n = 3),
           (SELECT lease_token FROM c WHERE n = 1), (SELECT lease_token FROM c WHERE n = 2), (SELECT lease_token FROM c WHERE n = 3)),
    format($$ VALUES (%s::bigint, 'succeeded'), (%s, 'result_too_large'), (%s, 'succeeded') $$,
           (SELECT id FROM c WHERE n = 1), (SELECT id FROM c WHERE n = 2), (SELECT id FROM c WHERE n = 3)),
    'complete_jobs reports result_too_large for the lease whose result is too large and completes the others');
SELECT results_eq(
    $$ SELECT state, locked_by FROM jobq.jobs WHERE id = (SELECT id FROM c WHERE n = 2) $$,
    $$ VALUES ('running', 'w') $$,
    'the job whose result was too large still runs under its lease');
SELECT lives_ok(format('SELECT jobq.complete_job(%s, %L, ''"small"'')', id, lease_token),
                'and completes afterwards with a result within the bound')
FROM c WHERE n = 2;

SELECT lives_ok($$ SELECT jobq.set_setting('max_result_bytes', '100000') $$, 'setup: max_result_bytes 100000');
SELECT is(jobq_test.error_of($$ SELECT jobq.set_setting('max_result_bytes', '268435457') $$) LIKE 'JQ107 %', true,
          'max_result_bytes above 268435456 is refused with JQ107');

SELECT * FROM finish();
ROLLBACK;
