-- jobq.set_store_concurrency_limit('pgtap_q', 2): at most two running jobs per store in the queue,
-- system jobs (no store) being one more store; a store at its limit does not stop the others, and
-- a batch that would fill a store takes the next stores' jobs instead. With a queue limit too,
-- both hold.
BEGIN;
SELECT plan(7);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-x');
-- Store A's burst comes first in claim order, then store B's jobs, then system jobs.
INSERT INTO jobq.jobs (task, queue, store_id, max_attempts, run_at)
SELECT 'pgtap-x', 'pgtap_q', 'aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa', 3, now() - interval '1 hour' FROM generate_series(1, 10);
INSERT INTO jobq.jobs (task, queue, store_id, max_attempts, run_at)
SELECT 'pgtap-x', 'pgtap_q', 'bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb', 3, now() - interval '30 minutes' FROM generate_series(1, 3);
INSERT INTO jobq.jobs (task, queue, store_id, max_attempts, run_at)
SELECT 'pgtap-x', 'pgtap_q', NULL, 3, now() - interval '10 minutes' FROM generate_series(1, 3);

SELECT is(jobq.set_store_concurrency_limit('pgtap_q', 2), true, 'the per-store limit is set');
CREATE TEMP TABLE c1 AS SELECT * FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_q'], 100);
SELECT results_eq($$ SELECT store_id, count(*) FROM c1 GROUP BY store_id ORDER BY store_id NULLS LAST $$,
                  $$ VALUES ('aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa'::uuid, 2::bigint), ('bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb'::uuid, 2::bigint),
                            (NULL::uuid, 2::bigint) $$,
                  'one claim of 100 takes two jobs of each store and two system jobs');
SELECT results_eq($$ SELECT id FROM c1 WHERE store_id = 'aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa' ORDER BY id $$,
                  $$ SELECT id FROM jobq.jobs WHERE store_id = 'aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa' ORDER BY run_at, id LIMIT 2 $$,
                  'each store''s first jobs in claim order');
SELECT is_empty($$ SELECT * FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_q'], 100) $$, 'every store is full: nothing more');
SELECT is((SELECT count(*) FROM jobq.jobs WHERE state = 'queued' AND attempt = 0), 10::bigint,
          'the ten left over stay queued and used no attempt');
SELECT jobq.complete_job(id, lease_token) FROM c1 WHERE store_id = 'bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb';
SELECT jobq.set_concurrency_limit('pgtap_q', 5);
SELECT results_eq($$ SELECT store_id FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_q'], 100) $$,
                  $$ VALUES ('bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb'::uuid) $$,
                  'with a queue limit of 5 as well, the two freed slots of store B leave one slot of the queue: B''s last job');
SELECT is((SELECT count(*) FROM jobq.jobs WHERE state = 'running'), 5::bigint, 'five run: both limits hold');

SELECT * FROM finish();
ROLLBACK;
