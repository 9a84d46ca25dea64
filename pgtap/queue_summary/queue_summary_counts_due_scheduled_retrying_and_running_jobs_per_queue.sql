-- jobq.queue_summary(): one row per known queue with its due, scheduled, retrying and running
-- jobs across every store, the oldest due job's run_at and the pause; exact below the cap.
BEGIN;
SELECT plan(5);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-t');
INSERT INTO jobq.jobs (task, queue, store_id, run_at, state, max_attempts, priority) VALUES
    ('pgtap-t', 'pgtap_qs', NULL, now() - interval '10 minutes', 'queued', 3, 5),
    ('pgtap-t', 'pgtap_qs', 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', now() - interval '3 minutes', 'queued', 3, 0),
    ('pgtap-t', 'pgtap_qs', 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb', now() + interval '1 hour', 'queued', 3, 0),
    ('pgtap-t', 'pgtap_qs', NULL, now() - interval '20 minutes', 'retry_pending', 3, 9),
    ('pgtap-t', 'pgtap_qs', NULL, now() + interval '5 minutes', 'retry_pending', 3, 0),
    ('pgtap-t', 'pgtap_other', NULL, now() + interval '1 day', 'queued', 3, 0);
INSERT INTO jobq.jobs (task, queue, run_at, state, max_attempts, locked_by, lease_token, claimed_at, lease_expires_at)
VALUES ('pgtap-t', 'pgtap_qs', now() - interval '1 minute', 'running', 3, 'pgtap-w', gen_random_uuid(), now(), now() + interval '5 minutes');
INSERT INTO jobq.queues (name, paused, paused_at, paused_by) VALUES ('pgtap_idle', true, now(), 'pgtap-ann');

SELECT results_eq(
    $$ SELECT queue, due, scheduled, retry_pending, running FROM jobq.queue_summary() WHERE queue LIKE 'pgtap%' $$,
    $$ VALUES ('pgtap_idle', 0::bigint, 0::bigint, 0::bigint, 0::bigint),
              ('pgtap_other', 0::bigint, 1::bigint, 0::bigint, 0::bigint),
              ('pgtap_qs', 3::bigint, 2::bigint, 2::bigint, 1::bigint) $$,
    'queue_summary counts due (queued and retrying), scheduled, retrying and running jobs of every store, per queue by name, and lists a paused queue without jobs');
SELECT is((SELECT oldest_due_at FROM jobq.queue_summary() WHERE queue = 'pgtap_qs'),
          (SELECT min(run_at) FROM jobq.jobs WHERE queue = 'pgtap_qs' AND state IN ('queued', 'retry_pending') AND run_at <= now()),
          'oldest_due_at is the run_at of the oldest due job whatever its priority');
SELECT is((SELECT oldest_due_at FROM jobq.queue_summary() WHERE queue = 'pgtap_other'), NULL,
          'oldest_due_at is NULL when no job of the queue is due');
SELECT results_eq($$ SELECT paused, paused_by FROM jobq.queue_summary() WHERE queue = 'pgtap_idle' $$,
                  $$ VALUES (true, 'pgtap-ann'::text) $$, 'a paused queue says so and by whom');
SELECT results_eq($$ SELECT paused FROM jobq.queue_summary() WHERE queue = 'pgtap_qs' $$,
                  $$ VALUES (false) $$, 'a queue never paused is not paused');

SELECT * FROM finish();
ROLLBACK;
