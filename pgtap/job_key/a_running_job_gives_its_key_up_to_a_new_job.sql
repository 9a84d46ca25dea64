-- replace / preserve_run_at against a RUNNING job with the key: the running job gives its key up
-- (runs on keyless) and a new job with the key is queued.
BEGIN;
SELECT plan(10);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('report');

CREATE TEMP TABLE old AS SELECT jobq.enqueue('report', '{"v": 1}', job_key => 'pgtap:report:1', queue => 'r') AS id;
CREATE TEMP TABLE claimed AS SELECT * FROM jobq.claim_job('w1', ARRAY['r']);
CREATE TEMP TABLE new AS SELECT jobq.enqueue('report', '{"v": 2}', job_key => 'pgtap:report:1', queue => 'r') AS id;

SELECT isnt((SELECT id FROM new), (SELECT id FROM old), 'replace on a running keyed job returns a new job');
SELECT results_eq(
    $$ SELECT job_key, state, payload, lease_token FROM jobq.jobs WHERE id = (SELECT id FROM old) $$,
    $$ SELECT NULL::text, 'running'::text, '{"v": 1}'::jsonb, lease_token FROM claimed $$,
    'the running job gives its key up and runs on under its lease with its payload');
SELECT results_eq(
    $$ SELECT job_key, state, attempt, payload FROM jobq.jobs WHERE id = (SELECT id FROM new) $$,
    $$ VALUES ('pgtap:report:1'::text, 'queued'::text, 0, '{"v": 2}'::jsonb) $$,
    'the new job holds the key and is queued');
SELECT lives_ok(
    $$ SELECT jobq.complete_job((SELECT id FROM claimed), (SELECT lease_token FROM claimed)) $$,
    'the job that gave its key up can still complete under its lease');

-- preserve_run_at behaves the same against a running job.
CREATE TEMP TABLE old2 AS SELECT jobq.enqueue('report', '{"v": 1}', job_key => 'pgtap:report:2', queue => 'r2') AS id;
CREATE TEMP TABLE claimed2 AS SELECT * FROM jobq.claim_job('w1', ARRAY['r2']);
CREATE TEMP TABLE new2 AS
SELECT jobq.enqueue('report', '{"v": 2}', run_at => now() + interval '1 minute', job_key => 'pgtap:report:2', queue => 'r2',
                    job_key_mode => 'preserve_run_at') AS id;

SELECT isnt((SELECT id FROM new2), (SELECT id FROM old2), 'preserve_run_at on a running keyed job returns a new job');
SELECT is((SELECT job_key FROM jobq.jobs WHERE id = (SELECT id FROM old2)), NULL,
          'under preserve_run_at too, the running job gives its key up');
SELECT results_eq(
    $$ SELECT job_key, state, run_at FROM jobq.jobs WHERE id = (SELECT id FROM new2) $$,
    $$ VALUES ('pgtap:report:2'::text, 'queued'::text, now() + interval '1 minute') $$,
    'the new job holds the key with the run_at it was given');
SELECT is((SELECT count(*) FROM jobq.jobs WHERE job_key IN ('pgtap:report:1', 'pgtap:report:2')), 2::bigint,
          'each key is held by exactly one live job');

-- A second enqueue with the key now replaces the new (waiting) job, not the running one.
CREATE TEMP TABLE third AS SELECT jobq.enqueue('report', '{"v": 3}', job_key => 'pgtap:report:2', queue => 'r2') AS id;
SELECT is((SELECT id FROM third), (SELECT id FROM new2), 'the next enqueue with the key updates the waiting job that holds it');
SELECT is((SELECT payload FROM jobq.jobs WHERE id = (SELECT id FROM old2)), '{"v": 1}'::jsonb,
          'the running job that gave its key up is not touched again');

SELECT * FROM finish();
ROLLBACK;
