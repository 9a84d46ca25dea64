-- The security boundary of issue 30: a task's handler name selects among what each worker's own
-- configuration lists, and only operators (and the owner) may change it. Each runtime role
-- (worker_runtime, jobq_app, jobq_app_gate, jobq_viewer, jobq_dashboard) is tried in turn: it may
-- not call jobq.set_task_handler, UPDATE, INSERT into or DELETE from jobq.tasks, and
-- worker_runtime's own jobq.define_task (runners declare their tasks) leaves the name as it was.
BEGIN;
SELECT plan(23);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-mail');
SELECT jobq.set_task_handler('pgtap-mail', 'mailer');

CREATE TEMP TABLE roles (name text PRIMARY KEY);
INSERT INTO roles VALUES ('worker_runtime'), ('jobq_app'), ('jobq_app_gate'), ('jobq_viewer'), ('jobq_dashboard');
GRANT SELECT ON roles TO PUBLIC;

-- Each attempt as role r, its SQLSTATE (or 'no error').
CREATE FUNCTION pg_temp.attempt(r text, stmt text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format('SET LOCAL ROLE %I', r);
    BEGIN
        EXECUTE stmt;
    EXCEPTION WHEN OTHERS THEN
        RESET ROLE;
        RETURN SQLSTATE;
    END;
    RESET ROLE;
    RETURN 'no error';
END
$$;

SELECT is(pg_temp.attempt(r.name, $$ SELECT jobq.set_task_handler('pgtap-mail', 'rm-rf') $$), '42501',
          format('%s may not call set_task_handler', r.name))
FROM roles r ORDER BY r.name;
SELECT is(pg_temp.attempt(r.name, $$ UPDATE jobq.tasks SET handler = 'rm-rf' WHERE name = 'pgtap-mail' $$), '42501',
          format('%s may not UPDATE jobq.tasks', r.name))
FROM roles r ORDER BY r.name;
SELECT is(pg_temp.attempt(r.name, $$ DELETE FROM jobq.tasks WHERE name = 'pgtap-mail' $$), '42501',
          format('%s may not DELETE from jobq.tasks', r.name))
FROM roles r ORDER BY r.name;
SELECT is(pg_temp.attempt(r.name, $$ INSERT INTO jobq.tasks (name, handler) VALUES ('pgtap-other', 'rm-rf') $$), '42501',
          format('%s may not INSERT into jobq.tasks', r.name))
FROM roles r ORDER BY r.name;

-- worker_runtime declares tasks (runners do, at each start): it cannot name a handler that way.
SELECT is(pg_temp.attempt('worker_runtime', $$ SELECT jobq.define_task('pgtap-mail', description => 'redeclared') $$), 'no error',
          'worker_runtime may declare the task again');
SELECT is((SELECT handler FROM jobq.tasks WHERE name = 'pgtap-mail'), 'mailer', 'its declaration left the handler name as the operator set it');

SELECT is((SELECT count(*) FROM jobq.tasks WHERE name = 'pgtap-mail' AND handler = 'mailer'), 1::bigint,
          'after every attempt the task still names handler mailer');

SELECT * FROM finish();
ROLLBACK;
