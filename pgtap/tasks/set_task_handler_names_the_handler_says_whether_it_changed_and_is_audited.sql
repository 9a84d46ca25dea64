-- jobq.set_task_handler (operators) names the handler of a declared task: the task's own name
-- until then (NULL), the given name after, NULL again goes back to the task's name. It returns
-- whether the name changed, audits each change (task, handler, previous) and nothing else, and a
-- later declaration of the task (jobq.define_task, as runners make at each start) keeps it.
BEGIN;
SELECT plan(9);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('send-welcome-email');

SELECT is((SELECT handler FROM jobq.tasks WHERE name = 'send-welcome-email'), NULL, 'a declared task has no handler name: its own name');

SET LOCAL ROLE jobq_operator;
SELECT is(jobq.set_task_handler('send-welcome-email', 'mailer'), true, 'naming a handler changes the task');
SELECT is(jobq.set_task_handler('send-welcome-email', 'mailer'), false, 'naming the same handler again changes nothing');
RESET ROLE;
SELECT is((SELECT handler FROM jobq.tasks WHERE name = 'send-welcome-email'), 'mailer', 'the task names handler mailer');

-- A runner declares the task again at its start: the handler name stays.
SET LOCAL ROLE worker_runtime;
SELECT jobq.define_task('send-welcome-email', description => 'declared again by a runner');
RESET ROLE;
SELECT is((SELECT handler FROM jobq.tasks WHERE name = 'send-welcome-email'), 'mailer', 'a runner''s declaration keeps the handler name');

SET LOCAL ROLE jobq_operator;
SELECT is(jobq.set_task_handler('send-welcome-email', NULL), true, 'NULL goes back to the task''s own name');
RESET ROLE;
SELECT is((SELECT handler FROM jobq.tasks WHERE name = 'send-welcome-email'), NULL, 'the handler name is the task''s own again');

SELECT results_eq(
    $$ SELECT action, detail FROM jobq.audit_log ORDER BY id $$,
    $$ VALUES ('set_task_handler', '{"task": "send-welcome-email", "handler": "mailer", "previous": null}'::jsonb),
              ('set_task_handler', '{"task": "send-welcome-email", "handler": null, "previous": "mailer"}'::jsonb) $$,
    'each change is audited with the task, the handler and the previous one; a call that changes nothing is not');
SELECT is((SELECT actor FROM jobq.audit_log ORDER BY id LIMIT 1), session_user::text, 'the audit row names the login');

SELECT * FROM finish();
ROLLBACK;
