-- A callback whose task was deleted after the batch was created cannot be enqueued when the batch
-- settles: the settle records why (callback_error) and the completion that settled it succeeds,
-- so no worker is stuck on a completion that always fails. The batch is settled once all the same.
BEGIN;
SELECT plan(4);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-b', 'pgtap-gone');
CREATE TEMP TABLE b AS SELECT jobq.create_batch(on_complete => '{"task": "pgtap-gone"}') AS id;
SELECT FROM jobq.batch_enqueue((SELECT id FROM b), '[{"task": "pgtap-b", "queue": "pgtap_q"}]');
SELECT FROM jobq.seal_batch((SELECT id FROM b));
DELETE FROM jobq.tasks WHERE name = 'pgtap-gone';
CREATE TEMP TABLE c AS SELECT id, lease_token FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_q'], 1);

SELECT lives_ok($$ SELECT jobq.complete_job((SELECT id FROM c), (SELECT lease_token FROM c)) $$, 'the last job''s completion succeeds');
SELECT is((SELECT state FROM jobq.job_history WHERE id = (SELECT id FROM c)), 'succeeded', 'the job succeeded');
SELECT results_eq($$ SELECT state, callback_job_ids FROM jobq.batch_status((SELECT id FROM b)) $$,
                  $$ VALUES ('settled'::text, '{}'::bigint[]) $$, 'the batch settled without a callback job');
SELECT matches((SELECT callback_error FROM jobq.batch_status((SELECT id FROM b))), 'pgtap-gone', 'callback_error says why');

SELECT * FROM finish();
ROLLBACK;
