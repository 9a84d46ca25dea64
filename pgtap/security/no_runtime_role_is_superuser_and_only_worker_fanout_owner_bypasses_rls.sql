-- Audit: row-level security holds only if nothing that runs jobq is exempt from it. No runtime role
-- (worker_runtime, jobq_app, jobq_operator, jobq_app_gate, worker_fanout_owner) is a superuser, and
-- the one role besides superusers with BYPASSRLS is worker_fanout_owner, as documented: it owns
-- list_store_ids_for_fan_out and nothing else, and cannot log in.
BEGIN;
SELECT plan(6);

SELECT is((SELECT count(*) FROM pg_roles WHERE rolname IN ('worker_runtime', 'jobq_app', 'jobq_operator', 'jobq_app_gate', 'worker_fanout_owner', 'jobq_migrator')),
          6::bigint, 'the roles of bootstrap/ exist');
SELECT is_empty(
    $$ SELECT rolname FROM pg_roles
       WHERE rolname IN ('worker_runtime', 'jobq_app', 'jobq_operator', 'jobq_app_gate', 'worker_fanout_owner', 'jobq_migrator') AND rolsuper $$,
    'no runtime role, nor the migrator, is a superuser');
SELECT set_eq($$ SELECT rolname::text FROM pg_roles WHERE rolbypassrls AND NOT rolsuper $$, $$ VALUES ('worker_fanout_owner') $$,
              'besides superusers, worker_fanout_owner is the only BYPASSRLS role');
SELECT is_empty(
    $$ SELECT rolname FROM pg_roles
       WHERE rolname IN ('worker_runtime', 'jobq_app', 'jobq_operator', 'jobq_app_gate', 'jobq_migrator') AND rolbypassrls $$,
    'worker_runtime, jobq_app, jobq_operator, jobq_app_gate and jobq_migrator are NOBYPASSRLS');
SELECT results_eq($$ SELECT rolcanlogin, rolsuper, rolcreaterole, rolcreatedb FROM pg_roles WHERE rolname = 'worker_fanout_owner' $$,
                  $$ VALUES (false, false, false, false) $$, 'worker_fanout_owner cannot log in and has no other special attribute');
SELECT set_eq(
    $$ SELECT 'pg_proc'::text AS catalog, p.oid FROM pg_proc p WHERE p.proowner = 'worker_fanout_owner'::regrole
       UNION ALL SELECT 'pg_class', c.oid FROM pg_class c WHERE c.relowner = 'worker_fanout_owner'::regrole
       UNION ALL SELECT 'pg_type', t.oid FROM pg_type t WHERE t.typowner = 'worker_fanout_owner'::regrole
       UNION ALL SELECT 'pg_namespace', n.oid FROM pg_namespace n WHERE n.nspowner = 'worker_fanout_owner'::regrole $$,
    $$ VALUES ('pg_proc'::text, 'public.list_store_ids_for_fan_out()'::regprocedure::oid) $$,
    'worker_fanout_owner owns list_store_ids_for_fan_out and nothing else in this database (no table, type or schema)');

SELECT * FROM finish();
ROLLBACK;
