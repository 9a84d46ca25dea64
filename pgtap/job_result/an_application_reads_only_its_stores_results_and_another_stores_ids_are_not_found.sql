-- job_result and parent_results under row-level security: an application (jobq_app) reads only
-- its store's jobs; another store's job, finished or live, and a system job answer JQ202
-- JOB.NOT_FOUND exactly as an id that does not exist, and nothing is written. A worker reads every
-- job outside a tenant transaction and only the session store's inside one; operators and viewers
-- read every job.
BEGIN;
SELECT plan(12);

SELECT jobq_test.reset();
SELECT FROM jobq.define_task('pgtap-store-task', 'store');
SELECT FROM jobq.define_task('pgtap-system-task');
SELECT jobq_test.tenant_jobs();
GRANT SELECT ON named TO PUBLIC;
-- The *_done jobs succeed with a result naming their store.
CREATE TEMP TABLE c AS SELECT * FROM jobq.claim_job('w', ARRAY['pgtap_done'], 3);
SELECT FROM c, jobq.complete_job(c.id, c.lease_token, jsonb_build_object('store', coalesce(c.store_id::text, 'system')));
CREATE TEMP TABLE before AS SELECT * FROM jobq_test.counts();

SET LOCAL ROLE jobq_app;
SET LOCAL app.current_store_id = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
SELECT results_eq(format('SELECT state, result FROM jobq.job_result(%s)', (SELECT id FROM named WHERE name = 'a_done')),
                  $$ VALUES ('succeeded'::text, '{"store": "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"}'::jsonb) $$,
                  'an application reads its store''s result');
SELECT throws_ok(format('SELECT * FROM jobq.job_result(%s)', (SELECT id FROM named WHERE name = 'b_done')),
    'JQ202', format('JOB.NOT_FOUND: no job %s', (SELECT id FROM named WHERE name = 'b_done')),
    'another store''s finished job: JQ202, as if it did not exist');
SELECT throws_ok(format('SELECT * FROM jobq.job_result(%s)', (SELECT id FROM named WHERE name = 'b_live')),
    'JQ202', format('JOB.NOT_FOUND: no job %s', (SELECT id FROM named WHERE name = 'b_live')),
    'another store''s live job: JQ202');
SELECT throws_ok(format('SELECT * FROM jobq.job_result(%s)', (SELECT id FROM named WHERE name = 'system_done')),
    'JQ202', format('JOB.NOT_FOUND: no job %s', (SELECT id FROM named WHERE name = 'system_done')),
    'a system job: JQ202');
SELECT throws_ok('SELECT * FROM jobq.job_result(999999999)', 'JQ202', 'JOB.NOT_FOUND: no job 999999999',
    'an id that does not exist: the same answer');
SELECT throws_ok(format('SELECT * FROM jobq.parent_results(%s)', (SELECT id FROM named WHERE name = 'b_done')),
    'JQ202', format('JOB.NOT_FOUND: no job %s', (SELECT id FROM named WHERE name = 'b_done')),
    'parent_results of another store''s job: JQ202');
RESET app.current_store_id;
SELECT throws_ok(format('SELECT * FROM jobq.job_result(%s)', (SELECT id FROM named WHERE name = 'a_done')),
    'JQ202', NULL, 'in no store, not even store A''s job');
RESET ROLE;
SELECT is_empty($$ SELECT * FROM jobq_test.counts() EXCEPT SELECT * FROM before $$, 'the refusals wrote nothing');

SET LOCAL ROLE worker_runtime;
SELECT results_eq(format('SELECT state FROM jobq.job_result(%s) UNION ALL SELECT state FROM jobq.job_result(%s)',
                         (SELECT id FROM named WHERE name = 'b_done'), (SELECT id FROM named WHERE name = 'system_done')),
                  $$ VALUES ('succeeded'::text), ('succeeded') $$,
                  'a worker outside a tenant transaction reads every store''s and the system''s jobs');
SET LOCAL app.current_store_id = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
SELECT throws_ok(format('SELECT * FROM jobq.job_result(%s)', (SELECT id FROM named WHERE name = 'b_done')),
    'JQ202', NULL, 'a worker inside store A''s tenant transaction: store B''s job is JQ202');
RESET app.current_store_id;
RESET ROLE;

SET LOCAL ROLE jobq_viewer;
SELECT lives_ok(format('SELECT * FROM jobq.job_result(%s); SELECT * FROM jobq.job_result(%s)',
    (SELECT id FROM named WHERE name = 'b_done'), (SELECT id FROM named WHERE name = 'system_live')),
    'a viewer reads every store''s jobs and system jobs');
RESET ROLE;
SET LOCAL ROLE jobq_operator;
SELECT lives_ok(format('SELECT * FROM jobq.job_result(%s)', (SELECT id FROM named WHERE name = 'b_done')),
    'an operator reads every job');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
