-- Batches (issue 35, item 3): a group of jobs enqueued together or over time, with callback jobs
-- enqueued exactly once when the batch settles (sealed, and every one of its jobs ended).
--
--   jobq.batches            one row per batch: its store (NULL: a system batch), the callbacks as
--                           job specs (on_success: every job succeeded; on_complete: every job
--                           ended, whatever the outcome; on_discard: at least one job dead or
--                           canceled), its counts (total added; succeeded, dead, canceled ended),
--                           when it was sealed and settled, the callback jobs enqueued at the
--                           settle and, when a callback could not be enqueued, why; a settled
--                           batch is pruned with the history (history_retention). The counts are
--                           kept by the statement-level trigger jobq_batches_count on
--                           jobq.job_history (sql/functions/87_batches.sql), so no path that ends
--                           a job can forget them. Row security as jobq.jobs.
--   jobq.jobs.batch_id,
--   jobq.job_history.batch_id  the batch a job was added to (jobq.batch_enqueue), kept with the
--                           finished job so the trigger reads it from the history row alone.
--                           No foreign key: a job's insert and end pay no probe of jobq.batches.
--
-- Errors JQ720-JQ723: the catalogue rows below and docs/limits.md.

-- +goose Up
CREATE TABLE jobq.batches (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    store_id         uuid,
    description      text CHECK (char_length(description) <= 1000),
    on_success       jsonb CHECK (jsonb_typeof(on_success) = 'object'),
    on_complete      jsonb CHECK (jsonb_typeof(on_complete) = 'object'),
    on_discard       jsonb CHECK (jsonb_typeof(on_discard) = 'object'),
    total            bigint NOT NULL DEFAULT 0,
    succeeded        bigint NOT NULL DEFAULT 0,
    dead             bigint NOT NULL DEFAULT 0,
    canceled         bigint NOT NULL DEFAULT 0,
    created_at       timestamptz NOT NULL DEFAULT now(),
    sealed_at        timestamptz,
    settled_at       timestamptz,
    callback_job_ids bigint[] NOT NULL DEFAULT '{}',
    callback_error   text CHECK (char_length(callback_error) <= 10000),
    CHECK (succeeded >= 0 AND dead >= 0 AND canceled >= 0 AND succeeded + dead + canceled <= total),
    CHECK (settled_at IS NULL OR (sealed_at IS NOT NULL AND succeeded + dead + canceled = total))
);
COMMENT ON TABLE jobq.batches IS
    'Batches of jobs (jobq.create_batch, jobq.batch_enqueue, jobq.seal_batch): counts kept by the trigger jobq_batches_count on jobq.job_history; the callbacks are enqueued once, when the batch is sealed and all its jobs ended (settled_at).';
COMMENT ON COLUMN jobq.batches.total IS 'Jobs added to the batch (jobq.batch_enqueue).';
COMMENT ON COLUMN jobq.batches.canceled IS 'Jobs of the batch that ended canceled, or were deleted live (jobq.delete_job).';
COMMENT ON COLUMN jobq.batches.callback_job_ids IS 'The callback jobs enqueued when the batch settled, in the order on_success, on_complete, on_discard.';
COMMENT ON COLUMN jobq.batches.callback_error IS 'Why a callback could not be enqueued at the settle (e.g. its task was deleted since): the settle and the completion that caused it go on.';
CREATE INDEX batches_store_idx ON jobq.batches (store_id, id);
-- Retention: jobq.prune_history deletes settled batches past history_retention.
CREATE INDEX batches_settled_idx ON jobq.batches (settled_at) WHERE settled_at IS NOT NULL;

ALTER TABLE jobq.jobs ADD COLUMN batch_id bigint;
COMMENT ON COLUMN jobq.jobs.batch_id IS 'The batch the job belongs to (jobq.batch_enqueue), NULL for none.';
CREATE INDEX jobs_batch_idx ON jobq.jobs (batch_id) WHERE batch_id IS NOT NULL;
ALTER TABLE jobq.job_history ADD COLUMN batch_id bigint;
COMMENT ON COLUMN jobq.job_history.batch_id IS 'The finished job''s jobq.jobs.batch_id.';
CREATE INDEX job_history_batch_idx ON jobq.job_history (batch_id) WHERE batch_id IS NOT NULL;

ALTER TABLE jobq.batches ENABLE ROW LEVEL SECURITY;
ALTER TABLE jobq.batches FORCE ROW LEVEL SECURITY;
GRANT SELECT ON jobq.batches TO jobq_app, jobq_operator, jobq_viewer;
GRANT SELECT, INSERT, UPDATE ON jobq.batches TO jobq_app_gate;
GRANT USAGE ON SEQUENCE jobq.batches_id_seq TO jobq_app_gate;

INSERT INTO jobq.error_codes (code, sqlstate, meaning, hint) VALUES
    ('JOB.BATCH_NOT_FOUND', 'JQ720',
     'No batch has this id that the caller may use (another store''s batch is not found either).',
     'SELECT * FROM jobq.batch_list() lists the batches you may see; set app.current_store_id to the batch''s store.'),
    ('JOB.BATCH_SEALED', 'JQ721',
     'The batch is sealed: no job may be added to it.',
     'Create a new batch (jobq.create_batch) for more work; a sealed batch settles when its jobs have ended.'),
    ('JOB.BATCH_CALLBACK_INVALID', 'JQ722',
     'A batch callback is not a job spec that could be enqueued in the batch''s store (not an object, an unknown field or task, a payload its task refuses).',
     'Give each callback as an object with the fields of an enqueue_many element (task, payload, queue, priority, ...), of a task of the batch''s scope.'),
    ('JOB.BATCH_STORE_MISMATCH', 'JQ723',
     'A job added to a batch belongs to another store than the batch (or is a system job of a store''s batch, or the reverse).',
     'Add to a store''s batch only jobs of that store; system jobs go into system batches.');

-- +goose Down
DELETE FROM jobq.error_codes WHERE code IN ('JOB.BATCH_NOT_FOUND', 'JOB.BATCH_SEALED', 'JOB.BATCH_CALLBACK_INVALID', 'JOB.BATCH_STORE_MISMATCH');
-- The batch functions are sql/functions/87_batches.sql's; the files of the release before do not
-- define them, so they go here (migrate down forgets them), the trigger first.
DROP TRIGGER IF EXISTS jobq_batches_count ON jobq.job_history;
DROP FUNCTION IF EXISTS jobq._batches_count();
DROP FUNCTION IF EXISTS jobq._batch_ended(bigint[],text[]);
DROP FUNCTION IF EXISTS jobq._settle_batches(bigint[]);
DROP FUNCTION IF EXISTS jobq.batch_status(bigint);
DROP FUNCTION IF EXISTS jobq.batch_list(uuid,text,bigint,integer,bigint,bigint);
DROP FUNCTION IF EXISTS jobq.seal_batch(bigint);
DROP FUNCTION IF EXISTS jobq.batch_enqueue(bigint,jsonb);
DROP FUNCTION IF EXISTS jobq._lock_batch(bigint);
DROP FUNCTION IF EXISTS jobq.create_batch(jsonb,jsonb,jsonb,uuid,text,jsonb,boolean);
DROP FUNCTION IF EXISTS jobq._batch_callback_job(jsonb,jobq.batches);
DROP FUNCTION IF EXISTS jobq._batch_callback_fields();
ALTER TABLE jobq.job_history DROP COLUMN batch_id;
ALTER TABLE jobq.jobs DROP COLUMN batch_id;
DROP TABLE jobq.batches;
