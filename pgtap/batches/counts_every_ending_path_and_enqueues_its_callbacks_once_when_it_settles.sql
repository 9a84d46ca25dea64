-- A batch counts its jobs whichever way they end (complete, fail to dead, cancel, delete of a live
-- job), is not settled before it is sealed, and settles once when sealed with every job ended:
-- on_complete and on_discard (one job was discarded) are enqueued once, in the batch's store,
-- their payload carrying the batch's id and counts; on_success is not (a job was discarded).
BEGIN;
SELECT plan(10);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-b', 'pgtap-cb');
CREATE TEMP TABLE b AS SELECT jobq.create_batch(on_success => '{"task": "pgtap-cb", "payload": {"k": "success"}}',
                                                on_complete => '{"task": "pgtap-cb", "payload": {"k": "complete"}}',
                                                on_discard => '{"task": "pgtap-cb", "payload": {"k": "discard"}, "queue": "pgtap_cb"}') AS id;
CREATE TEMP TABLE added AS
SELECT x.id, x.ord FROM jobq.batch_enqueue((SELECT id FROM b),
    '[{"task": "pgtap-b", "queue": "pgtap_ok"}, {"task": "pgtap-b", "queue": "pgtap_ok"},
      {"task": "pgtap-b", "queue": "pgtap_die", "max_attempts": 1}, {"task": "pgtap-b", "queue": "pgtap_cancel"},
      {"task": "pgtap-b", "queue": "pgtap_delete"}]') WITH ORDINALITY AS x(id, ord);
SELECT is((SELECT count(*) FROM jobq.jobs WHERE batch_id = (SELECT id FROM b)), 5::bigint, 'the five jobs added carry the batch id');

CREATE TEMP TABLE c AS SELECT id, lease_token FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_ok'], 10);
SELECT FROM jobq.complete_jobs(ARRAY(SELECT id FROM c ORDER BY id), ARRAY(SELECT lease_token FROM c ORDER BY id));
CREATE TEMP TABLE d AS SELECT id, lease_token FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_die'], 10);
SELECT FROM jobq.fail_jobs(ARRAY(SELECT id FROM d), ARRAY(SELECT lease_token FROM d), ARRAY['boom']);
SELECT FROM jobq.cancel_job((SELECT j.id FROM jobq.jobs j WHERE j.queue = 'pgtap_cancel'));
SELECT results_eq($$ SELECT state, total, succeeded, dead, canceled, pending FROM jobq.batch_status((SELECT id FROM b)) $$,
                  $$ VALUES ('open'::text, 5::bigint, 2::bigint, 1::bigint, 1::bigint, 1::bigint) $$,
                  'complete_jobs, fail_jobs (dead) and cancel_job are counted; the batch is still open');

SELECT FROM jobq.delete_job((SELECT j.id FROM jobq.jobs j WHERE j.queue = 'pgtap_delete'));
SELECT results_eq($$ SELECT state, canceled, pending FROM jobq.batch_status((SELECT id FROM b)) $$,
                  $$ VALUES ('open'::text, 2::bigint, 0::bigint) $$,
                  'delete_job of a live job counts it canceled; all ended, but an open batch does not settle');
SELECT is((SELECT count(*) FROM jobq.jobs WHERE task = 'pgtap-cb'), 0::bigint, 'no callback before the seal');

SELECT is(jobq.seal_batch((SELECT id FROM b)), 'settled', 'sealing a batch whose jobs all ended settles it at once');
SELECT results_eq($$ SELECT payload ->> 'k', queue FROM jobq.jobs WHERE task = 'pgtap-cb' ORDER BY id $$,
                  $$ VALUES ('complete'::text, 'default'::text), ('discard', 'pgtap_cb') $$,
                  'on_complete and on_discard are enqueued, on_success is not (two jobs were discarded)');
SELECT is((SELECT payload -> 'batch' FROM jobq.jobs WHERE task = 'pgtap-cb' ORDER BY id LIMIT 1),
          jsonb_build_object('id', (SELECT id FROM b), 'total', 5, 'succeeded', 2, 'dead', 1, 'canceled', 2, 'pending', 0),
          'the callback''s payload carries the batch id and its final counts');
SELECT is((SELECT callback_job_ids FROM jobq.batch_status((SELECT id FROM b))),
          ARRAY(SELECT id FROM jobq.jobs WHERE task = 'pgtap-cb' ORDER BY id), 'the batch names its callback jobs');

SELECT is(jobq.seal_batch((SELECT id FROM b)), 'settled', 'sealing again changes nothing');
SELECT is((SELECT count(*) FROM jobq.jobs WHERE task = 'pgtap-cb'), 2::bigint, 'and enqueues no callback a second time');

SELECT * FROM finish();
ROLLBACK;
