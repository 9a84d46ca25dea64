-- A shared claim (a small claim of a queue far below its limits: jobq._shared_claim_slot) takes
-- its slot before it picks and counts the queue's running jobs after: it is claimed from the head
-- of the queue whatever position the runner passes, as every claim of a limited queue; when the
-- count leaves room for fewer jobs than it picked it keeps the first of them in claim order
-- ((priority, run_at, id) in a plain queue, the stores' turns in a fair one; the rest stay
-- queued); and a claim that finds no job holds a slot but neither the queue's lock nor a note.
BEGIN;
SELECT plan(7);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-x');
-- Priority 0: four jobs; priority 1: two; run_at in id order.
INSERT INTO jobq.jobs (task, queue, max_attempts, priority, run_at)
SELECT 'pgtap-x', q, 3, p, now() - interval '1 hour' + interval '1 minute' * (10 * p + n)
FROM unnest(ARRAY['pgtap_pos', 'pgtap_room']) AS q, (VALUES (0, 4), (1, 2)) AS v(p, jobs), generate_series(1, v.jobs) AS n;
SELECT jobq.set_concurrency_limit('pgtap_pos', 200);
-- 115: 7 batches of 16 below it leave room for 3 (jobq._shared_claim_ceiling).
SELECT jobq.set_concurrency_limit('pgtap_room', 115);
-- A queue made known by its job, which is then deleted: limited and empty.
SELECT jobq.enqueue('pgtap-x', queue => 'pgtap_empty');
SELECT jobq.set_concurrency_limit('pgtap_empty', 200);
DELETE FROM jobq.jobs WHERE queue = 'pgtap_empty';

CREATE TEMP VIEW held AS SELECT * FROM jobq_test.held_claim_locks();

-- The position of the third job of priority 0.
CREATE TEMP TABLE pos AS SELECT priority::integer AS priority, run_at, id FROM jobq.jobs WHERE queue = 'pgtap_pos' ORDER BY priority, run_at, id OFFSET 2 LIMIT 1;
SELECT is((SELECT count(*) FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_pos'], 10, '30 seconds',
                                               ARRAY[(SELECT priority FROM pos)], ARRAY[(SELECT run_at FROM pos)], ARRAY[(SELECT id FROM pos)])),
          6::bigint, 'a shared claim after a position takes every job of the queue, those before the position and of a lower priority too');
SELECT results_eq($$ SELECT queue_lock, slots FROM held WHERE queue = 'pgtap_pos' $$,
                  $$ VALUES ('ShareLock'::text, 1::bigint) $$,
                  'under a slot and the queue''s lock shared');

CREATE TEMP TABLE got AS SELECT c.id FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_room'], 5) AS c;
SELECT results_eq($$ SELECT id FROM got ORDER BY id $$,
                  $$ SELECT id FROM jobq.jobs WHERE queue = 'pgtap_room' ORDER BY priority, run_at, id LIMIT 3 $$,
                  'a claim of five that the count leaves room for three takes the first three in claim order');
SELECT is((SELECT count(*) FROM jobq.jobs WHERE queue = 'pgtap_room' AND state = 'queued' AND attempt = 0), 3::bigint,
          'the other three stay queued, no attempt used');

-- A fair queue with the same room: stores a and b, three jobs each, a's all before b's.
INSERT INTO jobq.jobs (task, queue, store_id, max_attempts, run_at)
SELECT 'pgtap-x', 'pgtap_fair', s.k, 3, now() - interval '1 hour' + interval '1 minute' * (s.o + n)
FROM (VALUES ('aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa'::uuid, 0), ('bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb'::uuid, 10)) AS s(k, o),
     generate_series(1, 3) AS n;
SELECT jobq.set_concurrency_limit('pgtap_fair', 115);
SELECT jobq.set_fair_claiming('pgtap_fair', true);
UPDATE jobq.claim_cursors SET store_key = '00000000-0000-0000-0000-000000000000' WHERE queue = 'pgtap_fair';
SELECT results_eq($$ SELECT store_id, count(*) FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_fair'], 5) GROUP BY 1 ORDER BY 1 $$,
                  $$ VALUES ('aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa'::uuid, 2::bigint), ('bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb'::uuid, 1::bigint) $$,
                  'a fair queue keeps the first three of its pick''s turns: a, b, a');

SELECT is((SELECT count(*) FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_empty'], 10)), 0::bigint, 'a shared claim of an empty queue takes nothing');
SELECT results_eq($$ SELECT queue_lock, slots, current_setting(jobq._near_limit_setting(queue), true) FROM held WHERE queue = 'pgtap_empty' $$,
                  $$ VALUES (NULL::text, 1::bigint, NULL::text) $$,
                  'and holds its slot, without the queue''s lock or a note that the queue is near its limit');

SELECT * FROM finish();
ROLLBACK;
