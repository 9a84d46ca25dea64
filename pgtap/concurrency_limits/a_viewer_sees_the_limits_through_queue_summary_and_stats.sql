-- jobq_viewer (the dashboard's read-only login) reads each queue's flow controls through
-- jobq.queue_summary(), the overview's source, and jobq.stats(), as an operator does.
BEGIN;
SELECT plan(2);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-x');
SELECT jobq.enqueue('pgtap-x', queue => q) FROM (VALUES ('pgtap_limited'), ('pgtap_plain')) AS v(q);
SELECT jobq.set_partition_concurrency_limit('pgtap_limited', 'customerId', 3);
SELECT jobq.set_store_rate_limit('pgtap_limited', 10, '30 seconds');
SELECT jobq.set_fair_claiming('pgtap_limited', true);

SET LOCAL ROLE jobq_viewer;
SELECT results_eq(
    $$ SELECT queue, limits FROM jobq.queue_summary() ORDER BY queue $$,
    $$ VALUES ('pgtap_limited'::text, '{"partition_key": "customerId", "max_running_per_partition": 3, "max_started_per_store": 10, "store_started_per": "00:00:30", "fair": true}'::jsonb),
              ('pgtap_plain', NULL) $$,
    'queue_summary shows a viewer the limited queue''s limits and NULL for the plain one');
SELECT results_eq(
    $$ SELECT queue, limits FROM jobq.stats() ORDER BY queue $$,
    $$ SELECT queue, limits FROM jobq.queue_summary() ORDER BY queue $$,
    'stats shows a viewer the same');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
