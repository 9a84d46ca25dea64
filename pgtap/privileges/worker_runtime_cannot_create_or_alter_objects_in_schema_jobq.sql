BEGIN;
SELECT plan(7);

SELECT jobq_test.reset();

SELECT schema_privs_are('jobq', 'worker_runtime', ARRAY['USAGE'], 'worker_runtime has USAGE and nothing else on schema jobq');

SET LOCAL ROLE worker_runtime;
SELECT throws_ok($$ CREATE TABLE jobq.evil (id int) $$, '42501', 'permission denied for schema jobq', 'as worker_runtime, CREATE TABLE in jobq is denied');
SELECT throws_ok($$ CREATE FUNCTION jobq.evil() RETURNS int LANGUAGE sql AS 'SELECT 1' $$, '42501', 'permission denied for schema jobq',
                 'as worker_runtime, CREATE FUNCTION in jobq is denied');
SELECT throws_ok($$ CREATE VIEW jobq.evil AS SELECT 1 AS x $$, '42501', 'permission denied for schema jobq', 'as worker_runtime, CREATE VIEW in jobq is denied');
SELECT throws_ok($$ DROP TABLE jobq.jobs $$, '42501', 'must be owner of table jobs', 'as worker_runtime, DROP TABLE jobq.jobs is denied');
SELECT throws_ok($$ ALTER FUNCTION jobq.claim_job(text, text[], integer, interval, integer[], timestamptz[], bigint[], text[]) SECURITY INVOKER $$, '42501', 'must be owner of function jobq.claim_job',
                 'as worker_runtime, ALTER FUNCTION on a jobq function is denied');
SELECT throws_ok($$ CREATE OR REPLACE FUNCTION jobq.backoff_ceiling(integer, interval, interval) RETURNS interval LANGUAGE sql AS 'SELECT interval ''0''' $$,
                 '42501', 'permission denied for schema jobq', 'as worker_runtime, replacing a jobq function is denied');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
