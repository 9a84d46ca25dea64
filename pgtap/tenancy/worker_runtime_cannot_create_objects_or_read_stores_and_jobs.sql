-- worker_runtime works every store's jobs through the engine's functions only: it creates nothing
-- in jobq or public, and reads neither public.store nor jobq's job tables directly.
BEGIN;
SELECT plan(11);

SELECT jobq_test.reset();
SELECT jobq_test.stores('bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb', 'cccccccc-cccc-4ccc-8ccc-cccccccccccc', 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa');

SELECT schema_privs_are('public', 'worker_runtime', ARRAY['USAGE'], 'worker_runtime has USAGE and nothing else on schema public');
SELECT table_privs_are('public', 'store', 'worker_runtime', ARRAY[]::text[], 'worker_runtime has no privilege on public.store');
SELECT ok(NOT has_column_privilege('worker_runtime', 'public.store', 'id', 'SELECT'), 'nor on its id column');

SET LOCAL ROLE worker_runtime;
SELECT throws_ok($$ CREATE TABLE jobq.pgtap_evil (id int) $$, '42501', 'permission denied for schema jobq', 'as worker_runtime, CREATE TABLE in jobq is denied');
SELECT throws_ok($$ CREATE TABLE public.pgtap_evil (id int) $$, '42501', 'permission denied for schema public', 'as worker_runtime, CREATE TABLE in public is denied');
SELECT throws_ok($$ CREATE FUNCTION public.pgtap_evil() RETURNS int LANGUAGE sql AS 'SELECT 1' $$, '42501', 'permission denied for schema public',
                 'as worker_runtime, CREATE FUNCTION in public is denied');
SELECT throws_ok($$ CREATE VIEW public.store_ids AS SELECT 1 AS id $$, '42501', 'permission denied for schema public', 'as worker_runtime, CREATE VIEW in public is denied');
SELECT throws_ok($$ SELECT id FROM public.store $$, '42501', 'permission denied for table store', 'as worker_runtime, SELECT on public.store is denied');
SELECT throws_ok($$ SELECT * FROM jobq.jobs $$, '42501', 'permission denied for table jobs', 'as worker_runtime, SELECT on jobq.jobs is denied');
SELECT throws_ok($$ SELECT * FROM jobq.job_history $$, '42501', 'permission denied for table job_history', 'as worker_runtime, SELECT on jobq.job_history is denied');
SET LOCAL app.current_store_id = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
SELECT throws_ok($$ SELECT id FROM public.store $$, '42501', 'permission denied for table store', 'a store setting does not open public.store to worker_runtime');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
