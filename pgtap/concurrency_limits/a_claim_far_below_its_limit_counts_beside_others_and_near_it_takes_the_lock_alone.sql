-- The shared claim of a limited queue (jobq._claim_limited, jobq._take_claim_slot): a claim of at
-- most 16 jobs from a queue whose lowest concurrency limit is far above what 8 claims of 16 can take
-- holds one of 8 slot locks and the queue's lock shared, so claims count side by side; it takes no
-- more jobs than leave 7 batches of 16 below the limit, and when there are none to take it takes
-- nothing and the session's next claims take the queue's lock alone (exclusive, counted one after
-- another as before) until a count finds room for a batch again. A larger batch, a rate-limited
-- queue, a limit of 112 or less and a claim listing two limited queues always take the lock alone.
BEGIN;
SELECT plan(16);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-x');
SELECT jobq.enqueue('pgtap-x', queue => q)
FROM unnest(ARRAY['pgtap_s', 'pgtap_small', 'pgtap_big', 'pgtap_rated', 'pgtap_two_a', 'pgtap_two_b']) AS q,
     generate_series(1, CASE WHEN q = 'pgtap_s' THEN 200 ELSE 20 END);
SELECT jobq.set_concurrency_limit('pgtap_s', 200);
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
SELECT is((SELECT sum((SELECT count(*) FROM jobq.claim_job('pgtap-w1', ARRAY['pgtap_s'], 16 + 0 * g))) FROM generate_series(1, 4) AS g),
          64::numeric,
          'four claims of 16 take 16 each (74 running)');
SELECT is((SELECT count(*) FROM jobq.claim_job('pgtap-w1', ARRAY['pgtap_s'], 16)), 14::bigint,
          'the next takes 14: with 88 running, 7 batches of 16 reach the limit of 200');
SELECT is((SELECT count(*) FROM jobq.claim_job('pgtap-w1', ARRAY['pgtap_s'], 5)), 0::bigint,
          'at 88 a claim holding a slot takes nothing');
SELECT is(current_setting('jobq.near_limit_' || to_hex(hashtext('pgtap_s')), true), 'near',
          'and notes in the session that the queue is near its limit');
SELECT is((SELECT count(*) FROM jobq.claim_job('pgtap-w1', ARRAY['pgtap_s'], 10)), 10::bigint,
          'the next claim takes its 10 (98 running)');
SELECT results_eq($$ SELECT queue_lock FROM held WHERE queue = 'pgtap_s' $$,
                  $$ VALUES ('ExclusiveLock,ShareLock'::text) $$,
                  'under the queue''s lock alone');
SELECT is((SELECT count(*) FROM (SELECT jobq.complete_job(j.id, j.lease_token) FROM jobq.jobs j
                                 WHERE j.queue = 'pgtap_s' AND j.state = 'running' ORDER BY j.id LIMIT 30) c), 30::bigint,
          '30 complete (68 running)');
SELECT is((SELECT count(*) FROM jobq.claim_job('pgtap-w1', ARRAY['pgtap_s'], 4)), 4::bigint,
          'a claim takes 4 (72 running)');
SELECT is(current_setting('jobq.near_limit_' || to_hex(hashtext('pgtap_s')), true), '',
          'and takes the note back: 200 - 7 × 16 - 72 leaves room for a batch of 16');

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
