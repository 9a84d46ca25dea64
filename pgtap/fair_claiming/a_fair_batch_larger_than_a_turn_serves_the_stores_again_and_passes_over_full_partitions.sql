-- A batch larger than one turn of the stores: each store gives one job a turn, a store that
-- runs out drops out, and the others are served again from after their last job, in the same
-- order, until the batch is full; nothing is taken twice. With a partition limit, a store whose
-- first job is in a full partition gives its first job outside it.
BEGIN;
SELECT plan(5);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-x');
-- Store a: 10 jobs, b: 2, c: 1; each store's jobs a minute apart, a's the oldest.
INSERT INTO jobq.jobs (task, queue, store_id, max_attempts, run_at)
SELECT 'pgtap-x', 'pgtap_q', s.k, 3, now() - interval '1 hour' + interval '1 minute' * n
FROM (VALUES ('aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa'::uuid, 10), ('bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb'::uuid, 2),
             ('cccccccc-cccc-cccc-cccc-cccccccccccc'::uuid, 1)) AS s(k, jobs),
     generate_series(1, s.jobs) AS n;
SELECT jobq.set_fair_claiming('pgtap_q', true);

-- One claim of nine (a claim returns its jobs in no particular order), then, from the same
-- start, nine claims of one.
CREATE TEMP TABLE got AS SELECT c.id, left(c.store_id::text, 1) AS store FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_q'], 9) AS c;
SELECT results_eq($$ SELECT id FROM got ORDER BY id $$,
                  $$ SELECT id FROM (SELECT id, store_id, row_number() OVER (PARTITION BY store_id ORDER BY run_at, id) AS rn FROM jobq.jobs) AS j
                     WHERE rn <= CASE left(store_id::text, 1) WHEN 'a' THEN 6 ELSE 2 END ORDER BY id $$,
                  'a batch of nine from stores of 10, 2 and 1 jobs: all of b and c, and a''s first six (each store served again while it had jobs)');
SELECT is((SELECT store_key FROM jobq.claim_cursors WHERE queue = 'pgtap_q'), 'aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa'::uuid,
          'the cursor is the store served last');
UPDATE jobq.jobs SET state = 'queued', attempt = 0, lease_token = NULL, lease_expires_at = NULL, deadline_at = NULL,
                     locked_by = NULL, claimed_at = NULL, heartbeat_at = NULL
WHERE state = 'running';
UPDATE jobq.claim_cursors SET store_key = '00000000-0000-0000-0000-000000000000'; -- the turn as set_fair_claiming starts it
CREATE TEMP TABLE one_by_one (n serial, id bigint, store text, run_at timestamptz);
DO $$
BEGIN
    FOR i IN 1 .. 9 LOOP
        INSERT INTO one_by_one (id, store, run_at)
        SELECT c.id, left(c.store_id::text, 1), c.run_at FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_q'], 1) AS c;
    END LOOP;
END
$$;
SELECT is((SELECT string_agg(store, '' ORDER BY n) FROM one_by_one), 'abcabaaaa',
          'one job a claim: a, b, c in turn, then a and b, then a alone once b and c ran out');
SELECT ok((SELECT bool_and(ordered) FROM (SELECT run_at > lag(run_at, 1, '-infinity') OVER (PARTITION BY store ORDER BY n) AS ordered FROM one_by_one) AS o),
          'each store''s jobs come in their claim order');

-- Partitions: store d's first job is for customer 1, whose limit of one running is taken.
SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-x');
INSERT INTO jobq.jobs (task, queue, store_id, max_attempts, run_at, payload)
VALUES ('pgtap-x', 'pgtap_p', 'dddddddd-dddd-dddd-dddd-dddddddddddd', 3, now() - interval '3 minutes', '{"customer": 1}'),
       ('pgtap-x', 'pgtap_p', 'dddddddd-dddd-dddd-dddd-dddddddddddd', 3, now() - interval '2 minutes', '{"customer": 1}'),
       ('pgtap-x', 'pgtap_p', 'dddddddd-dddd-dddd-dddd-dddddddddddd', 3, now() - interval '1 minute', '{"customer": 2}'),
       ('pgtap-x', 'pgtap_p', 'eeeeeeee-eeee-eeee-eeee-eeeeeeeeeeee', 3, now() - interval '1 minute', '{"customer": 1}');
SELECT jobq.set_fair_claiming('pgtap_p', true);
SELECT jobq.set_partition_concurrency_limit('pgtap_p', 'customer', 1);
SELECT count(*) FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_p'], 1);
SELECT results_eq($$ SELECT left(store_id::text, 1), payload ->> 'customer' FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_p'], 10) ORDER BY 1, 2 $$,
                  $$ VALUES ('d', '2') $$,
                  'customer 1 full: store d gives its first job of customer 2, store e (only customer 1) none');

SELECT * FROM finish();
ROLLBACK;
