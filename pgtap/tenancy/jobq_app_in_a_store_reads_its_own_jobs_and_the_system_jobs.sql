-- jobq_app's direct reads (sql/00008_tenancy.sql): "its store's jobs and system jobs (store_id
-- NULL)". With app.current_store_id = A, that is A's rows and the system rows, nothing else.
BEGIN;
SELECT plan(4);

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
SELECT set_eq($$ SELECT id FROM jobq.jobs WHERE store_id IS NOT NULL $$, $$ SELECT id FROM named WHERE name = 'a_live' $$,
              'of the store jobs in jobq.jobs, jobq_app in store A reads A''s');
SELECT set_eq($$ SELECT id FROM jobq.jobs $$, $$ SELECT id FROM named WHERE name IN ('a_live', 'system_live') $$,
              'jobq_app in store A reads A''s live jobs and the live system jobs');
SELECT set_eq($$ SELECT id FROM jobq.job_history $$, $$ SELECT id FROM named WHERE name IN ('a_done', 'system_done') $$,
              'jobq_app in store A reads A''s finished jobs and the finished system jobs');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
