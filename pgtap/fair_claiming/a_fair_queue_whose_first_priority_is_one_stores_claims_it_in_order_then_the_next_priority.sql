-- A fair queue whose highest priority holds one store's jobs (the usual backlog of a burst) is
-- claimed in one scan of that store (jobq._pick_fair's one-store pick): its due jobs in claim
-- order, never one that is not due, never one the caller passes over (p_skip_ids), nothing of a
-- store the caller passes over (p_skip_stores); what that store leaves wanted comes from the next
-- priority, in turn between its stores, and the cursor ends at the last store served. With two
-- stores in the highest priority, the turn is shared as ever. A queue of system jobs alone (one
-- more store, the zero key) is picked the same way, from -infinity, never a job due at infinity,
-- in a batch of the largest size.
BEGIN;
SELECT plan(10);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-x');
-- Priority 0: store a's five due jobs and one due in an hour. Priority 1: stores b and c, two
-- due jobs each.
INSERT INTO jobq.jobs (task, queue, store_id, max_attempts, priority, run_at)
SELECT 'pgtap-x', 'pgtap_q', s.k, 3, s.p, now() - interval '1 hour' + interval '1 minute' * n
FROM (VALUES ('aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa'::uuid, 0, 5), ('bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb'::uuid, 1, 2),
             ('cccccccc-cccc-cccc-cccc-cccccccccccc'::uuid, 1, 2)) AS s(k, p, jobs),
     generate_series(1, s.jobs) AS n;
INSERT INTO jobq.jobs (task, queue, store_id, max_attempts, priority, run_at)
VALUES ('pgtap-x', 'pgtap_q', 'aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa', 3, 0, now() + interval '1 hour');
SELECT jobq.set_fair_claiming('pgtap_q', true);

SELECT results_eq(
    $$ SELECT f.ids FROM jobq._pick_fair('pgtap_q', 3, now(), '{}', NULL, '{}',
                                         ARRAY[(SELECT id FROM jobq.jobs WHERE priority = 0 ORDER BY run_at, id LIMIT 1)]) AS f $$,
    $$ SELECT array_agg(id ORDER BY run_at, id) FROM (SELECT id, run_at FROM jobq.jobs WHERE priority = 0 ORDER BY run_at, id OFFSET 1 LIMIT 3) AS a $$,
    'a pick of three passes over the job the caller holds already and takes store a''s next three, in order');
SELECT is((SELECT store_key FROM jobq.claim_cursors WHERE queue = 'pgtap_q'), 'aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa'::uuid,
          'and leaves the cursor at store a');
SELECT is((SELECT f.ids FROM jobq._pick_fair('pgtap_q', 3, now(), ARRAY['aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa'::uuid], NULL, '{}', '{}') AS f),
          (SELECT array_agg(id ORDER BY rn, store_id) FROM (SELECT id, store_id, row_number() OVER (PARTITION BY store_id ORDER BY run_at, id) AS rn
                                                          FROM jobq.jobs WHERE priority = 1) AS b
           WHERE rn = 1 OR store_id = 'bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb' AND rn = 2),
          'a pick that passes over store a takes the next priority''s stores in turn (b, c, b)');
-- The picks above locked rows of this transaction only; the claims below take them as any other.
UPDATE jobq.claim_cursors SET store_key = '00000000-0000-0000-0000-000000000000' WHERE queue = 'pgtap_q';

CREATE TEMP TABLE got AS SELECT c.id, c.store_id, c.priority, c.run_at FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_q'], 7) AS c;
SELECT is((SELECT count(*) FROM got), 7::bigint, 'a claim of seven gets seven');
SELECT results_eq($$ SELECT id FROM got WHERE priority = 0 ORDER BY id $$,
                  $$ SELECT id FROM jobq.jobs WHERE priority = 0 AND run_at <= now() ORDER BY id $$,
                  'it takes store a''s five due jobs, not the one due in an hour');
SELECT results_eq($$ SELECT store_id FROM got WHERE priority = 1 ORDER BY store_id $$,
                  $$ VALUES ('bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb'::uuid), ('cccccccc-cccc-cccc-cccc-cccccccccccc'::uuid) $$,
                  'and the first job of each store of the next priority for the two it still wants');
SELECT is((SELECT store_key FROM jobq.claim_cursors WHERE queue = 'pgtap_q'), 'cccccccc-cccc-cccc-cccc-cccccccccccc'::uuid,
          'the cursor ends at the last store served');

-- Two stores in the highest priority: the turn is shared.
SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-x');
INSERT INTO jobq.jobs (task, queue, store_id, max_attempts, run_at)
SELECT 'pgtap-x', 'pgtap_q', s.k, 3, now() - interval '1 hour' + interval '1 minute' * (s.o + n)
FROM (VALUES ('aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa'::uuid, 0), ('bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb'::uuid, 10)) AS s(k, o),
     generate_series(1, 5) AS n;
SELECT jobq.set_fair_claiming('pgtap_q', true);
-- The turn starts at the first store, as on a queue just made fair.
UPDATE jobq.claim_cursors SET store_key = '00000000-0000-0000-0000-000000000000' WHERE queue = 'pgtap_q';
SELECT results_eq($$ SELECT store_id, count(*) FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_q'], 4) GROUP BY 1 ORDER BY 1 $$,
                  $$ VALUES ('aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa'::uuid, 2::bigint), ('bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb'::uuid, 2::bigint) $$,
                  'with a second store in the highest priority, a claim of four takes two of each');
SELECT is((SELECT count(*) FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_q'], 10)), 6::bigint,
          'and the next claim takes the six left');

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-x');
INSERT INTO jobq.jobs (task, queue, store_id, max_attempts, run_at)
VALUES ('pgtap-x', 'pgtap_q', NULL, 3, '-infinity'), ('pgtap-x', 'pgtap_q', NULL, 3, now()),
       ('pgtap-x', 'pgtap_q', NULL, 3, 'infinity');
SELECT jobq.set_fair_claiming('pgtap_q', true);
SELECT results_eq($$ SELECT store_id, run_at FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_q'], 10000) ORDER BY run_at $$,
                  $$ VALUES (NULL::uuid, '-infinity'::timestamptz), (NULL, now()) $$,
                  'a queue of system jobs alone yields the jobs due since -infinity and now to a claim of 10,000, not the one at infinity');

SELECT * FROM finish();
ROLLBACK;
