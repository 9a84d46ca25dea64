-- The history row of a dead job keeps task, queue, payload, store, key, attempts, the last error,
-- created_at, and when it finished.
BEGIN;
SELECT plan(3);

SELECT jobq_test.reset();
SELECT FROM jobq.define_task('charge-card', scope => 'store');

CREATE TEMP TABLE job AS
SELECT jobq.enqueue('charge-card', '{"order": 42}', queue => 'pgtap_billing', job_key => 'pgtap:charge:42', max_attempts => 2,
                    store_id => '33333333-3333-3333-3333-333333333333', priority => 2) AS id;
CREATE TEMP TABLE created AS SELECT created_at FROM jobq.jobs WHERE id = (SELECT id FROM job);
CREATE TEMP TABLE c1 AS SELECT * FROM jobq.claim_job('w', ARRAY['pgtap_billing']);
SELECT is(jobq.fail_job((SELECT id FROM c1), (SELECT lease_token FROM c1), 'card declined', 'DECLINED', retry_in => '0'),
          'retry_pending', 'setup: attempt 1 fails');
CREATE TEMP TABLE c2 AS SELECT * FROM jobq.claim_job('w', ARRAY['pgtap_billing']);
SELECT is(jobq.fail_job((SELECT id FROM c2), (SELECT lease_token FROM c2), 'card declined again', 'DECLINED_2'),
          'dead', 'setup: attempt 2 fails and the job dies');

SELECT results_eq(
    $$ SELECT task, queue, payload, store_id, job_key, priority, state, reason, attempt, max_attempts, last_error, error_code,
              created_at, finished_at
       FROM jobq.job_history WHERE id = (SELECT id FROM job) $$,
    $$ SELECT 'charge-card'::text, 'pgtap_billing'::text, '{"order": 42}'::jsonb, '33333333-3333-3333-3333-333333333333'::uuid,
              'pgtap:charge:42'::text, 2::smallint, 'dead'::text, 'exhausted'::text, 2, 2, 'card declined again'::text, 'DECLINED_2'::text,
              created_at, now()
       FROM created $$,
    'the history row keeps task, queue, payload, store, key, priority, attempts, last error, created_at and finished_at');

SELECT * FROM finish();
ROLLBACK;
