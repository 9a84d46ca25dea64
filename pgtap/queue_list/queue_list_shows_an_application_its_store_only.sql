-- An application (a store's staff signed in to the dashboard) reads jobq.queue_list() as it reads
-- jobq.stats(): its store's queues and jobs only, no queue known from configuration; a viewer
-- reads every queue; worker_runtime may not call it.
BEGIN;
SELECT plan(4);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-t');
INSERT INTO jobq.jobs (task, queue, store_id, max_attempts) VALUES
    ('pgtap-t', 'pgtap_a', 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', 3),
    ('pgtap-t', 'pgtap_shared', 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', 3),
    ('pgtap-t', 'pgtap_shared', 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb', 3),
    ('pgtap-t', 'pgtap_b', 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb', 3);
SELECT jobq.pause_queue('pgtap_paused');

SET LOCAL ROLE jobq_app;
SET LOCAL app.current_store_id = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
SELECT results_eq($$ SELECT queue, store_id, queued FROM jobq.queue_list() $$,
    $$ VALUES ('pgtap_a'::text, 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa'::uuid, 1::bigint),
              ('pgtap_shared', 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', 1) $$,
    'an application lists its store''s queues with its jobs only, and no queue known from configuration');
RESET ROLE;

SET LOCAL ROLE jobq_viewer;
SELECT results_eq($$ SELECT queue, queued FROM jobq.queue_list() $$,
    $$ VALUES ('pgtap_a'::text, 1::bigint), ('pgtap_b', 1), ('pgtap_paused', 0), ('pgtap_shared', 2) $$,
    'a viewer lists every queue of every store');
RESET ROLE;

SET LOCAL ROLE worker_runtime;
SELECT throws_ok($$ SELECT * FROM jobq.queue_list() $$, '42501', NULL, 'worker_runtime may not list the queues');
RESET ROLE;
SELECT ok(NOT has_function_privilege('public', 'jobq.queue_list(text,uuid)', 'EXECUTE'), 'PUBLIC may not execute it');

SELECT * FROM finish();
ROLLBACK;
