-- create_batch checks each callback by enqueuing it in a rolled-back subtransaction: an unknown
-- task, a non-object, an unknown field, a store_id or run_at (a callback runs in its batch's store
-- when it settles) and a payload its task's contract refuses are JQ722, naming the callback and the
-- enqueue's reason; no batch and no job is written.
BEGIN;
SELECT plan(7);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-cb');
SELECT FROM jobq.define_task('pgtap-typed', payload_schema => '{"n": "integer"}');
CREATE TEMP TABLE before AS SELECT * FROM jobq_test.counts();

SELECT throws_ok($$ SELECT jobq.create_batch(on_success => '{"task": "pgtap-nope"}') $$, 'JQ722',
                 'JOB.BATCH_CALLBACK_INVALID: on_success: JOB.UNKNOWN_TASK: job 1: task ''pgtap-nope'' is not declared',
                 'an unknown task, with the enqueue''s reason');
SELECT throws_ok($$ SELECT jobq.create_batch(on_complete => '["pgtap-cb"]') $$, 'JQ722', NULL, 'a callback that is not an object');
SELECT throws_ok($$ SELECT jobq.create_batch(on_discard => '{"task": "pgtap-cb", "priorty": 1}') $$, 'JQ722', NULL, 'an unknown field');
SELECT throws_ok($$ SELECT jobq.create_batch(on_discard => '{"task": "pgtap-cb", "store_id": "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb"}') $$, 'JQ722', NULL, 'a store_id of its own');
SELECT throws_ok($$ SELECT jobq.create_batch(on_success => '{"task": "pgtap-typed", "payload": {"n": "one"}}') $$, 'JQ722', NULL,
                 'a payload its task''s contract refuses');
SELECT results_eq($$ SELECT * FROM jobq_test.counts() $$, $$ SELECT * FROM before $$, 'no job was written');
SELECT is((SELECT count(*) FROM jobq.batches), 0::bigint, 'and no batch');

SELECT * FROM finish();
ROLLBACK;
