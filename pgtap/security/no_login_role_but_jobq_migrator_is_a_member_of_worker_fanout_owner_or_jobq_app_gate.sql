-- Audit: worker_fanout_owner (BYPASSRLS) and jobq_app_gate (reaches every store for an operator)
-- are roles nobody becomes. jobq_migrator is their one member, without inheritance, only to hand
-- them functions; no login role is a member of them, directly or through other roles.
BEGIN;
SELECT plan(4);

SELECT set_eq(
    $$ SELECT pg_get_userbyid(a.roleid)::text AS role, pg_get_userbyid(a.member)::text AS member FROM pg_auth_members a
       WHERE a.roleid IN ('worker_fanout_owner'::regrole, 'jobq_app_gate'::regrole) $$,
    $$ VALUES ('worker_fanout_owner'::text, 'jobq_migrator'::text), ('jobq_app_gate', 'jobq_migrator') $$,
    'jobq_migrator is the one direct member of worker_fanout_owner and of jobq_app_gate');
SELECT is_empty(
    $$ WITH RECURSIVE members(target, member) AS (
           SELECT a.roleid, a.member FROM pg_auth_members a WHERE a.roleid IN ('worker_fanout_owner'::regrole, 'jobq_app_gate'::regrole)
           UNION
           SELECT m.target, a.member FROM members m JOIN pg_auth_members a ON a.roleid = m.member
       )
       SELECT pg_get_userbyid(m.target), r.rolname FROM members m JOIN pg_roles r ON r.oid = m.member
       WHERE r.rolcanlogin AND r.rolname <> 'jobq_migrator' $$,
    'no login role but jobq_migrator is a member of worker_fanout_owner or jobq_app_gate, directly or through other roles');
SELECT is_empty(
    $$ SELECT t.target FROM unnest(ARRAY['worker_fanout_owner', 'jobq_app_gate']) AS t(target)
       WHERE pg_has_role(t.target, 'jobq_migrator', 'MEMBER') OR (SELECT rolbypassrls FROM pg_roles WHERE rolname = 'jobq_migrator') $$,
    'neither owner role is a member of jobq_migrator, and jobq_migrator (which may act for them) is not BYPASSRLS');
SELECT is_empty(
    $$ SELECT r.rolname, t.target FROM pg_roles r CROSS JOIN unnest(ARRAY['worker_fanout_owner', 'jobq_app_gate']) AS t(target)
       WHERE r.rolname IN ('worker_runtime', 'jobq_app', 'jobq_operator') AND pg_has_role(r.oid, t.target::regrole, 'MEMBER') $$,
    'worker_runtime, jobq_app and jobq_operator can become neither');

SELECT * FROM finish();
ROLLBACK;
