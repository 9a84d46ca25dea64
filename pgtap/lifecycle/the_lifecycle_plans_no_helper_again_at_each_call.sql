-- A SQL function that PostgreSQL cannot inline into its caller's statement is called through the
-- function manager, which parses and plans its body again at every transaction that calls it
-- (about 60 µs each: a quarter of a complete_job with a result). So no step of a job's life calls
-- one: the setting readers are plpgsql (planned once a session), and the SQL helpers are given
-- arguments that let them be inlined. Each step runs once to warm the session's plans (generic
-- plans, so that no planning is left for the second), then again while
-- pg_stat_xact_user_functions counts the jobq functions of LANGUAGE sql it calls.
BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');
SET LOCAL track_functions = 'all';
SET LOCAL plan_cache_mode = force_generic_plan;
-- Pinned: no (auto)vacuum or analyze of a jobq table may invalidate the plans between a warm-up
-- and its counted call (a plan made again evaluates stable functions while it estimates, and
-- would be counted). Those take SHARE UPDATE EXCLUSIVE, which conflicts with itself.
DO $$
BEGIN
    EXECUTE (SELECT format('LOCK TABLE %s IN SHARE UPDATE EXCLUSIVE MODE', string_agg(c.oid::regclass::text, ', '))
             FROM pg_catalog.pg_class c
             WHERE c.relnamespace = 'jobq'::regnamespace AND c.relkind IN ('r', 'p'));
END
$$;

-- The SQL functions of jobq called since the last look, by name.
CREATE TEMP TABLE seen AS SELECT funcid, calls FROM pg_catalog.pg_stat_xact_user_functions;
CREATE FUNCTION pg_temp.sql_calls() RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE
    v_names text[];
BEGIN
    v_names := ARRAY(SELECT f.funcname::text
                     FROM pg_catalog.pg_stat_xact_user_functions f
                     JOIN pg_catalog.pg_proc p ON p.oid = f.funcid
                     JOIN pg_catalog.pg_language l ON l.oid = p.prolang
                     LEFT JOIN seen s ON s.funcid = f.funcid
                     WHERE f.schemaname = 'jobq' AND l.lanname = 'sql' AND f.calls > coalesce(s.calls, 0)
                     ORDER BY 1);
    DELETE FROM seen;
    INSERT INTO seen SELECT funcid, calls FROM pg_catalog.pg_stat_xact_user_functions;
    RETURN v_names;
END
$$;

-- Payloads above 1 KiB are checked against max_payload_bytes.
SELECT jobq.enqueue('t', jsonb_build_object('pad', repeat('x', 2000)), queue => 'q') FROM generate_series(1, 3);
SELECT pg_temp.sql_calls();
SELECT jobq.enqueue('t', jsonb_build_object('pad', repeat('x', 2000)), queue => 'q');
SELECT is(pg_temp.sql_calls(), '{}'::text[], 'enqueue of a 2 KB payload calls no SQL function it cannot inline');

CREATE TEMP TABLE batch AS
SELECT jsonb_build_array(jsonb_build_object('task', 't', 'queue', 'q', 'payload', jsonb_build_object('pad', repeat('x', 2000))),
                         jsonb_build_object('task', 't', 'queue', 'q')) AS jobs;
SELECT count(*) FROM jobq.enqueue_many((SELECT jobs FROM batch));
SELECT pg_temp.sql_calls();
SELECT count(*) FROM jobq.enqueue_many((SELECT jobs FROM batch));
SELECT is(pg_temp.sql_calls(), '{}'::text[], 'enqueue_many, which wakes the queue, calls no SQL function it cannot inline');

CREATE TEMP TABLE warm AS SELECT * FROM jobq.claim_job('w', ARRAY['q'], 1);
SELECT pg_temp.sql_calls();
CREATE TEMP TABLE hb AS SELECT * FROM jobq.claim_job('w', ARRAY['q'], 1);
SELECT is(pg_temp.sql_calls(), '{}'::text[], 'claim_job calls no SQL function it cannot inline');
CREATE TEMP TABLE done1 AS SELECT * FROM jobq.claim_job('w', ARRAY['q'], 1);
CREATE TEMP TABLE done2 AS SELECT * FROM jobq.claim_job('w', ARRAY['q'], 1);
CREATE TEMP TABLE failed1 AS SELECT * FROM jobq.claim_job('w', ARRAY['q'], 1);
CREATE TEMP TABLE failed2 AS SELECT * FROM jobq.claim_job('w', ARRAY['q'], 1);

SELECT jobq.heartbeat('w', (SELECT id FROM warm), (SELECT lease_token FROM warm));
SELECT pg_temp.sql_calls();
SELECT jobq.heartbeat('w', (SELECT id FROM hb), (SELECT lease_token FROM hb));
SELECT is(pg_temp.sql_calls(), '{}'::text[], 'heartbeat calls no SQL function it cannot inline');

-- A result is checked against max_result_bytes.
SELECT jobq.complete_job((SELECT id FROM done1), (SELECT lease_token FROM done1), '{"ok": true}');
SELECT pg_temp.sql_calls();
SELECT jobq.complete_job((SELECT id FROM done2), (SELECT lease_token FROM done2), '{"ok": true}');
SELECT is(pg_temp.sql_calls(), '{}'::text[], 'complete_job with a result calls no SQL function it cannot inline');

-- A retry reads backoff_base and backoff_max and computes its run_at (jobq._retry_at).
SELECT jobq.fail_job((SELECT id FROM failed1), (SELECT lease_token FROM failed1), 'boom');
SELECT pg_temp.sql_calls();
SELECT is(jobq.fail_job((SELECT id FROM failed2), (SELECT lease_token FROM failed2), 'boom') || ': ' || array_to_string(pg_temp.sql_calls(), ', '),
          'retry_pending: ', 'fail_job of a retry calls no SQL function it cannot inline');

SELECT * FROM finish();
ROLLBACK;
