-- A claim of a limited queue whose first pick held more jobs of a store than the store's limit
-- leaves (the rest stay queued) picks again, passing over the full store; the jobs it kept are
-- still waiting and locked by its own transaction until the claim's update, and the second pick
-- passes over them too: it takes the next jobs of the stores that still have room, and never
-- the same job twice. In a plain queue and in a fair one.
BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-x');
-- Store a's three jobs first in claim order, then store b's two; at most two running per store.
INSERT INTO jobq.jobs (task, queue, store_id, max_attempts, run_at)
SELECT 'pgtap-x', 'pgtap_q', s.k, 3, now() - interval '1 hour' + interval '1 minute' * (s.o + n)
FROM (VALUES ('aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa'::uuid, 3, 0), ('bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb'::uuid, 2, 10)) AS s(k, jobs, o),
     generate_series(1, s.jobs) AS n;
SELECT jobq.set_store_concurrency_limit('pgtap_q', 2);

CREATE TEMP TABLE got AS SELECT c.id FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_q'], 4) AS c;
SELECT is((SELECT count(DISTINCT id)::integer FROM got), 4,
          'a plain queue: a claim of four whose first pick took three of store a''s jobs (limit two) gets four jobs');
SELECT results_eq($$ SELECT id FROM got ORDER BY id $$,
                  $$ SELECT id FROM (SELECT id, store_id, row_number() OVER (PARTITION BY store_id ORDER BY run_at, id) AS rn FROM jobq.jobs) AS j
                     WHERE rn <= 2 ORDER BY id $$,
                  'a plain queue: store a''s first two jobs and both of store b''s, its second one from the pick again');

-- A fair queue: stores a, b and c with three jobs each, at most two running per store, store
-- a's first job running and the turn back at its start. A claim of four picks a's next two, b's
-- first and c's first (a's turn comes first and gives two of four), keeps one of a's, and picks
-- again, from one store: b's second job.
SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-x');
INSERT INTO jobq.jobs (task, queue, store_id, max_attempts, run_at)
SELECT 'pgtap-x', 'pgtap_f', s.k, 3, now() - interval '1 hour' + interval '1 minute' * n
FROM (VALUES ('aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa'::uuid), ('bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb'::uuid),
             ('cccccccc-cccc-cccc-cccc-cccccccccccc'::uuid)) AS s(k),
     generate_series(1, 3) AS n;
SELECT jobq.set_fair_claiming('pgtap_f', true);
SELECT jobq.set_store_concurrency_limit('pgtap_f', 2);
SELECT count(*) FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_f'], 1);
UPDATE jobq.claim_cursors SET store_key = '00000000-0000-0000-0000-000000000000' WHERE queue = 'pgtap_f';

CREATE TEMP TABLE got_fair AS SELECT c.id FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_f'], 4) AS c;
SELECT is((SELECT count(DISTINCT id)::integer FROM got_fair), 4,
          'a fair queue: a claim of four whose first pick took two of store a''s jobs (one slot left) gets four jobs');
SELECT results_eq($$ SELECT left(j.store_id::text, 1), j.rn FROM got_fair g
                     JOIN (SELECT id, store_id, row_number() OVER (PARTITION BY store_id ORDER BY run_at, id) AS rn FROM jobq.jobs) AS j ON j.id = g.id
                     ORDER BY 1, 2 $$,
                  $$ VALUES ('a', 2::bigint), ('b', 1), ('b', 2), ('c', 1) $$,
                  'a fair queue: store a''s second job, b''s first two and c''s first, b''s second from the pick again');

-- The same with a pick again from two stores: at most four running per store, store a's first
-- three running; stores b and c with six jobs each. A claim of nine picks three of each store,
-- keeps one of a's, and picks two again: b's fourth job and c's fourth.
SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-x');
INSERT INTO jobq.jobs (task, queue, store_id, max_attempts, run_at)
SELECT 'pgtap-x', 'pgtap_g', 'aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa', 3, now() - interval '1 hour' + interval '1 minute' * n
FROM generate_series(1, 6) AS n;
SELECT jobq.set_fair_claiming('pgtap_g', true);
SELECT jobq.set_store_concurrency_limit('pgtap_g', 4);
SELECT count(*) FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_g'], 3);
-- Into a queue that is fair already: fair true, as the enqueue sets it (jobq.jobs.fair).
INSERT INTO jobq.jobs (task, queue, store_id, max_attempts, run_at, fair)
SELECT 'pgtap-x', 'pgtap_g', s.k, 3, now() - interval '1 hour' + interval '1 minute' * n, true
FROM (VALUES ('bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb'::uuid), ('cccccccc-cccc-cccc-cccc-cccccccccccc'::uuid)) AS s(k),
     generate_series(1, 6) AS n;
UPDATE jobq.claim_cursors SET store_key = '00000000-0000-0000-0000-000000000000' WHERE queue = 'pgtap_g';

CREATE TEMP TABLE got_two AS SELECT c.id FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_g'], 9) AS c;
SELECT is((SELECT count(DISTINCT id)::integer FROM got_two), 9,
          'a fair queue: a claim of nine whose first pick took three of store a''s jobs (one slot left) gets nine jobs');
SELECT results_eq($$ SELECT left(j.store_id::text, 1), j.rn FROM got_two g
                     JOIN (SELECT id, store_id, row_number() OVER (PARTITION BY store_id ORDER BY run_at, id) AS rn FROM jobq.jobs) AS j ON j.id = g.id
                     ORDER BY 1, 2 $$,
                  $$ VALUES ('a', 4::bigint), ('b', 1), ('b', 2), ('b', 3), ('b', 4), ('c', 1), ('c', 2), ('c', 3), ('c', 4) $$,
                  'a fair queue: store a''s fourth job, b''s and c''s first four, their fourth from the pick again');

SELECT * FROM finish();
