-- Row-level security as the application sees it: jobq_app with app.current_store_id = A reads no
-- row of store B, however it asks, in jobq.jobs or jobq.job_history.
BEGIN;
SELECT plan(8);

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
SELECT is((SELECT count(*) FROM jobq.jobs WHERE store_id = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb'), 0::bigint, 'as jobq_app in store A, no job of store B is visible in jobq.jobs');
SELECT is((SELECT count(*) FROM jobq.job_history WHERE store_id = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb'), 0::bigint, 'no job of store B is visible in jobq.job_history');
SELECT is_empty($$ SELECT id FROM jobq.jobs WHERE id IN (SELECT id FROM named WHERE name LIKE 'b\_%')
                   UNION ALL SELECT id FROM jobq.job_history WHERE id IN (SELECT id FROM named WHERE name LIKE 'b\_%') $$,
                'B''s jobs cannot be read by id either');
SELECT is_empty($$ SELECT DISTINCT store_id FROM jobq.jobs WHERE store_id IS DISTINCT FROM 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa' AND store_id IS NOT NULL
                   UNION SELECT DISTINCT store_id FROM jobq.job_history WHERE store_id IS DISTINCT FROM 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa' AND store_id IS NOT NULL $$,
                'no row of any store but A is visible');
-- A condition that would fail on a hidden row (division by zero) must never see one: the policy
-- filters before the caller's conditions, so nothing leaks through an error.
SELECT is_empty($$ SELECT id FROM jobq.jobs WHERE 1 / (CASE WHEN store_id = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb' THEN 0 ELSE 1 END) = 0
                   UNION ALL SELECT id FROM jobq.job_history WHERE 1 / (CASE WHEN store_id = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb' THEN 0 ELSE 1 END) = 0 $$,
                'a condition that errors on B''s rows runs without error: it never sees them');
SELECT set_eq($$ SELECT id FROM jobq.jobs WHERE store_id = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa' UNION ALL SELECT id FROM jobq.job_history WHERE store_id = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa' $$,
              $$ SELECT id FROM named WHERE name LIKE 'a\_%' $$,
              'store A''s own jobs, live and finished, are visible');
RESET ROLE;
SELECT is((SELECT count(*) FROM jobq.jobs WHERE store_id = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb') + (SELECT count(*) FROM jobq.job_history WHERE store_id = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb'), 2::bigint,
          'B''s jobs are there all along (the superuser sees them)');

SELECT * FROM finish();
ROLLBACK;
