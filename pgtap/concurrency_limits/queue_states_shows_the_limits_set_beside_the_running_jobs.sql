-- jobq.queue_states() shows, per queue, the limits that are set (a JSON object of them, NULL when
-- the queue has none, paused or not) beside its running jobs, so an operator sees a full queue.
BEGIN;
SELECT plan(2);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-x');
SELECT jobq.enqueue('pgtap-x', queue => q) FROM (VALUES ('pgtap_a'), ('pgtap_a'), ('pgtap_b'), ('pgtap_c')) AS v(q);
SELECT jobq.set_concurrency_limit('pgtap_a', 1);
SELECT jobq.set_store_rate_limit('pgtap_a', 10, '1 minute');
SELECT jobq.set_partition_concurrency_limit('pgtap_b', 'customerId', 2);
SELECT jobq.set_partition_concurrency_limit('pgtap_b', NULL, NULL);
SELECT jobq.pause_queue('pgtap_c');
SELECT FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_a'], 10);

SELECT results_eq(
    $$ SELECT queue, running, limits FROM jobq.queue_states() WHERE queue LIKE 'pgtap%' ORDER BY queue $$,
    $$ VALUES ('pgtap_a'::text, 1::bigint, '{"max_running": 1, "max_started_per_store": 10, "store_started_per": "00:01:00"}'::jsonb),
              ('pgtap_b'::text, 0::bigint, NULL::jsonb),
              ('pgtap_c'::text, 0::bigint, NULL::jsonb) $$,
    'the limited queue shows its limits and its one running job; a queue whose limit was removed and a paused one show none');
SET LOCAL ROLE jobq_viewer;
SELECT is((SELECT limits FROM jobq.queue_states() WHERE queue = 'pgtap_a'),
          '{"max_running": 1, "max_started_per_store": 10, "store_started_per": "00:01:00"}'::jsonb, 'viewers see them too');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
