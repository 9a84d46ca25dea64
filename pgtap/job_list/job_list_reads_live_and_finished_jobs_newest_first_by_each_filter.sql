-- jobq.job_list() reads live and finished jobs, newest id first, each filter narrowing it:
-- queue, task, state, store, key, since, before (the next page), id; at most max_rows rows;
-- an application reads its store's jobs only (row-level security).
BEGIN;
SELECT plan(8);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-a', 'pgtap-b');
INSERT INTO jobq.jobs (id, task, queue, store_id, job_key, max_attempts, updated_at) OVERRIDING SYSTEM VALUE VALUES
    (990011, 'pgtap-a', 'pgtap_q1', 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', 'k1', 3, now() - interval '2 days'),
    (990012, 'pgtap-b', 'pgtap_q2', 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb', NULL, 3, now());
INSERT INTO jobq.job_history (id, task, queue, payload, store_id, priority, run_at, state, attempt, max_attempts, created_at, updated_at, finished_at)
VALUES (990001, 'pgtap-a', 'pgtap_q1', '{}', 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', 0, now(), 'dead', 1, 1, now(), now(), now());

SELECT results_eq($$ SELECT id, state, finished_at IS NOT NULL FROM jobq.job_list() $$,
    $$ VALUES (990012::bigint, 'queued'::text, false), (990011, 'queued', false), (990001, 'dead', true) $$,
    'live and finished jobs, newest id first; finished_at only for the finished');
SELECT results_eq($$ SELECT id FROM jobq.job_list(queue => 'pgtap_q1', state => 'dead') $$, $$ VALUES (990001::bigint) $$,
    'queue and state narrow it');
SELECT results_eq($$ SELECT id FROM jobq.job_list(task => 'pgtap-a', job_key => 'k1') $$, $$ VALUES (990011::bigint) $$,
    'task and key narrow it');
SELECT results_eq($$ SELECT id FROM jobq.job_list(store_id => 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb') $$, $$ VALUES (990012::bigint) $$,
    'store narrows it');
SELECT results_eq($$ SELECT id FROM jobq.job_list(since => now() - interval '1 day') $$, $$ VALUES (990012::bigint), (990001) $$,
    'since keeps the jobs changed or finished since');
SELECT results_eq($$ SELECT id FROM jobq.job_list(before => 990012, max_rows => 1) $$, $$ VALUES (990011::bigint) $$,
    'before and max_rows page through');
SELECT results_eq($$ SELECT id FROM jobq.job_list(id => 990001) $$, $$ VALUES (990001::bigint) $$, 'id picks one job');

SET LOCAL ROLE jobq_app;
SET LOCAL app.current_store_id = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
SELECT results_eq($$ SELECT id FROM jobq.job_list() $$, $$ VALUES (990011::bigint), (990001) $$,
    'an application reads its store''s jobs only');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
