-- retry_job and cancel_job through the gate: a job of another store does not exist for the caller.
-- They answer JQ202 JOB.NOT_FOUND exactly as for an id that was never used (never JQ203, which would
-- tell that the job exists and what state it is in), change nothing, and work on the caller's jobs.
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

CREATE TEMP TABLE audit_before AS SELECT coalesce(max(id), 0) AS id FROM jobq.audit_log;
GRANT SELECT ON audit_before TO PUBLIC;
SET LOCAL ROLE jobq_app;
SET LOCAL app.current_store_id = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
SELECT throws_ok(format('SELECT jobq.retry_job(%s)', (SELECT id FROM named WHERE name = 'b_live')),
    'JQ202', format('JOB.NOT_FOUND: job %s', (SELECT id FROM named WHERE name = 'b_live')), 'retry_job of B''s live job: JQ202, as if it did not exist');
SELECT throws_ok(format('SELECT jobq.retry_job(%s)', (SELECT id FROM named WHERE name = 'b_done')),
    'JQ202', format('JOB.NOT_FOUND: job %s', (SELECT id FROM named WHERE name = 'b_done')), 'retry_job of B''s finished job: JQ202');
SELECT throws_ok(format('SELECT jobq.cancel_job(%s)', (SELECT id FROM named WHERE name = 'b_live')),
    'JQ202', format('JOB.NOT_FOUND: job %s', (SELECT id FROM named WHERE name = 'b_live')), 'cancel_job of B''s live job: JQ202');
SELECT throws_ok(format('SELECT jobq.cancel_job(%s)', (SELECT id FROM named WHERE name = 'b_done')),
    'JQ202', format('JOB.NOT_FOUND: job %s', (SELECT id FROM named WHERE name = 'b_done')),
    'cancel_job of B''s finished job: JQ202, not JQ203 "already ended"');
SELECT throws_ok(format('SELECT jobq.cancel_job(%s)', (SELECT max(id) + 1000000 FROM named)),
    'JQ202', format('JOB.NOT_FOUND: job %s', (SELECT max(id) + 1000000 FROM named)), 'the same answer as for an id that was never used');
RESET ROLE;
SELECT is_empty(
    $$ SELECT 'jobs' AS t, to_jsonb(j) AS r FROM jobq.jobs j UNION ALL SELECT 'job_history', to_jsonb(h) FROM jobq.job_history h
       EXCEPT SELECT * FROM snapshot $$,
    'the refused calls changed no job');
SELECT is((SELECT count(*) FROM jobq.audit_log WHERE id > (SELECT id FROM audit_before)), 0::bigint, 'and wrote no audit row');

SET LOCAL ROLE jobq_app;
SET LOCAL app.current_store_id = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
SELECT is(jobq.retry_job((SELECT id FROM named WHERE name = 'a_done')), 'queued', 'retry_job of A''s finished job works');
SELECT is(jobq.cancel_job((SELECT id FROM named WHERE name = 'a_live')), 'canceled', 'cancel_job of A''s live job works');
RESET ROLE;
SELECT results_eq($$ SELECT action, n.name FROM jobq.audit_log a JOIN named n ON n.id = a.job_id WHERE a.id > (SELECT id FROM audit_before) ORDER BY a.id $$,
                  $$ VALUES ('retry_job'::text, 'a_done'::text), ('cancel_job', 'a_live') $$, 'only the actions on A''s jobs are audited');

SELECT * FROM finish();
ROLLBACK;
