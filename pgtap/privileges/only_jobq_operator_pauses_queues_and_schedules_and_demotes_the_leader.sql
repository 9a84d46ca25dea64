-- The operator's controls are jobq_operator's alone: pause_queue, resume_queue, queue_states,
-- pause_schedule, resume_schedule, run_schedule_now and demote_leader. Applications and runners
-- (and their gate) cannot execute them; as jobq_operator each one works.
BEGIN;
SELECT plan(31);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-hourly');
SELECT FROM jobq.schedule('pgtap-hourly', '0 * * * *', 'pgtap-hourly');

CREATE TEMP TABLE controls (name text, args text[]);
INSERT INTO controls VALUES ('pause_queue', ARRAY['text']), ('resume_queue', ARRAY['text']), ('queue_states', ARRAY[]::text[]),
    ('pause_schedule', ARRAY['text']), ('resume_schedule', ARRAY['text']), ('run_schedule_now', ARRAY['text']),
    ('demote_leader', ARRAY[]::text[]);

SELECT function_privs_are('jobq', c.name, c.args, r.role, CASE WHEN r.role = 'jobq_operator' THEN ARRAY['EXECUTE'] ELSE ARRAY[]::text[] END,
                          format('%s %s execute %s', r.role, CASE WHEN r.role = 'jobq_operator' THEN 'can' ELSE 'cannot' END, c.name))
FROM controls c CROSS JOIN (VALUES ('jobq_operator'), ('jobq_app'), ('worker_runtime')) AS r(role)
ORDER BY c.name, r.role;

SET LOCAL ROLE jobq_operator;
SELECT is(jobq.pause_queue('pgtap_q'), true, 'as jobq_operator, pause_queue pauses');
SELECT is(jobq.resume_queue('pgtap_q'), true, 'as jobq_operator, resume_queue resumes');
SELECT is(jobq.pause_schedule('pgtap-hourly'), true, 'as jobq_operator, pause_schedule pauses');
SELECT is(jobq.resume_schedule('pgtap-hourly'), true, 'as jobq_operator, resume_schedule resumes');
SELECT isnt(jobq.run_schedule_now('pgtap-hourly'), NULL, 'as jobq_operator, run_schedule_now enqueues');
SELECT is(jobq.demote_leader(), 1::bigint, 'as jobq_operator, demote_leader demotes');
SELECT lives_ok($$ SELECT * FROM jobq.queue_states() $$, 'as jobq_operator, queue_states answers');
SELECT throws_ok($$ UPDATE jobq.queues SET paused = false $$, '42501', 'permission denied for table queues',
                 'as jobq_operator, jobq.queues changes only through pause_queue and resume_queue (which audit)');
SELECT throws_ok($$ UPDATE jobq.leader SET holder = NULL $$, '42501', 'permission denied for table leader',
                 'nor does jobq.leader but through demote_leader');
SELECT is((SELECT count(*) FROM jobq.audit_log WHERE actor = session_user AND action <> 'schedule'), 6::bigint, 'each act is audited with actor session_user');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
