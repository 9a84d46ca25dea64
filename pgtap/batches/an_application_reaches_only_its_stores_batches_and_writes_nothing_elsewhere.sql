-- Row security on batches: an application in store A creates batches of store A only (another
-- store's id: JQ406; none: JQ407), cannot add to, seal or read store B's batch (JQ720, as an id
-- that does not exist: nothing of store B is told) nor see it in batch_list; its refused calls
-- write nothing. An operator sees both.
BEGIN;
SELECT plan(11);

SELECT jobq_test.reset();
SELECT FROM jobq.define_task('pgtap-store-task', scope => 'store');
CREATE TEMP TABLE named (name text, id bigint);
INSERT INTO named VALUES ('b', jobq.create_batch(store_id => 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb'));
GRANT SELECT ON named TO PUBLIC;
CREATE TEMP TABLE snapshot AS SELECT to_jsonb(b) AS r FROM jobq.batches b;
CREATE TEMP TABLE before AS SELECT * FROM jobq_test.counts();

SET LOCAL ROLE jobq_app;
SET LOCAL app.current_store_id = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
SELECT throws_ok(format($$ SELECT jobq.batch_enqueue(%s, '[{"task": "pgtap-store-task"}]') $$, (SELECT id FROM named WHERE name = 'b')),
                 'JQ720', NULL, 'store A cannot add to store B''s batch: not found');
SELECT throws_ok(format('SELECT jobq.seal_batch(%s)', (SELECT id FROM named WHERE name = 'b')), 'JQ720', NULL, 'nor seal it');
SELECT throws_ok(format('SELECT * FROM jobq.batch_status(%s)', (SELECT id FROM named WHERE name = 'b')), 'JQ720', NULL, 'nor read it');
SELECT is_empty($$ SELECT * FROM jobq.batch_list() $$, 'batch_list shows store A no batch of store B');
SELECT is_empty($$ SELECT * FROM jobq.batches $$, 'nor does the table');
SELECT throws_ok($$ SELECT jobq.create_batch(store_id => 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb') $$, 'JQ406', NULL,
                 'creating a batch of store B: JOB.TENANT_MISMATCH');
RESET app.current_store_id;
SELECT throws_ok($$ SELECT jobq.create_batch() $$, 'JQ407', NULL, 'in no store, an application creates no system batch');
SET LOCAL app.current_store_id = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
CREATE TEMP TABLE mine AS SELECT jobq.create_batch() AS id;
SELECT is((SELECT store_id FROM jobq.batch_status((SELECT id FROM mine))), 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa'::uuid,
          'a batch created in store A is store A''s');
RESET ROLE;

SELECT is_empty($$ SELECT to_jsonb(b) FROM jobq.batches b WHERE b.id <> (SELECT id FROM mine) EXCEPT SELECT r FROM snapshot $$,
                'the refused calls changed no batch');
SELECT results_eq($$ SELECT * FROM jobq_test.counts() $$, $$ SELECT * FROM before $$, 'and wrote no job');
SET LOCAL ROLE jobq_operator;
SELECT is((SELECT count(*) FROM jobq.batch_list()), 2::bigint, 'an operator sees both stores'' batches');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
