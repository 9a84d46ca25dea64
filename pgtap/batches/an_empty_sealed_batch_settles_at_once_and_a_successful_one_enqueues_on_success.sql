-- An empty batch settles the moment it is sealed, as a successful one: on_success and on_complete
-- are enqueued, on_discard is not. A batch whose last job succeeds after the seal settles in the
-- completion's own transaction.
BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-b', 'pgtap-cb');
CREATE TEMP TABLE e AS SELECT jobq.create_batch(on_success => '{"task": "pgtap-cb", "payload": {"k": "success"}}',
                                                on_discard => '{"task": "pgtap-cb", "payload": {"k": "discard"}}') AS id;
SELECT is((SELECT state FROM jobq.batch_status((SELECT id FROM e))), 'open', 'a new batch is open');
SELECT is(jobq.seal_batch((SELECT id FROM e)), 'settled', 'an empty batch settles when sealed');
SELECT results_eq($$ SELECT payload ->> 'k', (payload -> 'batch' ->> 'total')::int FROM jobq.jobs WHERE task = 'pgtap-cb' $$,
                  $$ VALUES ('success'::text, 0) $$, 'its on_success is enqueued with total 0, and no on_discard');

CREATE TEMP TABLE f AS SELECT jobq.create_batch(on_success => '{"task": "pgtap-cb", "payload": {"k": "f"}}') AS id;
SELECT FROM jobq.batch_enqueue((SELECT id FROM f), '[{"task": "pgtap-b", "queue": "pgtap_f"}]');
SELECT is(jobq.seal_batch((SELECT id FROM f)), 'sealed', 'a sealed batch with a live job is not settled');
CREATE TEMP TABLE c AS SELECT id, lease_token FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_f'], 1);
SELECT FROM jobq.complete_job((SELECT id FROM c), (SELECT lease_token FROM c));
SELECT is((SELECT state FROM jobq.batch_status((SELECT id FROM f))), 'settled', 'its last job''s completion settles it');
SELECT is((SELECT count(*) FROM jobq.jobs WHERE task = 'pgtap-cb' AND payload ->> 'k' = 'f'), 1::bigint, 'and enqueues its on_success once');

SELECT * FROM finish();
ROLLBACK;
