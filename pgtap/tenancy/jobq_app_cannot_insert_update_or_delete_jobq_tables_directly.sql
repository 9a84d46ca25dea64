-- jobq_app writes jobs only through the gate functions: direct INSERT, UPDATE, DELETE and TRUNCATE
-- of jobq's tables are refused with 42501, even on its own store's rows.
BEGIN;
SELECT plan(11);

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

SET LOCAL ROLE jobq_app;
SET LOCAL app.current_store_id = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
SELECT throws_ok($$ INSERT INTO jobq.jobs (task, max_attempts, store_id) VALUES ('pgtap-store-task', 1, 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa') $$,
    '42501', 'permission denied for table jobs', 'as jobq_app, INSERT into jobq.jobs for its own store is denied');
SELECT throws_ok($$ UPDATE jobq.jobs SET run_at = now() WHERE store_id = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa' $$,
    '42501', 'permission denied for table jobs', 'as jobq_app, UPDATE of its own jobs is denied');
SELECT throws_ok($$ UPDATE jobq.jobs SET store_id = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa' WHERE store_id = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb' $$,
    '42501', 'permission denied for table jobs', 'as jobq_app, moving B''s jobs into A is denied');
SELECT throws_ok($$ DELETE FROM jobq.jobs $$, '42501', 'permission denied for table jobs', 'as jobq_app, DELETE from jobq.jobs is denied');
SELECT throws_ok($$ INSERT INTO jobq.job_history SELECT * FROM jobq.job_history $$,
    '42501', 'permission denied for table job_history', 'as jobq_app, INSERT into jobq.job_history is denied');
SELECT throws_ok($$ UPDATE jobq.job_history SET state = 'dead' $$,
    '42501', 'permission denied for table job_history', 'as jobq_app, UPDATE of jobq.job_history is denied');
SELECT throws_ok($$ DELETE FROM jobq.job_history WHERE store_id = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa' $$,
    '42501', 'permission denied for table job_history', 'as jobq_app, DELETE from jobq.job_history is denied');
SELECT throws_ok($$ TRUNCATE jobq.jobs $$, '42501', 'permission denied for table jobs', 'as jobq_app, TRUNCATE of jobq.jobs is denied');
SELECT throws_ok($$ SELECT * FROM jobq.jobs FOR UPDATE $$, '42501', 'permission denied for table jobs', 'as jobq_app, locking jobs (SELECT FOR UPDATE) is denied');
RESET ROLE;
SELECT is_empty(
    $$ SELECT 'jobs' AS t, to_jsonb(j) AS r FROM jobq.jobs j UNION ALL SELECT 'job_history', to_jsonb(h) FROM jobq.job_history h
       EXCEPT SELECT * FROM snapshot $$,
    'the refused writes changed no row');

SELECT * FROM finish();
ROLLBACK;
