-- jobq.served_tasks(handlers): the declared tasks whose handler name (jobq.tasks.handler, else the
-- task's own name) is one of handlers, by task name, with that name. A worker calls it (as
-- worker_runtime) with the names its configuration defines: a name no task uses gives nothing,
-- and a task whose handler an operator renamed is served by the new name only.
BEGIN;
SELECT plan(4);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('send-welcome-email', 'send-receipt', 'resize-image');
SELECT jobq.set_task_handler('send-receipt', 'mailer');
SELECT jobq.set_task_handler('send-welcome-email', 'mailer');

SET LOCAL ROLE worker_runtime;
SELECT results_eq($$ SELECT task, handler FROM jobq.served_tasks(ARRAY['mailer', 'nobody-uses-this']) $$,
    $$ VALUES ('send-receipt', 'mailer'), ('send-welcome-email', 'mailer') $$,
    'the tasks named to handler mailer, by task name');
SELECT results_eq($$ SELECT task, handler FROM jobq.served_tasks(ARRAY['resize-image']) $$,
    $$ VALUES ('resize-image', 'resize-image') $$,
    'a task without a handler name is served by its own name');
SELECT is_empty($$ SELECT * FROM jobq.served_tasks(ARRAY['send-receipt']) $$,
    'a task whose handler was renamed is not served by its own name any more');
RESET ROLE;

SET LOCAL ROLE jobq_operator;
SELECT results_eq($$ SELECT count(*) FROM jobq.served_tasks(ARRAY['mailer', 'resize-image']) $$,
    $$ VALUES (3::bigint) $$, 'operators may ask too');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
