-- A callback job is an ordinary job: it takes its spec's max_attempts, retries on failure and
-- dies when they are spent; its batch stays settled, and nothing enqueues the callback again.
BEGIN;
SELECT plan(4);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-b', 'pgtap-cb');
CREATE TEMP TABLE b AS SELECT jobq.create_batch(on_complete => '{"task": "pgtap-cb", "queue": "pgtap_cb", "max_attempts": 2}') AS id;
SELECT is(jobq.seal_batch((SELECT id FROM b)), 'settled', 'setup: an empty batch settles at its seal');

CREATE TEMP TABLE c1 AS SELECT id, lease_token FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_cb'], 1);
SELECT results_eq($$ SELECT outcome FROM jobq.fail_jobs(ARRAY(SELECT id FROM c1), ARRAY(SELECT lease_token FROM c1), ARRAY['boom'], retry_in => ARRAY['0 seconds'::interval]) $$,
                  ARRAY['retry_pending'], 'its first failure schedules a retry, as for any job');
CREATE TEMP TABLE c2 AS SELECT id, lease_token FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_cb'], 1);
SELECT results_eq($$ SELECT outcome FROM jobq.fail_jobs(ARRAY(SELECT id FROM c2), ARRAY(SELECT lease_token FROM c2), ARRAY['boom']) $$,
                  ARRAY['dead'], 'its second failure, its last attempt, kills it');
SELECT results_eq($$ SELECT state, cardinality(callback_job_ids), (SELECT count(*) FROM jobq.jobs WHERE task = 'pgtap-cb') FROM jobq.batch_status((SELECT id FROM b)) $$,
                  $$ VALUES ('settled'::text, 1, 0::bigint) $$, 'the batch stays settled and no callback is enqueued again');

SELECT * FROM finish();
ROLLBACK;
