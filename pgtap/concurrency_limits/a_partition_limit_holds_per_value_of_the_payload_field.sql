-- jobq.set_partition_concurrency_limit('pgtap_q', 'customerId', 1): at most one running job per
-- customer; jobs of other customers and jobs without the field go on; a customer's next job is
-- claimed once its running one ends.
BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-x');
SELECT jobq.enqueue('pgtap-x', jsonb_build_object('customerId', c, 'n', n), queue => 'pgtap_q')
FROM (VALUES ('c1', 1), ('c1', 2), ('c1', 3), ('c2', 1), ('c2', 2)) AS v(c, n);
SELECT jobq.enqueue('pgtap-x', '{"n": 9}', queue => 'pgtap_q') FROM generate_series(1, 2);

SELECT is(jobq.set_partition_concurrency_limit('pgtap_q', 'customerId', 1), true, 'the per-customer limit is set');
CREATE TEMP TABLE c1 AS SELECT * FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_q'], 100);
SELECT results_eq($$ SELECT payload FROM c1 ORDER BY id $$,
                  $$ VALUES ('{"n": 1, "customerId": "c1"}'::jsonb), ('{"n": 1, "customerId": "c2"}'::jsonb), ('{"n": 9}'::jsonb), ('{"n": 9}'::jsonb) $$,
                  'one claim takes the first job of each customer and every job without the field');
SELECT is_empty($$ SELECT * FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_q'], 100) $$, 'each customer runs one: nothing more');
SELECT jobq.complete_job(id, lease_token) FROM c1 WHERE payload ->> 'customerId' = 'c1';
SELECT results_eq($$ SELECT payload FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_q'], 100) $$,
                  $$ VALUES ('{"n": 2, "customerId": "c1"}'::jsonb) $$,
                  'c1''s next job is claimed when its running one ends, and only that one');
SELECT is(jobq.set_partition_concurrency_limit('pgtap_q', NULL, NULL), true, 'both NULL remove the limit');
SELECT is((SELECT count(*) FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_q'], 100)), 2::bigint,
          'without it the remaining jobs of both customers are claimed');

SELECT * FROM finish();
ROLLBACK;
