-- An application's cancel_job of a job it may not cancel says JOB.NOT_FOUND whether the job is
-- live or finished: the state of a finished system job or another store's is not told (it was
-- JOB.STATE_CONFLICT "already ended as ..." for a finished system job). Its own store's finished
-- job is still refused with the state, and an operator is told every job's state.
BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
SELECT FROM jobq.define_task('pgtap-store-task', scope => 'store');
SELECT FROM jobq.define_task('pgtap-system-task');
SELECT jobq_test.tenant_jobs();
-- The *_done jobs end as canceled.
SELECT jobq.cancel_job(id) FROM named WHERE name LIKE '%_done';
GRANT SELECT ON named TO jobq_app, jobq_operator;

SET LOCAL ROLE jobq_app;
SET LOCAL app.current_store_id = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
SELECT throws_ok(format('SELECT jobq.cancel_job(%s)', (SELECT id FROM named WHERE name = 'system_done')),
    'JQ202', format('JOB.NOT_FOUND: job %s', (SELECT id FROM named WHERE name = 'system_done')),
    'a finished system job is not found by store A''s application');
SELECT throws_ok(format('SELECT jobq.cancel_job(%s)', (SELECT id FROM named WHERE name = 'system_live')),
    'JQ202', NULL, 'nor is a live one');
SELECT throws_ok(format('SELECT jobq.cancel_job(%s)', (SELECT id FROM named WHERE name = 'b_done')),
    'JQ202', NULL, 'nor is store B''s finished job');
SELECT throws_ok(format('SELECT jobq.cancel_job(%s)', (SELECT id FROM named WHERE name = 'a_done')),
    'JQ203', format('JOB.STATE_CONFLICT: job %s already ended as canceled', (SELECT id FROM named WHERE name = 'a_done')),
    'its own store''s finished job is refused with its state');
RESET ROLE;
SET LOCAL ROLE jobq_operator;
SELECT throws_ok(format('SELECT jobq.cancel_job(%s)', (SELECT id FROM named WHERE name = 'system_done')),
    'JQ203', NULL, 'an operator is told a finished system job''s state');
RESET ROLE;
SELECT is((SELECT state FROM jobq.jobs WHERE id = (SELECT id FROM named WHERE name = 'system_live')), 'queued',
          'the live system job is untouched');

SELECT * FROM finish();
ROLLBACK;
