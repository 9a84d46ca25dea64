-- jobq schema step 17: the fan-out resolves its task once.
--
-- Every job of a fan-out has the same task and the same payload but for its storeId, so the
-- task's scope, contract and defaults are checked and applied once, and the specs go straight to
-- the insert (jobq._insert_specs) instead of through the per-spec validation and resolution of
-- jobq._enqueue. Same checks, same errors, same jobs; a 10,000-store fan-out does a fraction of
-- the work.

-- +goose Up

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq._enqueue_for_stores(
    p_task text, p_payload jsonb, p_job_key_template text, p_job_key_mode text, p_run_at timestamptz, p_store_ids uuid[])
RETURNS integer
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_task jobq.tasks;
    v_problem text;
BEGIN
    SELECT * INTO v_task FROM jobq.tasks t WHERE t.name = p_task;
    IF v_task.name IS NULL THEN
        PERFORM jobq._raise('JOB.UNKNOWN_TASK', format('task %L is not declared', p_task));
    ELSIF v_task.scope <> 'store' THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', format('fan_out needs a store-scoped task; %s is a system task', p_task));
    END IF;
    IF p_payload IS NULL OR jsonb_typeof(p_payload) <> 'object' THEN
        PERFORM jobq._raise('JOB.PAYLOAD_NOT_OBJECT', 'the fan-out payload must be a JSON object');
    END IF;
    IF p_job_key_template IS NOT NULL AND position('{storeId}' IN p_job_key_template) = 0 THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT',
            format('job_key_template %L must contain {storeId}, or every store would share one key', p_job_key_template));
    END IF;
    -- Every job gets the same payload but for its storeId: the contract is checked once, on the
    -- payload with a storeId, and the task's defaults are applied here, so the 10,000 specs of a
    -- large fan-out skip the per-spec resolution of jobq._enqueue.
    v_problem := jobq.payload_problem(v_task.payload_schema,
                                      p_payload || jsonb_build_object('storeId', '00000000-0000-4000-8000-000000000000'));
    IF v_problem IS NOT NULL THEN
        PERFORM jobq._raise('JOB.PAYLOAD_INVALID', format('task %s: %s', p_task, v_problem));
    END IF;

    RETURN (
        SELECT count(*)::integer
        FROM jobq._insert_specs(ARRAY(
            SELECT ROW(p_task, p_payload || jsonb_build_object('storeId', s.id), v_task.queue, p_run_at, v_task.priority,
                       v_task.max_attempts, replace(coalesce(p_job_key_template, p_task || ':{storeId}'), '{storeId}', s.id::text),
                       p_job_key_mode, s.id, v_task.timeout, v_task.backoff_base, v_task.backoff_max)::jobq.job_spec
            FROM unnest(p_store_ids) AS s(id)
            WHERE s.id IS NOT NULL
            ORDER BY s.id), true));
END
$$;
-- +goose StatementEnd

-- +goose Down

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq._enqueue_for_stores(
    p_task text, p_payload jsonb, p_job_key_template text, p_job_key_mode text, p_run_at timestamptz, p_store_ids uuid[])
RETURNS integer
LANGUAGE plpgsql
VOLATILE
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_scope text;
BEGIN
    SELECT t.scope INTO v_scope FROM jobq.tasks t WHERE t.name = p_task;
    IF v_scope IS NULL THEN
        PERFORM jobq._raise('JOB.UNKNOWN_TASK', format('task %L is not declared', p_task));
    ELSIF v_scope <> 'store' THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT', format('fan_out needs a store-scoped task; %s is a system task', p_task));
    END IF;
    IF p_payload IS NULL OR jsonb_typeof(p_payload) <> 'object' THEN
        PERFORM jobq._raise('JOB.PAYLOAD_NOT_OBJECT', 'the fan-out payload must be a JSON object');
    END IF;
    IF p_job_key_template IS NOT NULL AND position('{storeId}' IN p_job_key_template) = 0 THEN
        PERFORM jobq._raise('JOB.INVALID_ARGUMENT',
            format('job_key_template %L must contain {storeId}, or every store would share one key', p_job_key_template));
    END IF;

    RETURN (
        SELECT count(*)::integer
        FROM jobq._enqueue(ARRAY(
            SELECT ROW(p_task, p_payload || jsonb_build_object('storeId', s.id), NULL, p_run_at, NULL, NULL,
                       replace(coalesce(p_job_key_template, p_task || ':{storeId}'), '{storeId}', s.id::text),
                       p_job_key_mode, s.id, NULL, NULL, NULL)::jobq.job_spec
            FROM unnest(p_store_ids) AS s(id)
            WHERE s.id IS NOT NULL
            ORDER BY s.id), true));
END
$$;
-- +goose StatementEnd
