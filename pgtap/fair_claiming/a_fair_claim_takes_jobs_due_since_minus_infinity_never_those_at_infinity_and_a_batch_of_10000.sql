-- Careless and extreme values in a fair queue: a job due since -infinity is claimed in its
-- store's turn, one due at infinity never; a claim of the largest batch (10,000) over 2,000
-- stores of one job each, most of them not yet due, takes exactly the due ones, each once.
BEGIN;
SELECT plan(4);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-x');
INSERT INTO jobq.jobs (task, queue, store_id, max_attempts, run_at)
VALUES ('pgtap-x', 'pgtap_q', 'aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa', 3, '-infinity'),
       ('pgtap-x', 'pgtap_q', 'aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa', 3, 'infinity'),
       ('pgtap-x', 'pgtap_q', 'bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb', 3, 'infinity'),
       ('pgtap-x', 'pgtap_q', NULL, 3, now());
SELECT jobq.set_fair_claiming('pgtap_q', true);
SELECT results_eq($$ SELECT coalesce(left(store_id::text, 1), 'system'), run_at FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_q'], 10) ORDER BY 1 $$,
                  $$ VALUES ('a', '-infinity'::timestamptz), ('system', now()) $$,
                  'the job due since -infinity and the system job are claimed; the two at infinity are not');

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-x');
INSERT INTO jobq.jobs (task, queue, store_id, max_attempts, run_at)
SELECT 'pgtap-x', 'pgtap_q', ('00000000-0000-0000-0000-' || lpad(s::text, 12, '0'))::uuid, 3,
       CASE WHEN s % 4 = 0 THEN now() - interval '1 minute' ELSE now() + interval '1 day' END
FROM generate_series(1, 2000) AS s;
SELECT jobq.set_fair_claiming('pgtap_q', true);
CREATE TEMP TABLE got AS SELECT id, store_id, run_at FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_q'], 10000);
SELECT is((SELECT count(*) FROM got), 500::bigint, 'a batch of 10,000 takes the 500 due jobs of 2,000 stores');
SELECT is((SELECT count(DISTINCT id) FROM got), 500::bigint, 'each once');
SELECT is((SELECT count(*) FROM got WHERE run_at > now()), 0::bigint, 'none of the jobs not yet due');

SELECT * FROM finish();
ROLLBACK;
