-- An application session (a login role granted jobq_app) cannot widen its reach: settings that look
-- like switches (jobq.all_tenants, app.all_tenants, ...), a store list or pattern in
-- app.current_store_id, row_security = off, or SET ROLE to jobq_operator or jobq_app_gate all leave
-- store B out of reach. (SET SESSION AUTHORIZATION is not tried: pg_prove's session authenticated as
-- a superuser, which PostgreSQL lets change it back whatever the current session user.)
BEGIN;
SELECT plan(14);

SELECT jobq_test.reset();
SELECT FROM jobq.define_task('pgtap-store-task', scope => 'store');
SELECT jobq_test.tasks('pgtap-system-task');

-- Store A, store B and the system each have a live job and a finished (canceled) one (named).
SELECT jobq_test.tenant_jobs();
SELECT is((SELECT count(*) FROM (SELECT id FROM named WHERE name LIKE '%\_done') AS d CROSS JOIN LATERAL jobq.cancel_job(d.id) AS c),
          3::bigint, 'setup: a live and a finished job in store A, in store B and in the system');
GRANT SELECT ON named TO PUBLIC;
CREATE TEMP TABLE snapshot AS
SELECT 'jobs' AS t, to_jsonb(j) AS r FROM jobq.jobs j UNION ALL SELECT 'job_history', to_jsonb(h) FROM jobq.job_history h;

CREATE ROLE pgtap_app_login LOGIN IN ROLE jobq_app;
SET SESSION AUTHORIZATION pgtap_app_login;
SET LOCAL app.current_store_id = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
SET LOCAL jobq.all_tenants = 'on';
SET LOCAL app.all_tenants = 'on';
SET LOCAL jobq.bypass_rls = 'true';
SET LOCAL jobq.operator = 'true';
SET LOCAL app.role = 'jobq_operator';
SELECT is((SELECT count(*) FROM jobq.jobs WHERE store_id = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb') + (SELECT count(*) FROM jobq.job_history WHERE store_id = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb'), 0::bigint,
          'with forged switches set, store B''s jobs stay invisible');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-store-task', store_id => 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb') $$, 'JQ406', NULL,
                 'with forged switches set, the gate still refuses a job for store B');
SELECT throws_ok(format('SELECT jobq.cancel_job(%s)', (SELECT id FROM named WHERE name = 'b_live')), 'JQ202', NULL,
                 'with forged switches set, B''s job still does not exist for the gate');

SET LOCAL app.current_store_id = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa,bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb';
SELECT is((SELECT count(*) FROM jobq.jobs WHERE store_id IS NOT NULL), 0::bigint, 'a list of stores in app.current_store_id is no store at all');
SET LOCAL app.current_store_id = '*';
SELECT is((SELECT count(*) FROM jobq.jobs WHERE store_id IS NOT NULL), 0::bigint, 'nor is a wildcard');
SET LOCAL app.current_store_id = '%';
SELECT is((SELECT count(*) FROM jobq.jobs WHERE store_id IS NOT NULL), 0::bigint, 'nor is a LIKE pattern');
SET LOCAL app.current_store_id = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';

SET LOCAL row_security = off;
SELECT throws_ok($$ SELECT count(*) FROM jobq.jobs $$, '42501', 'query would be affected by row-level security policy for table "jobs"',
                 'with row_security = off, a read of jobq.jobs is refused instead of seeing every row');
SELECT throws_ok($$ SELECT jobq.cancel_job(1) $$, '42501', NULL, 'and so is the gate''s, rather than reaching every row');
SET LOCAL row_security = on;
SELECT throws_ok($$ SET ROLE jobq_operator $$, '42501', 'permission denied to set role "jobq_operator"', 'the application cannot SET ROLE jobq_operator');
SELECT throws_ok($$ SET ROLE jobq_app_gate $$, '42501', 'permission denied to set role "jobq_app_gate"', 'nor SET ROLE jobq_app_gate');
SELECT throws_ok($$ SELECT set_config('role', 'jobq_operator', true) $$, '42501', NULL, 'nor set the role through set_config');
SELECT is((SELECT count(*) FROM jobq.jobs WHERE store_id = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb'), 0::bigint, 'after all that, store B''s jobs are still invisible');
RESET SESSION AUTHORIZATION;
SELECT is_empty(
    $$ SELECT 'jobs' AS t, to_jsonb(j) AS r FROM jobq.jobs j UNION ALL SELECT 'job_history', to_jsonb(h) FROM jobq.job_history h
       EXCEPT SELECT * FROM snapshot $$,
    'and nothing changed');

SELECT * FROM finish();
ROLLBACK;
