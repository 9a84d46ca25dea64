-- jobq_viewer (the dashboard's read-only login's role) reads what operators read: every store's
-- live and finished jobs and attempts, the system jobs, and jobq.stats() over all of them.
BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-t');
INSERT INTO jobq.jobs (task, queue, store_id, max_attempts) VALUES
    ('pgtap-t', 'pgtap_v', 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', 3),
    ('pgtap-t', 'pgtap_v', 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb', 3),
    ('pgtap-t', 'pgtap_v', NULL, 3);
INSERT INTO jobq.job_history (id, task, queue, payload, store_id, priority, run_at, state, attempt, max_attempts, created_at, updated_at, finished_at)
VALUES (990001, 'pgtap-t', 'pgtap_v', '{}', 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', 0, now(), 'dead', 1, 1, now(), now(), now()),
       (990002, 'pgtap-t', 'pgtap_v', '{}', 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb', 0, now(), 'succeeded', 1, 1, now(), now(), now());
INSERT INTO jobq.job_attempts (job_id, attempt, store_id, task, queue, ended_at, reason, error)
VALUES (990001, 1, 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', 'pgtap-t', 'pgtap_v', now(), 'error', 'boom');

SET LOCAL ROLE jobq_viewer;
SELECT is((SELECT count(*) FROM jobq.jobs WHERE queue = 'pgtap_v'), 3::bigint,
          'jobq_viewer reads the live jobs of every store and the system job');
SELECT is((SELECT count(*) FROM jobq.job_history WHERE queue = 'pgtap_v'), 2::bigint,
          'jobq_viewer reads the finished jobs of every store');
SELECT is((SELECT count(*) FROM jobq.job_attempts WHERE queue = 'pgtap_v'), 1::bigint,
          'jobq_viewer reads the attempts of every store');
SELECT results_eq($$ SELECT store_id, queued, dead_last_hour, succeeded_last_hour FROM jobq.stats('pgtap_v') $$,
                  $$ VALUES (NULL::uuid, 3::bigint, 1::bigint, 1::bigint) $$,
                  'jobq.stats() counts every store for jobq_viewer, as for an operator');
SELECT is((SELECT queued FROM jobq.queue_states() WHERE queue = 'pgtap_v'), 3::bigint,
          'jobq_viewer reads jobq.queue_states()');
SELECT isnt_empty($$ SELECT * FROM jobq.audit_log UNION ALL SELECT NULL, NULL, NULL, NULL, NULL, NULL $$,
                  'jobq_viewer reads the audit log');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
