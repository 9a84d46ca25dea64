-- The gate's insert policy on jobq.jobs (sql/functions/70_tenancy.sql) spells out the rule of
-- jobq._caller_reaches with the caller's facts in sub-selects, read once a statement rather than
-- once a row. It must admit exactly the rows the rule admits: jobq._caller_reaches(store_id), or
-- a system job of a task applications may enqueue. A helper owned by the gate inserts each row
-- directly, past every check of the enqueue functions, so that the policy alone decides; it
-- reports whether the row was admitted and what the rule answers for the same caller.
BEGIN;
SELECT plan(5);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-gate-internal');
SELECT FROM jobq.define_task('pgtap-gate-public', app_enqueue => true);
SELECT FROM jobq.define_task('pgtap-gate-store', scope => 'store');

GRANT CREATE ON SCHEMA jobq TO jobq_app_gate;
CREATE FUNCTION jobq.pgtap_gate_insert(p_task text, p_store uuid, OUT admitted boolean, OUT rule boolean)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    rule := jobq._caller_reaches(p_store) OR (p_store IS NULL AND jobq._app_may_enqueue(p_task));
    BEGIN
        INSERT INTO jobq.jobs (task, store_id, max_attempts) VALUES (p_task, p_store, 1);
        RAISE EXCEPTION USING ERRCODE = 'P0001', MESSAGE = 'admitted; undone';
    EXCEPTION
        WHEN insufficient_privilege THEN admitted := false;
        WHEN raise_exception THEN admitted := true;
    END;
END
$$;
ALTER FUNCTION jobq.pgtap_gate_insert(text, uuid) OWNER TO jobq_app_gate;
REVOKE CREATE ON SCHEMA jobq FROM jobq_app_gate;
GRANT EXECUTE ON FUNCTION jobq.pgtap_gate_insert(text, uuid) TO PUBLIC;

-- Every caller (an operator, the runtime, an application in store a, in no store, and with a
-- forged setting) against every row (no store, store a, store b; each kind of task).
CREATE TEMP TABLE answers (caller text, store text, task text, admitted boolean, rule boolean);
GRANT INSERT ON answers TO PUBLIC;
CREATE FUNCTION pg_temp.ask(p_caller text, p_store_setting text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    PERFORM set_config('app.current_store_id', p_store_setting, true);
    EXECUTE format('SET LOCAL ROLE %I', p_caller);
    INSERT INTO answers
    SELECT p_caller || '/' || p_store_setting, coalesce(s.id::text, 'none'), t.name, g.admitted, g.rule
    FROM (VALUES (NULL::uuid), ('aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa'), ('bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb')) AS s(id)
    CROSS JOIN (VALUES ('pgtap-gate-internal'), ('pgtap-gate-public'), ('pgtap-gate-store')) AS t(name)
    CROSS JOIN LATERAL jobq.pgtap_gate_insert(t.name, s.id) AS g;
    RESET ROLE;
END
$$;
SELECT pg_temp.ask('jobq_operator', '');
SELECT pg_temp.ask('worker_runtime', '');
SELECT pg_temp.ask('worker_runtime', 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa');
SELECT pg_temp.ask('jobq_app', 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa');
SELECT pg_temp.ask('jobq_app', '');
SELECT pg_temp.ask('jobq_app', 'not-a-uuid');

SELECT is((SELECT count(*) FROM answers), 54::bigint, 'setup: 6 callers, 9 rows each');
SELECT is((SELECT count(*) FROM answers WHERE admitted IS DISTINCT FROM rule), 0::bigint,
          'the policy admits a row exactly when jobq._caller_reaches (or a system task declared app_enqueue) does');
SELECT ok((SELECT bool_or(admitted) AND bool_or(NOT admitted) FROM answers),
          'the matrix holds rows the policy admits and rows it refuses');
SELECT results_eq(
    $$ SELECT store, task FROM answers WHERE caller = 'jobq_app/aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa' AND admitted ORDER BY 1, 2 $$,
    $$ VALUES ('aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', 'pgtap-gate-internal'), ('aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', 'pgtap-gate-public'),
              ('aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', 'pgtap-gate-store'), ('none', 'pgtap-gate-public') $$,
    'an application in store a gets rows of store a and system jobs of a task declared app_enqueue, nothing of store b');
SELECT is((SELECT count(*) FROM answers WHERE caller IN ('jobq_operator/', 'worker_runtime/') AND store = 'none' AND NOT admitted),
          0::bigint, 'operators and the runtime insert system jobs of any task');

SELECT * FROM finish();
ROLLBACK;
