-- Only worker_runtime lists the stores and fans out. PUBLIC has no grant on any of it; a login role
-- with no jobq role can call none of it; an application's login (jobq_app) may enqueue but not list
-- the stores or fan out.
BEGIN;
SELECT plan(11);

SELECT jobq_test.reset();
SELECT jobq_test.stores('bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb', 'cccccccc-cccc-4ccc-8ccc-cccccccccccc', 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa');
SELECT FROM jobq.define_task('pgtap-store-task', scope => 'store');

SELECT is_empty(
    $$ SELECT p.oid::regprocedure FROM pg_proc p CROSS JOIN LATERAL aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) AS a
       WHERE a.grantee = 0 AND p.oid IN ('public.list_store_ids_for_fan_out()'::regprocedure,
                                         'jobq.fan_out(text, jsonb, text, text, timestamptz)'::regprocedure,
                                         'jobq._enqueue_for_stores(text, jsonb, text, text, timestamptz, uuid[])'::regprocedure) $$,
    'PUBLIC may execute none of list_store_ids_for_fan_out, fan_out and _enqueue_for_stores');
CREATE ROLE pgtap_stranger LOGIN;
CREATE ROLE pgtap_app_login LOGIN IN ROLE jobq_app;

SET SESSION AUTHORIZATION pgtap_stranger;
SELECT throws_ok($$ SELECT * FROM public.list_store_ids_for_fan_out() $$, '42501', 'permission denied for function list_store_ids_for_fan_out',
                 'a login role without jobq roles cannot list the stores');
SELECT throws_ok($$ SELECT jobq.fan_out('pgtap-store-task') $$, '42501', 'permission denied for schema jobq', 'nor fan out');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-store-task', store_id => 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa') $$, '42501', 'permission denied for schema jobq', 'nor enqueue');
SELECT throws_ok($$ SELECT id FROM public.store $$, '42501', NULL, 'nor read public.store');
RESET SESSION AUTHORIZATION;

SET SESSION AUTHORIZATION pgtap_app_login;
SELECT throws_ok($$ SELECT * FROM public.list_store_ids_for_fan_out() $$, '42501', 'permission denied for function list_store_ids_for_fan_out',
                 'an application''s login cannot list the stores');
SELECT throws_ok($$ SELECT jobq.fan_out('pgtap-store-task') $$, '42501', 'permission denied for function fan_out', 'nor fan out');
SELECT throws_ok($$ SELECT jobq._enqueue_for_stores('pgtap-store-task', '{}', NULL, NULL, NULL, ARRAY['aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb']::uuid[]) $$, '42501',
                 'permission denied for function _enqueue_for_stores', 'nor call the fan-out''s private enqueue');
SELECT is((SELECT count(*) FROM public.store), 0::bigint, 'without a store setting it reads no store of public.store');
SET LOCAL app.current_store_id = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
SELECT results_eq($$ SELECT id FROM public.store $$, $$ VALUES ('aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa'::uuid) $$, 'with store A set, it reads store A''s row only');
RESET SESSION AUTHORIZATION;
SELECT is((SELECT count(*) FROM jobq.jobs), 0::bigint, 'nothing was enqueued');

SELECT * FROM finish();
ROLLBACK;
