-- public.list_store_ids_for_fan_out is granted, as seed 000 §6.1 and its COMMENT say, to
-- worker_runtime alone: its ACL holds its owner worker_fanout_owner and worker_runtime, and no
-- other grantee. Role by role of bootstrap/001_roles.sql, who may execute it: worker_runtime (the
-- grant), worker_fanout_owner (the owner) and jobq_migrator (the owner's one member, which is how
-- jobq.fan_out, owned by jobq_migrator, calls it); nobody else, PUBLIC included. fan_out still
-- lists every store.
BEGIN;
SELECT plan(4);

SELECT jobq_test.reset();
SELECT jobq_test.stores('aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb');
SELECT FROM jobq.define_task('pgtap-store-task', scope => 'store');

SELECT results_eq(
    $$ SELECT a.grantee::regrole::text, a.privilege_type, a.is_grantable
       FROM pg_catalog.pg_proc p, aclexplode(p.proacl) AS a
       WHERE p.oid = 'public.list_store_ids_for_fan_out()'::regprocedure
       ORDER BY 1 $$,
    $$ VALUES ('worker_fanout_owner', 'EXECUTE', false), ('worker_runtime', 'EXECUTE', false) $$,
    'its ACL grants EXECUTE to its owner and to worker_runtime, and to nobody else');
SELECT results_eq(
    $$ SELECT r.name, pg_catalog.has_function_privilege(r.name, 'public.list_store_ids_for_fan_out()', 'EXECUTE')
       FROM (VALUES ('jobq_migrator'), ('worker_runtime'), ('worker_fanout_owner'), ('jobq_app'), ('jobq_app_gate'),
                    ('jobq_operator'), ('jobq_viewer'), ('jobq_dashboard'), ('jobq_waker')) AS r(name)
       ORDER BY r.name $$,
    $$ VALUES ('jobq_app', false), ('jobq_app_gate', false), ('jobq_dashboard', false), ('jobq_migrator', true),
              ('jobq_operator', false), ('jobq_viewer', false), ('jobq_waker', false), ('worker_fanout_owner', true),
              ('worker_runtime', true) $$,
    'of the roles of bootstrap/001_roles.sql, worker_runtime, the owner and the owner''s member jobq_migrator may execute it');
SELECT is(
    (SELECT array_agg(m.member::regrole::text ORDER BY 1) FROM pg_catalog.pg_auth_members m
     WHERE m.roleid = 'worker_fanout_owner'::regrole),
    ARRAY['jobq_migrator'],
    'jobq_migrator, which may execute it only as a member of its owner, is that owner''s one member');
SET LOCAL ROLE worker_runtime;
SELECT is(jobq.fan_out('pgtap-store-task', job_key_template => 'pgtap:{storeId}'), 2,
          'jobq.fan_out, run as its owner jobq_migrator, still lists every store');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
