-- jobq schema step 16: a keyed enqueue that would change nothing rewrites nothing.
--
-- A scheduler fans out the same store jobs every few minutes (seed 000: expire_tentative every 5
-- minutes, preserve_run_at). Until now every such enqueue updated its waiting job even when
-- nothing differed: a new row version and index entries per store per run. Now a waiting job
-- whose task, queue, payload, priority and limits are the same is left as it is — under
-- preserve_run_at always, under replace when it is already a fresh queued job at the same
-- run_at — and its id is returned as before. Semantics are unchanged; bloat and time are not.

-- +goose Up

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq._enqueue_keyed(p_specs jobq.job_spec[])
RETURNS TABLE (store_key uuid, job_key text, job_id bigint)
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    v_zero constant uuid := '00000000-0000-0000-0000-000000000000'::uuid;
    v_pending jobq.job_spec[] := p_specs;
    v_store_keys uuid[] := '{}'::uuid[];
    v_job_keys text[] := '{}'::text[];
    v_job_ids bigint[] := '{}'::bigint[];
    v_round_store_keys uuid[];
    v_round_job_keys text[];
    v_round_job_ids bigint[];
    v_round integer := 0;
BEGIN
    WHILE cardinality(v_pending) > 0 LOOP
        v_round := v_round + 1;
        IF v_round > 50 THEN
            RAISE EXCEPTION 'jobq internal error: job_key enqueue did not settle after 50 rounds';
        END IF;

        -- Insert, or merge into the waiting job; unsafe_dedupe and running jobs are left as they are.
        WITH ins AS (
            INSERT INTO jobq.jobs AS j (task, queue, payload, store_id, priority, run_at, max_attempts,
                                        job_key, job_key_mode, timeout, backoff_base, backoff_max)
            SELECT s.task, s.queue, s.payload, s.store_id, s.priority, s.run_at, s.max_attempts,
                   s.job_key, s.job_key_mode, s.timeout, s.backoff_base, s.backoff_max
            FROM unnest(v_pending) AS s
            ORDER BY coalesce(s.store_id, v_zero), s.job_key
            ON CONFLICT ((coalesce(store_id, '00000000-0000-0000-0000-000000000000'::uuid)), job_key)
                WHERE job_key IS NOT NULL
            DO UPDATE SET
                task         = EXCLUDED.task,
                queue        = EXCLUDED.queue,
                payload      = EXCLUDED.payload,
                priority     = EXCLUDED.priority,
                max_attempts = EXCLUDED.max_attempts,
                timeout      = EXCLUDED.timeout,
                backoff_base = EXCLUDED.backoff_base,
                backoff_max  = EXCLUDED.backoff_max,
                job_key_mode = EXCLUDED.job_key_mode,
                run_at       = CASE WHEN EXCLUDED.job_key_mode = 'preserve_run_at' THEN j.run_at ELSE EXCLUDED.run_at END,
                attempt      = CASE WHEN EXCLUDED.job_key_mode = 'preserve_run_at' THEN j.attempt ELSE 0 END,
                state        = CASE WHEN EXCLUDED.job_key_mode = 'preserve_run_at' THEN j.state ELSE 'queued' END,
                reason       = CASE WHEN EXCLUDED.job_key_mode = 'preserve_run_at' THEN j.reason ELSE 'replaced' END,
                last_error   = CASE WHEN EXCLUDED.job_key_mode = 'preserve_run_at' THEN j.last_error END,
                error_code   = CASE WHEN EXCLUDED.job_key_mode = 'preserve_run_at' THEN j.error_code END,
                updated_at   = now()
            WHERE j.state <> 'running' AND EXCLUDED.job_key_mode <> 'unsafe_dedupe'
              -- A job that would not change is left as it is (found below): a repeated
              -- fan-out rewrites no row.
              AND NOT ((j.task, j.queue, j.payload, j.priority, j.max_attempts, j.timeout, j.backoff_base, j.backoff_max,
                        j.job_key_mode)
                       IS NOT DISTINCT FROM
                       (EXCLUDED.task, EXCLUDED.queue, EXCLUDED.payload, EXCLUDED.priority, EXCLUDED.max_attempts,
                        EXCLUDED.timeout, EXCLUDED.backoff_base, EXCLUDED.backoff_max, EXCLUDED.job_key_mode)
                       AND (EXCLUDED.job_key_mode = 'preserve_run_at'
                            OR (j.run_at = EXCLUDED.run_at AND j.attempt = 0 AND j.state = 'queued'
                                AND j.last_error IS NULL AND j.error_code IS NULL)))
            RETURNING coalesce(j.store_id, v_zero) AS store_key, j.job_key AS key, j.id
        ), found AS (
            SELECT i.store_key, i.key, i.id FROM ins i
            UNION ALL
            -- The live job that holds the key, as this statement saw it: under unsafe_dedupe any,
            -- otherwise a waiting one left unchanged because nothing differed.
            SELECT coalesce(j.store_id, v_zero), j.job_key, j.id
            FROM jobq.jobs j
            JOIN unnest(v_pending) AS s
              ON coalesce(j.store_id, v_zero) = coalesce(s.store_id, v_zero) AND j.job_key = s.job_key
            WHERE (s.job_key_mode = 'unsafe_dedupe' OR j.state <> 'running')
              AND NOT EXISTS (SELECT 1 FROM ins i WHERE i.store_key = coalesce(s.store_id, v_zero) AND i.key = s.job_key)
        )
        SELECT coalesce(array_agg(f.store_key), '{}'), coalesce(array_agg(f.key), '{}'), coalesce(array_agg(f.id), '{}')
        INTO v_round_store_keys, v_round_job_keys, v_round_job_ids
        FROM found f;

        -- replace / preserve_run_at keys held by a running job: it gives the key up; the next round inserts.
        UPDATE jobq.jobs AS j
        SET job_key = NULL, job_key_mode = NULL, updated_at = now()
        FROM unnest(v_pending) AS s
        LEFT JOIN unnest(v_round_store_keys, v_round_job_keys) AS r(store_key, key)
          ON r.store_key = coalesce(s.store_id, v_zero) AND r.key = s.job_key
        WHERE r.key IS NULL
          AND s.job_key_mode <> 'unsafe_dedupe'
          AND coalesce(j.store_id, v_zero) = coalesce(s.store_id, v_zero)
          AND j.job_key = s.job_key
          AND j.state = 'running';

        v_store_keys := v_store_keys || v_round_store_keys;
        v_job_keys := v_job_keys || v_round_job_keys;
        v_job_ids := v_job_ids || v_round_job_ids;

        v_pending := ARRAY(
            SELECT s
            FROM unnest(v_pending) AS s
            LEFT JOIN unnest(v_round_store_keys, v_round_job_keys) AS r(store_key, key)
              ON r.store_key = coalesce(s.store_id, v_zero) AND r.key = s.job_key
            WHERE r.key IS NULL);
    END LOOP;

    RETURN QUERY SELECT r.store_key, r.key, r.id FROM unnest(v_store_keys, v_job_keys, v_job_ids) AS r(store_key, key, id);
END
$$;
-- +goose StatementEnd

-- +goose Down

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobq._enqueue_keyed(p_specs jobq.job_spec[])
RETURNS TABLE (store_key uuid, job_key text, job_id bigint)
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    v_zero constant uuid := '00000000-0000-0000-0000-000000000000'::uuid;
    v_pending jobq.job_spec[] := p_specs;
    v_store_keys uuid[] := '{}'::uuid[];
    v_job_keys text[] := '{}'::text[];
    v_job_ids bigint[] := '{}'::bigint[];
    v_round_store_keys uuid[];
    v_round_job_keys text[];
    v_round_job_ids bigint[];
    v_round integer := 0;
BEGIN
    WHILE cardinality(v_pending) > 0 LOOP
        v_round := v_round + 1;
        IF v_round > 50 THEN
            RAISE EXCEPTION 'jobq internal error: job_key enqueue did not settle after 50 rounds';
        END IF;

        -- Insert, or merge into the waiting job; unsafe_dedupe and running jobs are left as they are.
        WITH ins AS (
            INSERT INTO jobq.jobs AS j (task, queue, payload, store_id, priority, run_at, max_attempts,
                                        job_key, job_key_mode, timeout, backoff_base, backoff_max)
            SELECT s.task, s.queue, s.payload, s.store_id, s.priority, s.run_at, s.max_attempts,
                   s.job_key, s.job_key_mode, s.timeout, s.backoff_base, s.backoff_max
            FROM unnest(v_pending) AS s
            ORDER BY coalesce(s.store_id, v_zero), s.job_key
            ON CONFLICT ((coalesce(store_id, '00000000-0000-0000-0000-000000000000'::uuid)), job_key)
                WHERE job_key IS NOT NULL
            DO UPDATE SET
                task         = EXCLUDED.task,
                queue        = EXCLUDED.queue,
                payload      = EXCLUDED.payload,
                priority     = EXCLUDED.priority,
                max_attempts = EXCLUDED.max_attempts,
                timeout      = EXCLUDED.timeout,
                backoff_base = EXCLUDED.backoff_base,
                backoff_max  = EXCLUDED.backoff_max,
                job_key_mode = EXCLUDED.job_key_mode,
                run_at       = CASE WHEN EXCLUDED.job_key_mode = 'preserve_run_at' THEN j.run_at ELSE EXCLUDED.run_at END,
                attempt      = CASE WHEN EXCLUDED.job_key_mode = 'preserve_run_at' THEN j.attempt ELSE 0 END,
                state        = CASE WHEN EXCLUDED.job_key_mode = 'preserve_run_at' THEN j.state ELSE 'queued' END,
                reason       = CASE WHEN EXCLUDED.job_key_mode = 'preserve_run_at' THEN j.reason ELSE 'replaced' END,
                last_error   = CASE WHEN EXCLUDED.job_key_mode = 'preserve_run_at' THEN j.last_error END,
                error_code   = CASE WHEN EXCLUDED.job_key_mode = 'preserve_run_at' THEN j.error_code END,
                updated_at   = now()
            WHERE j.state <> 'running' AND EXCLUDED.job_key_mode <> 'unsafe_dedupe'
            RETURNING coalesce(j.store_id, v_zero) AS store_key, j.job_key AS key, j.id
        ), found AS (
            SELECT i.store_key, i.key, i.id FROM ins i
            UNION ALL
            -- unsafe_dedupe: the live job that holds the key, as this statement saw it.
            SELECT coalesce(j.store_id, v_zero), j.job_key, j.id
            FROM jobq.jobs j
            JOIN unnest(v_pending) AS s
              ON coalesce(j.store_id, v_zero) = coalesce(s.store_id, v_zero) AND j.job_key = s.job_key
            WHERE s.job_key_mode = 'unsafe_dedupe'
              AND NOT EXISTS (SELECT 1 FROM ins i WHERE i.store_key = coalesce(s.store_id, v_zero) AND i.key = s.job_key)
        )
        SELECT coalesce(array_agg(f.store_key), '{}'), coalesce(array_agg(f.key), '{}'), coalesce(array_agg(f.id), '{}')
        INTO v_round_store_keys, v_round_job_keys, v_round_job_ids
        FROM found f;

        -- replace / preserve_run_at keys held by a running job: it gives the key up; the next round inserts.
        UPDATE jobq.jobs AS j
        SET job_key = NULL, job_key_mode = NULL, updated_at = now()
        FROM unnest(v_pending) AS s
        LEFT JOIN unnest(v_round_store_keys, v_round_job_keys) AS r(store_key, key)
          ON r.store_key = coalesce(s.store_id, v_zero) AND r.key = s.job_key
        WHERE r.key IS NULL
          AND s.job_key_mode <> 'unsafe_dedupe'
          AND coalesce(j.store_id, v_zero) = coalesce(s.store_id, v_zero)
          AND j.job_key = s.job_key
          AND j.state = 'running';

        v_store_keys := v_store_keys || v_round_store_keys;
        v_job_keys := v_job_keys || v_round_job_keys;
        v_job_ids := v_job_ids || v_round_job_ids;

        v_pending := ARRAY(
            SELECT s
            FROM unnest(v_pending) AS s
            LEFT JOIN unnest(v_round_store_keys, v_round_job_keys) AS r(store_key, key)
              ON r.store_key = coalesce(s.store_id, v_zero) AND r.key = s.job_key
            WHERE r.key IS NULL);
    END LOOP;

    RETURN QUERY SELECT r.store_key, r.key, r.id FROM unnest(v_store_keys, v_job_keys, v_job_ids) AS r(store_key, key, id);
END
$$;
-- +goose StatementEnd
