-- An application's jobq.stats() counts its store's jobs only, and shows the limits of the queues
-- it sees as an operator does: they are the queue's configuration, not another store's jobs.
BEGIN;
SELECT plan(2);

SELECT jobq_test.reset();
SELECT FROM jobq.define_task('pgtap-store-task', scope => 'store');
SELECT FROM jobq.enqueue('pgtap-store-task', store_id => 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', queue => 'pgtap_shared');
SELECT FROM jobq.enqueue('pgtap-store-task', store_id => 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb', queue => 'pgtap_shared');
SELECT FROM jobq.enqueue('pgtap-store-task', store_id => 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', queue => 'pgtap_plain');
SELECT jobq.set_store_concurrency_limit('pgtap_shared', 2);
SELECT jobq.set_fair_claiming('pgtap_shared', true);

SET LOCAL ROLE jobq_app;
SET LOCAL app.current_store_id = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
SELECT results_eq(
    $$ SELECT queue, store_id, queued, limits FROM jobq.stats() ORDER BY queue $$,
    $$ VALUES ('pgtap_plain'::text, 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa'::uuid, 1::bigint, NULL::jsonb),
              ('pgtap_shared', 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', 1, '{"max_running_per_store": 2, "fair": true}') $$,
    'the application counts its own job in each queue and sees the shared queue''s limits, NULL for the plain one');
SELECT results_eq(
    $$ SELECT limits FROM jobq.stats('pgtap_shared', 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa') $$,
    $$ VALUES ('{"max_running_per_store": 2, "fair": true}'::jsonb) $$,
    'and the same when it names the queue and its store');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
