-- An application (jobq_app) explains only its store's jobs: another store's job, a system job
-- and an id that does not exist all answer JQ202 JOB.NOT_FOUND with the same message shape, so
-- nothing of another store is told. An operator and a viewer (jobq_viewer) explain every job;
-- worker_runtime may not call it; a NULL id is JQ100 JOB.INVALID_ARGUMENT.
BEGIN;
SELECT plan(9);

SELECT jobq_test.reset();
SELECT FROM jobq.define_task('pgtap-store-task', 'store');
SELECT FROM jobq.define_task('pgtap-system-task');
SELECT jobq_test.tenant_jobs();
GRANT SELECT ON named TO PUBLIC;

SET LOCAL ROLE jobq_app;
SET LOCAL app.current_store_id = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
SELECT lives_ok(format('SELECT * FROM jobq.explain_job(%s)', (SELECT id FROM named WHERE name = 'a_live')),
    'an application explains its store''s job');
SELECT throws_ok(format('SELECT * FROM jobq.explain_job(%s)', (SELECT id FROM named WHERE name = 'b_live')),
    'JQ202', format('JOB.NOT_FOUND: no job %s', (SELECT id FROM named WHERE name = 'b_live')),
    'another store''s job: JQ202, as if it did not exist');
SELECT throws_ok(format('SELECT * FROM jobq.explain_job(%s)', (SELECT id FROM named WHERE name = 'system_live')),
    'JQ202', format('JOB.NOT_FOUND: no job %s', (SELECT id FROM named WHERE name = 'system_live')),
    'a system job: JQ202');
SELECT throws_ok('SELECT * FROM jobq.explain_job(999999999)', 'JQ202', 'JOB.NOT_FOUND: no job 999999999',
    'an id that does not exist: the same answer');
RESET app.current_store_id;
SELECT throws_ok(format('SELECT * FROM jobq.explain_job(%s)', (SELECT id FROM named WHERE name = 'a_live')),
    'JQ202', NULL, 'in no store, not even store A''s job');
SELECT throws_ok('SELECT * FROM jobq.explain_job(NULL)', 'JQ100', NULL, 'a NULL id: JQ100');
RESET ROLE;

SET LOCAL ROLE jobq_viewer;
SELECT lives_ok(format('SELECT * FROM jobq.explain_job(%s); SELECT * FROM jobq.explain_job(%s)',
    (SELECT id FROM named WHERE name = 'b_live'), (SELECT id FROM named WHERE name = 'system_live')),
    'a viewer explains every store''s jobs and system jobs');
RESET ROLE;
SET LOCAL ROLE jobq_operator;
SELECT lives_ok(format('SELECT * FROM jobq.explain_job(%s)', (SELECT id FROM named WHERE name = 'b_live')),
    'an operator explains every job');
RESET ROLE;
SET LOCAL ROLE worker_runtime;
SELECT throws_ok(format('SELECT * FROM jobq.explain_job(%s)', (SELECT id FROM named WHERE name = 'a_live')),
    '42501', NULL, 'worker_runtime may not call it');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
