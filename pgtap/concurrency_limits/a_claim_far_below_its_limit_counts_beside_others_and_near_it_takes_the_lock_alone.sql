-- The shared claim of a limited queue (jobq._shared_claim_slot, jobq._shared_claim_room): a claim
-- of at most 16 jobs from a queue whose lowest concurrency limit is far above what 8 claims of 16
-- can take holds one of 8 slot locks and the queue's lock shared, so claims count side by side; it
-- takes no more jobs than leave 7 batches of 16 below the limit, and when there are none to take
-- it takes nothing and notes in the session that the queue is near its limit; the session's next
-- claims of a queue so noted take the queue's lock alone (exclusive, counted one after another as
-- before) until a count finds room for a batch again. A transaction's shared claims of a queue take
-- one batch in all until it commits (a_transaction_s_shared_claims_of_a_queue_take_one_batch_in_all_until_it_commits).
-- A larger batch, a rate-limited queue, a limit of 112 or less and a claim listing two limited
-- queues always take the lock alone.
BEGIN;
SELECT plan(14);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-x');
SELECT jobq.enqueue('pgtap-x', queue => q)
FROM unnest(ARRAY['pgtap_s', 'pgtap_n', 'pgtap_m', 'pgtap_small', 'pgtap_big', 'pgtap_rated', 'pgtap_two_a', 'pgtap_two_b']) AS q,
     generate_series(1, CASE WHEN q IN ('pgtap_s', 'pgtap_n', 'pgtap_m') THEN 200 ELSE 20 END);
SELECT jobq.set_concurrency_limit(q, 200) FROM unnest(ARRAY['pgtap_s', 'pgtap_n', 'pgtap_m']) AS q;
SELECT jobq.set_concurrency_limit('pgtap_small', 112);
SELECT jobq.set_store_concurrency_limit('pgtap_big', 1000);
SELECT jobq.set_concurrency_limit('pgtap_rated', 1000);
SELECT jobq.set_rate_limit('pgtap_rated', 1000, '1 minute');
SELECT jobq.set_concurrency_limit('pgtap_two_a', 1000);
SELECT jobq.set_concurrency_limit('pgtap_two_b', 1000);

-- The advisory locks this transaction holds for each queue: its lock (modes) and its slots.
CREATE TEMP VIEW held AS SELECT * FROM jobq_test.held_claim_locks();

SELECT is((SELECT count(*) FROM jobq.claim_job('pgtap-w1', ARRAY['pgtap_s'], 10)), 10::bigint,
          'a claim of 10 from a queue limited to 200 takes 10');
SELECT results_eq($$ SELECT queue_lock, slots FROM held WHERE queue = 'pgtap_s' $$,
                  $$ VALUES ('ShareLock'::text, 1::bigint) $$,
                  'it holds one slot and the queue''s lock shared');

SELECT is((SELECT count(*) FROM jobq.claim_job('pgtap-w1', ARRAY['pgtap_n'], 82)), 82::bigint,
          'a claim of 82 takes 82 under the lock alone (as others'' claims would have)');
SELECT is((SELECT count(*) FROM jobq.claim_job('pgtap-w1', ARRAY['pgtap_n'], 16)), 6::bigint,
          'a shared claim of 16 then takes 6: with 82 running, 7 batches of 16 and 6 reach the limit of 200');
SELECT is((SELECT count(*) FROM jobq.claim_job('pgtap-w1', ARRAY['pgtap_n'], 5)), 0::bigint,
          'at 88 a claim holding a slot takes nothing');
SELECT is(current_setting('jobq.near_limit_' || to_hex(hashtext('pgtap_n')), true), 'near',
          'and notes in the session that the queue is near its limit');

SELECT set_config('jobq.near_limit_' || to_hex(hashtext('pgtap_m')), 'near', false);
SELECT is((SELECT count(*) FROM jobq.claim_job('pgtap-w1', ARRAY['pgtap_m'], 10)), 10::bigint,
          'a claim of 10 from a queue the session noted near its limit takes its 10');
SELECT results_eq($$ SELECT queue_lock, slots FROM held WHERE queue = 'pgtap_m' $$,
                  $$ VALUES ('ExclusiveLock'::text, 0::bigint) $$,
                  'under the queue''s lock alone, without a slot');
SELECT is(current_setting('jobq.near_limit_' || to_hex(hashtext('pgtap_m')), true), '',
          'and takes the note back: 200 - 7 × 16 - 10 leaves room for a batch of 16');

SELECT is((SELECT count(*) FROM jobq.claim_job('pgtap-w1', ARRAY['pgtap_small'], 1)), 1::bigint, 'a queue limited to 112 yields its job');
SELECT is((SELECT count(*) FROM jobq.claim_job('pgtap-w1', ARRAY['pgtap_big'], 17)), 17::bigint, 'a batch of 17 is taken');
SELECT is((SELECT count(*) FROM jobq.claim_job('pgtap-w1', ARRAY['pgtap_rated'], 1)), 1::bigint, 'a rate-limited queue yields its job');
SELECT is((SELECT count(*) FROM jobq.claim_job('pgtap-w1', ARRAY['pgtap_two_a', 'pgtap_two_b'], 21)), 21::bigint,
          'a claim of two limited queues takes from both');
SELECT results_eq($$ SELECT queue, queue_lock, slots FROM held
                     WHERE queue IN ('pgtap_small', 'pgtap_big', 'pgtap_rated', 'pgtap_two_a', 'pgtap_two_b') ORDER BY queue $$,
                  $$ VALUES ('pgtap_big'::text, 'ExclusiveLock'::text, 0::bigint), ('pgtap_rated', 'ExclusiveLock', 0),
                            ('pgtap_small', 'ExclusiveLock', 0), ('pgtap_two_a', 'ExclusiveLock', 0),
                            ('pgtap_two_b', 'ExclusiveLock', 0) $$,
                  'each of them under the queue''s lock alone, without a slot');

SELECT * FROM finish();
ROLLBACK;
