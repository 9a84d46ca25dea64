-- jobq_viewer: a role that reads what operators read and changes nothing (bootstrap creates it,
-- and jobq_dashboard, the dashboard's read-only login, as its only member). Its row policies and
-- function grants live with the others in sql/functions/; here are its table grants, and the
-- indexes the dashboard walks on tables of millions of rows.

-- +goose Up
GRANT USAGE ON SCHEMA jobq TO jobq_viewer;
GRANT SELECT ON jobq.jobs, jobq.job_history, jobq.job_attempts, jobq.audit_log, jobq.tasks,
    jobq.settings, jobq.error_codes, jobq.schedules, jobq.schedule_runs, jobq.workers, jobq.leader,
    jobq.queues, jobq.store_bindings, jobq.function_files, jobq.breaking_changes TO jobq_viewer;
-- +goose StatementBegin
DO $$
BEGIN
    IF to_regclass('jobq.goose_db_version') IS NOT NULL THEN
        GRANT SELECT ON jobq.goose_db_version TO jobq_viewer;
    END IF;
END
$$;
-- +goose StatementEnd
CREATE INDEX job_history_dead_id_idx ON jobq.job_history (id) WHERE state = 'dead';
-- Counts the jobs waiting to retry per queue without reading the others (jobq.queue_summary); it
-- holds only retry_pending rows, so claims and completions of other jobs never write it.
CREATE INDEX jobs_retry_idx ON jobq.jobs (queue, run_at) WHERE state = 'retry_pending';
CREATE INDEX audit_log_at_idx ON jobq.audit_log USING brin (at);

-- +goose Down
DROP INDEX jobq.audit_log_at_idx;
DROP INDEX jobq.jobs_retry_idx;
DROP INDEX jobq.job_history_dead_id_idx;
REVOKE SELECT ON jobq.jobs, jobq.job_history, jobq.job_attempts, jobq.audit_log, jobq.tasks,
    jobq.settings, jobq.error_codes, jobq.schedules, jobq.schedule_runs, jobq.workers, jobq.leader,
    jobq.queues, jobq.store_bindings, jobq.function_files, jobq.breaking_changes FROM jobq_viewer;
-- +goose StatementBegin
DO $$
BEGIN
    IF to_regclass('jobq.goose_db_version') IS NOT NULL THEN
        REVOKE SELECT ON jobq.goose_db_version FROM jobq_viewer;
    END IF;
END
$$;
-- +goose StatementEnd
REVOKE USAGE ON SCHEMA jobq FROM jobq_viewer;
