-- jobq.job_attempt_list(job_id) lists the job's failed attempts oldest first, under row-level
-- security: an application sees no attempt of another store's job.
BEGIN;
SELECT plan(3);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-t');
INSERT INTO jobq.job_attempts (job_id, attempt, store_id, task, queue, worker, ended_at, reason, error, output, log_ref) VALUES
    (990001, 2, 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb', 'pgtap-t', 'pgtap_q', 'w2', now(), 'timed_out', 'slow', 'tail', 'ref'),
    (990001, 1, 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb', 'pgtap-t', 'pgtap_q', 'w1', now() - interval '1 minute', 'error', 'boom', NULL, NULL),
    (990002, 1, 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb', 'pgtap-t', 'pgtap_q', 'w1', now(), 'error', 'other', NULL, NULL);

SELECT results_eq($$ SELECT attempt, worker, reason, error, output, log_ref FROM jobq.job_attempt_list(990001) $$,
    $$ VALUES (1, 'w1'::text, 'error'::text, 'boom'::text, NULL::text, 'workerId=w1 jobId=990001 attempt=1'::text), (2, 'w2', 'timed_out', 'slow', 'tail', 'ref') $$,
    'the job''s attempts, oldest first, with their output tail and log reference (the default for an attempt stored without one)');
SELECT is_empty($$ SELECT * FROM jobq.job_attempt_list(990003) $$, 'a job without attempts has none');

SET LOCAL ROLE jobq_app;
SET LOCAL app.current_store_id = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
SELECT is_empty($$ SELECT * FROM jobq.job_attempt_list(990001) $$, 'an application sees no attempt of another store''s job');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
