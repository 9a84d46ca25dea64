-- Dependencies and sequences (issue 35, items 1 and 4). See docs/dependencies.md.
--
--   jobq.jobs.state             gains 'blocked': the job waits for its parents or for the job ahead
--                               of it in its sequence. A blocked job is outside jobs_claim_idx and
--                               jobs_fair_idx (their predicate is state IN ('queued',
--                               'retry_pending'), jobq._rule_waiting): no claim reads it.
--   jobq.jobs.depends_on        the job's parents as enqueued (ids), kept for its lifetime and
--                               into jobq.job_history, for `jobq jobs show` and the dashboard's
--                               graph; NULL for a job without parents. Which edges still wait is
--                               jobq.job_dependencies.
--   jobq.jobs.on_parent_failure 'cancel' (default) or 'run': what a dead or canceled parent does to
--                               the job.
--   jobq.jobs.sequence_key      the job runs after every earlier job of its (store, key), one at a
--                               time in enqueue order (id order: the key's advisory lock is taken
--                               before the ids are drawn).
--   jobq.jobs.on_sequence_failure 'hold' (default) or 'continue': whether the job dying holds its
--                               sequence (jobq.sequence_holds) until an operator requeues or deletes
--                               it.
--   jobq.jobs.has_dependents    true once a job depends on it: the trigger on jobq.job_history
--                               returns at once (one scan of the ended rows, no index probe) when no
--                               ended row has dependents, parents or a sequence.
--   jobq.job_dependencies       the edges still waiting: (child, parent, store). An edge is deleted
--                               when its parent succeeds (or ends for good and the child runs
--                               anyway) and when its child ends; the child whose last edge goes is
--                               released, once (jobq._settle_ended).
--   jobq.sequence_holds         per (store, sequence key) the dead job that holds it ('hold'):
--                               deleted when an operator requeues (retry_job, requeue_dead) or
--                               deletes that job.
--   jobq_history_workflow       the statement-level AFTER INSERT trigger on jobq.job_history that
--                               settles what ended jobs release or cancel.
--
-- Error codes JQ700..JQ704. Not a breaking change: jobq.enqueue gains arguments with defaults.

-- +goose Up
ALTER TABLE jobq.jobs DROP CONSTRAINT jobs_state_check;
ALTER TABLE jobq.jobs ADD CONSTRAINT jobs_state_check CHECK (state IN ('queued', 'retry_pending', 'running', 'blocked'));
COMMENT ON TABLE jobq.jobs IS 'Live jobs (queued, retry_pending, running, blocked). Written only through jobq functions; finished jobs move to jobq.job_history.';

ALTER TABLE jobq.jobs
    ADD COLUMN depends_on bigint[] CHECK (cardinality(depends_on) BETWEEN 1 AND 10000),
    ADD COLUMN on_parent_failure text CHECK (on_parent_failure IN ('cancel', 'run')),
    ADD COLUMN sequence_key text CHECK (sequence_key <> '' AND char_length(sequence_key) <= 500),
    ADD COLUMN on_sequence_failure text CHECK (on_sequence_failure IN ('hold', 'continue')),
    ADD COLUMN has_dependents boolean NOT NULL DEFAULT false;
COMMENT ON COLUMN jobq.jobs.depends_on IS 'The parents the job was enqueued with (at most 10000), kept for its lifetime; jobq.job_dependencies holds the edges still waiting. NULL: no parent.';
COMMENT ON COLUMN jobq.jobs.on_parent_failure IS 'cancel (default) or run: what a dead or canceled parent does to the job. NULL without parents.';
COMMENT ON COLUMN jobq.jobs.sequence_key IS 'The job runs after every earlier job of its store and key, one at a time in enqueue order (at most 500 characters). NULL: no sequence.';
COMMENT ON COLUMN jobq.jobs.on_sequence_failure IS 'hold (default) or continue: whether the job dying holds its sequence (jobq.sequence_holds). NULL without a sequence.';
COMMENT ON COLUMN jobq.jobs.has_dependents IS 'Whether a job was enqueued depending on this one: the workflow trigger on jobq.job_history looks for edges only then.';

ALTER TABLE jobq.job_history
    ADD COLUMN depends_on bigint[],
    ADD COLUMN on_parent_failure text,
    ADD COLUMN sequence_key text,
    ADD COLUMN on_sequence_failure text,
    ADD COLUMN has_dependents boolean NOT NULL DEFAULT false;
COMMENT ON COLUMN jobq.job_history.depends_on IS 'The finished job''s jobq.jobs.depends_on.';
COMMENT ON COLUMN jobq.job_history.on_parent_failure IS 'The finished job''s jobq.jobs.on_parent_failure.';
COMMENT ON COLUMN jobq.job_history.sequence_key IS 'The finished job''s jobq.jobs.sequence_key.';
COMMENT ON COLUMN jobq.job_history.on_sequence_failure IS 'The finished job''s jobq.jobs.on_sequence_failure.';
COMMENT ON COLUMN jobq.job_history.has_dependents IS 'The finished job''s jobq.jobs.has_dependents.';

-- The head of a sequence: its live job with the lowest id.
CREATE INDEX jobs_sequence_idx ON jobq.jobs ((coalesce(store_id, '00000000-0000-0000-0000-000000000000'::uuid)), sequence_key, id)
    WHERE sequence_key IS NOT NULL;
-- The live dependents of a job, for jobq jobs show (edges are gone once satisfied).
CREATE INDEX jobs_depends_on_idx ON jobq.jobs USING gin (depends_on) WHERE depends_on IS NOT NULL;
CREATE INDEX job_history_depends_on_idx ON jobq.job_history USING gin (depends_on) WHERE depends_on IS NOT NULL;

CREATE TABLE jobq.job_dependencies (
    child_id  bigint NOT NULL,
    parent_id bigint NOT NULL CHECK (parent_id <> child_id),
    store_id  uuid,
    PRIMARY KEY (child_id, parent_id)
);
COMMENT ON TABLE jobq.job_dependencies IS 'The dependency edges still waiting: child waits for parent (same store: store_id). Written by jobq.enqueue / enqueue_many (jobq._attach_workflow) and the workflow trigger (jobq._settle_ended); a child whose last edge goes is released once.';
CREATE INDEX job_dependencies_parent_idx ON jobq.job_dependencies (parent_id);
ALTER TABLE jobq.job_dependencies ENABLE ROW LEVEL SECURITY;
ALTER TABLE jobq.job_dependencies FORCE ROW LEVEL SECURITY;

CREATE TABLE jobq.sequence_holds (
    store_id     uuid,
    sequence_key text NOT NULL,
    job_id       bigint NOT NULL,
    held_at      timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE jobq.sequence_holds IS 'Sequences held by a dead job enqueued with on_sequence_failure hold: no later job of the (store, key) is released until an operator requeues (retry_job, requeue_dead) or deletes (delete_job) that job.';
CREATE UNIQUE INDEX sequence_holds_key_idx
    ON jobq.sequence_holds ((coalesce(store_id, '00000000-0000-0000-0000-000000000000'::uuid)), sequence_key);
CREATE INDEX sequence_holds_job_idx ON jobq.sequence_holds (job_id);
ALTER TABLE jobq.sequence_holds ENABLE ROW LEVEL SECURITY;
ALTER TABLE jobq.sequence_holds FORCE ROW LEVEL SECURITY;

GRANT SELECT ON jobq.job_dependencies, jobq.sequence_holds TO jobq_app, jobq_operator, jobq_viewer;

INSERT INTO jobq.error_codes (code, sqlstate, meaning, hint) VALUES
    ('JOB.DEPENDENCY_NOT_FOUND', 'JQ700',
     'A dependency names no job of the new job''s store: unknown, pruned from history, another store''s, or a system job for a store''s job (and the other way round).',
     'Depend only on jobs of the same store that are live or finished in jobq.job_history.'),
    ('JOB.DEPENDENCY_CYCLE', 'JQ701',
     'A job cannot depend on itself nor on a job enqueued by the same call after it.',
     'In enqueue_many, name earlier elements with "ref" and depend on them with "depends_on_refs".'),
    ('JOB.TOO_MANY_DEPENDENCIES', 'JQ702',
     'A job has more than 10000 dependencies.',
     'Split the fan-in: depend on a few jobs that each depend on part of the parents.'),
    ('JOB.WORKFLOW_KEYED', 'JQ703',
     'A job with a job_key cannot have dependencies or a sequence key.',
     'Drop the job_key: merging into an existing job would change a workflow already running.'),
    ('JOB.UNKNOWN_REF', 'JQ704',
     'depends_on_refs names no earlier element of the same enqueue_many call, or two elements share a ref.',
     'Give each element a unique "ref" and depend only on refs of elements before it.');

-- +goose Down
DELETE FROM jobq.error_codes WHERE sqlstate BETWEEN 'JQ700' AND 'JQ709';
DROP TRIGGER IF EXISTS jobq_history_workflow ON jobq.job_history;
DROP FUNCTION IF EXISTS jobq._workflow_on_history();
DROP FUNCTION IF EXISTS jobq._settle_ended(jobq.job_history[]);
DROP TABLE jobq.sequence_holds;
DROP TABLE jobq.job_dependencies;
DROP INDEX jobq.job_history_depends_on_idx;
DROP INDEX jobq.jobs_depends_on_idx;
DROP INDEX jobq.jobs_sequence_idx;
ALTER TABLE jobq.job_history DROP COLUMN depends_on, DROP COLUMN on_parent_failure, DROP COLUMN sequence_key,
    DROP COLUMN on_sequence_failure, DROP COLUMN has_dependents;
DELETE FROM jobq.jobs WHERE state = 'blocked';
ALTER TABLE jobq.jobs DROP COLUMN depends_on, DROP COLUMN on_parent_failure, DROP COLUMN sequence_key,
    DROP COLUMN on_sequence_failure, DROP COLUMN has_dependents;
ALTER TABLE jobq.jobs DROP CONSTRAINT jobs_state_check;
ALTER TABLE jobq.jobs ADD CONSTRAINT jobs_state_check CHECK (state IN ('queued', 'retry_pending', 'running'));
COMMENT ON TABLE jobq.jobs IS 'Live jobs (queued, retry_pending, running). Written only through jobq functions; finished jobs move to jobq.job_history.';
