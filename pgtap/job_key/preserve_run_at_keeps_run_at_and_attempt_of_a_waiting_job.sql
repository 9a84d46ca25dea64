BEGIN;
SELECT plan(5);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('digest');

CREATE TEMP TABLE first AS
SELECT jobq.enqueue('digest', '{"v": 1}', job_key => 'pgtap:digest:7', queue => 'pgtap_digest') AS id;
CREATE TEMP TABLE claimed AS SELECT * FROM jobq.claim_job('w1', ARRAY['pgtap_digest']);
SELECT is(jobq.fail_job((SELECT id FROM claimed), (SELECT lease_token FROM claimed), 'boom', retry_in => '1 hour'),
          'retry_pending', 'setup: the keyed job failed once and waits for its retry in an hour');

CREATE TEMP TABLE second AS
SELECT jobq.enqueue('digest', '{"v": 2}', run_at => now() + interval '1 day', job_key => 'pgtap:digest:7',
                    job_key_mode => 'preserve_run_at') AS id;

SELECT is((SELECT id FROM second), (SELECT id FROM first), 'preserve_run_at returns the id of the job that holds the key');
SELECT is((SELECT payload FROM jobq.jobs WHERE id = (SELECT id FROM first)), '{"v": 2}'::jsonb,
          'preserve_run_at replaces the payload');
SELECT results_eq(
    $$ SELECT run_at, attempt, state, reason FROM jobq.jobs WHERE id = (SELECT id FROM first) $$,
    $$ VALUES (now() + interval '1 hour', 1, 'retry_pending'::text, 'error'::text) $$,
    'preserve_run_at keeps run_at, attempt, state and reason of the waiting job');
SELECT is((SELECT count(*) FROM jobq.jobs WHERE job_key = 'pgtap:digest:7'), 1::bigint, 'preserve_run_at creates no second job');

SELECT * FROM finish();
ROLLBACK;
