-- Handlers per task and claims of served tasks only (issue 30).
--
-- jobq.tasks.handler: the name of the handler that runs the task, NULL for the task's own name.
-- The database holds a name only: each worker's own configuration maps names to the Go
-- functions, commands and URLs it may run, so no write to the database can make a worker run
-- something its configuration does not list. Only jobq.set_task_handler writes it (operators);
-- jobq.define_task, which runners call, never does.
--
-- jobq.tasks.operator_set: the fields of a task an operator control fixed (today 'app_enqueue'): a
-- runner's declaration of the task (jobq.define_task by a caller without jobq_operator's rights)
-- keeps their values, so a worker that declares its built-in tasks at each start no longer undoes
-- an operator's app_enqueue => true.
--
-- jobq.workers.tasks: the tasks a registered worker serves (jobq.register_worker), NULL for every
-- task (a runner of the release before). With it the engine sees a waiting job no live worker
-- serves ("not served": jobq.stats, jobq.queue_summary, jobq.queue_not_served).
--
-- jobq.stats, jobq._stats and jobq.queue_summary gain not_served columns: their results change,
-- so they are dropped here and sql/functions/60_operator.sql defines them again (readers name
-- their columns). jobq.register_worker gains an argument with a default: the old signature is
-- dropped and sql/functions/90_workers.sql defines the new one, which calls of the old shape
-- resolve to; not a breaking change.

-- +goose Up
ALTER TABLE jobq.tasks
    ADD COLUMN handler text CHECK (handler IS NULL OR (btrim(handler) <> '' AND char_length(handler) <= 100)),
    ADD COLUMN operator_set text[] NOT NULL DEFAULT '{}' CHECK (operator_set <@ ARRAY['app_enqueue']::text[]);
COMMENT ON COLUMN jobq.tasks.handler IS
    'The name of the handler that runs the task (NULL: the task''s own name). A name only: each worker''s configuration maps names to what it runs. Written by jobq.set_task_handler (operators) only.';
COMMENT ON COLUMN jobq.tasks.operator_set IS
    'The fields an operator control fixed (app_enqueue): a runner''s declaration (jobq.define_task by a caller without jobq_operator''s rights) keeps their values.';

ALTER TABLE jobq.workers ADD COLUMN tasks text[];
COMMENT ON COLUMN jobq.workers.tasks IS
    'The tasks the worker serves (has a handler for), as it registered them; NULL: every task (a runner of a release before issue 30).';

DROP FUNCTION IF EXISTS jobq.stats(text,uuid);
DROP FUNCTION IF EXISTS jobq._stats(text,uuid);
DROP FUNCTION IF EXISTS jobq.queue_summary(integer);
DROP FUNCTION IF EXISTS jobq.register_worker(text,text,integer,text[],integer,text);

-- +goose Down
-- The functions of this change are sql/functions' own; the files of the release before define
-- them again without it when they are applied again (migrate down forgets their checksums).
DROP FUNCTION IF EXISTS jobq.stats(text,uuid);
DROP FUNCTION IF EXISTS jobq._stats(text,uuid);
DROP FUNCTION IF EXISTS jobq.queue_summary(integer);
DROP FUNCTION IF EXISTS jobq.register_worker(text,text,integer,text[],integer,text,text[]);
DROP FUNCTION IF EXISTS jobq.set_task_handler(text,text);
DROP FUNCTION IF EXISTS jobq.served_tasks(text[]);
DROP FUNCTION IF EXISTS jobq.queue_not_served(text[]);
DROP FUNCTION IF EXISTS jobq._not_served(text,timestamptz,integer);
DROP FUNCTION IF EXISTS jobq._served_by_live_workers(timestamptz);
ALTER TABLE jobq.workers DROP COLUMN tasks;
ALTER TABLE jobq.tasks DROP COLUMN operator_set, DROP COLUMN handler;
