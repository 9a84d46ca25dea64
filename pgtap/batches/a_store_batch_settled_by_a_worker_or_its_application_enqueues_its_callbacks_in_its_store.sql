-- The callbacks are the engine's act, in the batch's store, whoever ends the last job: a runner
-- (worker_runtime, in no store) completing it, or the store's application canceling it. The store
-- was checked when the batch was created; neither caller could enqueue into the store by itself
-- (a runner outside a tenant transaction may not), and yet each settle enqueues the callback.
BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
SELECT FROM jobq.define_task('pgtap-store-task', scope => 'store');
SELECT FROM jobq.define_task('pgtap-store-done', scope => 'store');
CREATE TEMP TABLE named (name text, id bigint);
GRANT SELECT, INSERT ON named TO PUBLIC;

SET LOCAL ROLE jobq_app;
SET LOCAL app.current_store_id = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
INSERT INTO named VALUES ('by_worker', jobq.create_batch(on_complete => '{"task": "pgtap-store-done", "payload": {"k": "w"}}')),
                         ('by_app', jobq.create_batch(on_complete => '{"task": "pgtap-store-done", "payload": {"k": "a"}}'));
SELECT FROM jobq.batch_enqueue((SELECT id FROM named WHERE name = 'by_worker'), '[{"task": "pgtap-store-task", "queue": "pgtap_w"}]');
SELECT FROM jobq.batch_enqueue((SELECT id FROM named WHERE name = 'by_app'), '[{"task": "pgtap-store-task", "queue": "pgtap_a"}]');
SELECT jobq.seal_batch(n.id) FROM named n;
RESET app.current_store_id;
RESET ROLE;

SET LOCAL ROLE worker_runtime;
CREATE TEMP TABLE c AS SELECT id, lease_token FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_w'], 1);
SELECT results_eq($$ SELECT outcome FROM jobq.complete_jobs(ARRAY(SELECT id FROM c), ARRAY(SELECT lease_token FROM c)) $$,
                  ARRAY['succeeded'], 'a runner in no store completes the store batch''s last job');
RESET ROLE;
SELECT results_eq($$ SELECT state, callback_error FROM jobq.batch_status((SELECT id FROM named WHERE name = 'by_worker')) $$,
                  $$ VALUES ('settled'::text, NULL::text) $$, 'the batch settled without a callback error');
SELECT results_eq($$ SELECT store_id FROM jobq.jobs WHERE task = 'pgtap-store-done' AND payload ->> 'k' = 'w' $$,
                  $$ VALUES ('aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa'::uuid) $$, 'its callback was enqueued once, in store A');

SET LOCAL ROLE jobq_app;
SET LOCAL app.current_store_id = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
SELECT is(jobq.cancel_job((SELECT j.id FROM jobq.jobs j WHERE j.queue = 'pgtap_a')), 'canceled', 'the application cancels its batch''s last job');
RESET app.current_store_id;
RESET ROLE;
SELECT results_eq($$ SELECT state, canceled, callback_error FROM jobq.batch_status((SELECT id FROM named WHERE name = 'by_app')) $$,
                  $$ VALUES ('settled'::text, 1::bigint, NULL::text) $$, 'that batch settled too');
SELECT results_eq($$ SELECT store_id FROM jobq.jobs WHERE task = 'pgtap-store-done' AND payload ->> 'k' = 'a' $$,
                  $$ VALUES ('aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa'::uuid) $$, 'and its callback was enqueued once, in store A');

SELECT * FROM finish();
ROLLBACK;
