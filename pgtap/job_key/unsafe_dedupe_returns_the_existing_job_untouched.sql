-- unsafe_dedupe: an existing live job with the key, waiting or running, is returned untouched.
BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('import', 'export');

CREATE TEMP TABLE waiting AS
SELECT jobq.enqueue('import', '{"v": 1}', run_at => now() + interval '1 hour', job_key => 'pgtap:import:1') AS id;
CREATE TEMP TABLE snapshot AS SELECT * FROM jobq.jobs WHERE id = (SELECT id FROM waiting);

CREATE TEMP TABLE again AS
SELECT jobq.enqueue('import', '{"v": 2}', job_key => 'pgtap:import:1', job_key_mode => 'unsafe_dedupe', priority => 9) AS id;

SELECT is((SELECT id FROM again), (SELECT id FROM waiting), 'unsafe_dedupe returns the id of the waiting job with the key');
SELECT is_empty(
    $$ SELECT * FROM jobq.jobs WHERE id = (SELECT id FROM waiting)
       EXCEPT SELECT * FROM snapshot $$,
    'unsafe_dedupe leaves the waiting job exactly as it was');
SELECT is((SELECT count(*) FROM jobq.jobs WHERE task = 'import'), 1::bigint, 'unsafe_dedupe creates no job');

-- The same against a running job.
CREATE TEMP TABLE running AS SELECT jobq.enqueue('export', '{"v": 1}', job_key => 'pgtap:export:1', queue => 'pgtap_exports') AS id;
CREATE TEMP TABLE claimed AS SELECT * FROM jobq.claim_job('w1', ARRAY['pgtap_exports']);
CREATE TEMP TABLE again_running AS
SELECT jobq.enqueue('export', '{"v": 2}', job_key => 'pgtap:export:1', queue => 'pgtap_exports', job_key_mode => 'unsafe_dedupe') AS id;

SELECT is((SELECT id FROM again_running), (SELECT id FROM running), 'unsafe_dedupe returns the id of the running job with the key');
SELECT results_eq(
    $$ SELECT state, job_key, payload, lease_token FROM jobq.jobs WHERE id = (SELECT id FROM running) $$,
    $$ SELECT 'running'::text, 'pgtap:export:1'::text, '{"v": 1}'::jsonb, lease_token FROM claimed $$,
    'unsafe_dedupe leaves the running job, its key, payload and lease untouched');
SELECT is((SELECT count(*) FROM jobq.jobs WHERE task = 'export'), 1::bigint, 'unsafe_dedupe does not queue a second job beside a running one');

SELECT * FROM finish();
ROLLBACK;
