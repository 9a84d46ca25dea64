-- jobq schema step 14: task resolution checks payload contracts set-based.
--
-- Step 9's _resolve_tasks called payload_problem() once per spec, which for a 10,000-store fan-out
-- cost most of the enqueue. Now each task's contract is read once, joined to the specs, and the
-- type test (an inlined expression) runs per key; payload_problem() only describes the one spec
-- that is refused. Same checks, same errors, same result.

-- +goose Up

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq._resolve_tasks(p_specs jobq.job_spec[], p_label_index boolean)
RETURNS jobq.job_spec[]
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_uuid constant text := '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
    v_bad record;
    v_code text;
    v_detail text;
BEGIN
    WITH specs AS (
        SELECT s.ordinality AS position, btrim(s.task) AS task, coalesce(s.payload, '{}') AS payload, s.store_id
        FROM unnest(p_specs) WITH ORDINALITY AS s
    ), contract AS (
        SELECT t.name AS task, rtrim(c.key, '?') AS key, c.key LIKE '%?' AS optional, c.type
        FROM jobq.tasks t
        CROSS JOIN LATERAL jsonb_each_text(t.payload_schema) AS c(key, type)
        WHERE t.name IN (SELECT DISTINCT s.task FROM specs s)
    ), broken_contract AS (
        SELECT DISTINCT s.position
        FROM specs s
        JOIN contract k ON k.task = s.task
        WHERE (NOT k.optional AND NOT s.payload ? k.key)
           OR (s.payload ? k.key
               AND NOT jobq._json_type_ok(s.payload -> k.key, k.type)
               AND NOT (k.optional AND jsonb_typeof(s.payload -> k.key) = 'null'))
    )
    SELECT s.position, s.task, s.store_id, s.payload, t.name AS known, t.scope,
           CASE WHEN t.name IS NOT NULL THEN jobq.payload_problem(t.payload_schema, s.payload) END AS problem
    INTO v_bad
    FROM specs s
    LEFT JOIN jobq.tasks t ON t.name = s.task
    WHERE t.name IS NULL
       OR s.position IN (SELECT b.position FROM broken_contract b)
       OR (t.scope = 'system' AND s.store_id IS NOT NULL)
       OR (t.scope = 'store' AND s.store_id IS NULL AND NOT coalesce(s.payload ->> 'storeId' ~* v_uuid, false))
       OR (t.scope = 'store' AND s.store_id IS NOT NULL AND s.payload ? 'storeId'
           AND (s.payload ->> 'storeId') IS DISTINCT FROM s.store_id::text
           AND (CASE WHEN s.payload ->> 'storeId' ~* v_uuid THEN (s.payload ->> 'storeId')::uuid END) IS DISTINCT FROM s.store_id)
    ORDER BY s.position
    LIMIT 1;

    IF FOUND THEN
        IF v_bad.known IS NULL THEN
            v_code := 'JOB.UNKNOWN_TASK';
            v_detail := format('task %L is not declared', v_bad.task);
        ELSIF v_bad.problem IS NOT NULL THEN
            v_code := 'JOB.PAYLOAD_INVALID';
            v_detail := format('task %s: %s', v_bad.task, v_bad.problem);
        ELSIF v_bad.scope = 'system' THEN
            v_code := 'JOB.STORE_NOT_ALLOWED';
            v_detail := format('task %s is a system task; it got store %s', v_bad.task, v_bad.store_id);
        ELSIF v_bad.store_id IS NULL THEN
            v_code := 'JOB.STORE_REQUIRED';
            v_detail := format('task %s is store-scoped; pass store_id or a storeId in the payload', v_bad.task);
        ELSE
            v_code := 'JOB.PAYLOAD_INVALID';
            v_detail := format('task %s: payload storeId %s differs from store_id %s', v_bad.task, v_bad.payload ->> 'storeId', v_bad.store_id);
        END IF;
        PERFORM jobq._raise(v_code, CASE WHEN p_label_index THEN format('job %s: %s', v_bad.position, v_detail) ELSE v_detail END);
    END IF;

    RETURN ARRAY(
        SELECT ROW(s.task, s.payload, coalesce(s.queue, t.queue), s.run_at, coalesce(s.priority, t.priority),
                   coalesce(s.max_attempts, t.max_attempts), s.job_key, s.job_key_mode,
                   CASE WHEN t.scope = 'store' THEN coalesce(s.store_id, (s.payload ->> 'storeId')::uuid) END,
                   coalesce(s.timeout, t.timeout), coalesce(s.backoff_base, t.backoff_base),
                   coalesce(s.backoff_max, t.backoff_max))::jobq.job_spec
        FROM unnest(p_specs) WITH ORDINALITY AS s
        JOIN jobq.tasks t ON t.name = btrim(s.task)
        ORDER BY s.ordinality);
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION jobq._resolve_tasks(jobq.job_spec[], boolean) IS
    'Private. Checks each spec against jobq.tasks (JOB.UNKNOWN_TASK, JOB.PAYLOAD_INVALID, JOB.STORE_REQUIRED, '
    'JOB.STORE_NOT_ALLOWED), set-based, and returns the specs with the task''s defaults and store id filled in, in input '
    'order.';

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq._resolve_tasks(p_specs jobq.job_spec[], p_label_index boolean)
RETURNS jobq.job_spec[]
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_uuid constant text := '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
    v_bad record;
    v_code text;
    v_detail text;
BEGIN
    SELECT s.ordinality AS position, s.task, s.store_id, s.payload, t.name AS known, t.scope,
           CASE WHEN t.name IS NOT NULL THEN jobq.payload_problem(t.payload_schema, coalesce(s.payload, '{}')) END AS problem
    INTO v_bad
    FROM unnest(p_specs) WITH ORDINALITY AS s
    LEFT JOIN jobq.tasks t ON t.name = btrim(s.task)
    WHERE t.name IS NULL
       OR jobq.payload_problem(t.payload_schema, coalesce(s.payload, '{}')) IS NOT NULL
       OR (t.scope = 'system' AND s.store_id IS NOT NULL)
       OR (t.scope = 'store' AND s.store_id IS NULL AND NOT coalesce(s.payload ->> 'storeId' ~* v_uuid, false))
       OR (t.scope = 'store' AND s.store_id IS NOT NULL AND s.payload ? 'storeId'
           AND (CASE WHEN s.payload ->> 'storeId' ~* v_uuid THEN (s.payload ->> 'storeId')::uuid END) IS DISTINCT FROM s.store_id)
    ORDER BY s.ordinality
    LIMIT 1;

    IF FOUND THEN
        IF v_bad.known IS NULL THEN
            v_code := 'JOB.UNKNOWN_TASK';
            v_detail := format('task %L is not declared', v_bad.task);
        ELSIF v_bad.problem IS NOT NULL THEN
            v_code := 'JOB.PAYLOAD_INVALID';
            v_detail := format('task %s: %s', v_bad.task, v_bad.problem);
        ELSIF v_bad.scope = 'system' THEN
            v_code := 'JOB.STORE_NOT_ALLOWED';
            v_detail := format('task %s is a system task; it got store %s', v_bad.task, v_bad.store_id);
        ELSIF v_bad.store_id IS NULL THEN
            v_code := 'JOB.STORE_REQUIRED';
            v_detail := format('task %s is store-scoped; pass store_id or a storeId in the payload', v_bad.task);
        ELSE
            v_code := 'JOB.PAYLOAD_INVALID';
            v_detail := format('task %s: payload storeId %s differs from store_id %s', v_bad.task, v_bad.payload ->> 'storeId', v_bad.store_id);
        END IF;
        PERFORM jobq._raise(v_code, CASE WHEN p_label_index THEN format('job %s: %s', v_bad.position, v_detail) ELSE v_detail END);
    END IF;

    RETURN ARRAY(
        SELECT ROW(s.task, s.payload, coalesce(s.queue, t.queue), s.run_at, coalesce(s.priority, t.priority),
                   coalesce(s.max_attempts, t.max_attempts), s.job_key, s.job_key_mode,
                   CASE WHEN t.scope = 'store' THEN coalesce(s.store_id, (s.payload ->> 'storeId')::uuid) END,
                   coalesce(s.timeout, t.timeout), coalesce(s.backoff_base, t.backoff_base),
                   coalesce(s.backoff_max, t.backoff_max))::jobq.job_spec
        FROM unnest(p_specs) WITH ORDINALITY AS s
        JOIN jobq.tasks t ON t.name = btrim(s.task)
        ORDER BY s.ordinality);
END
$$;
-- +goose StatementEnd
