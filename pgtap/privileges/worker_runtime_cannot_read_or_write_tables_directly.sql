BEGIN;
SELECT plan(25);

SELECT table_privs_are('jobq', 'jobs', 'worker_runtime', ARRAY[]::text[], 'worker_runtime has no privilege on jobq.jobs');
SELECT table_privs_are('jobq', 'job_history', 'worker_runtime', ARRAY[]::text[], 'worker_runtime has no privilege on jobq.job_history');
SELECT table_privs_are('jobq', 'audit_log', 'worker_runtime', ARRAY[]::text[], 'worker_runtime has no privilege on jobq.audit_log');
SELECT table_privs_are('jobq', 'settings', 'worker_runtime', ARRAY['SELECT'], 'worker_runtime can only read jobq.settings');
SELECT table_privs_are('jobq', 'error_codes', 'worker_runtime', ARRAY['SELECT'], 'worker_runtime can only read jobq.error_codes');
SELECT sequence_privs_are('jobq', 'jobs_id_seq', 'worker_runtime', ARRAY[]::text[], 'worker_runtime has no privilege on jobq.jobs_id_seq');
SELECT table_privs_are('jobq', 'tasks', 'worker_runtime', ARRAY['SELECT'], 'worker_runtime can only read jobq.tasks');
SELECT table_privs_are('jobq', 'schedules', 'worker_runtime', ARRAY['SELECT'], 'worker_runtime can only read jobq.schedules (schedule writes it)');
SELECT table_privs_are('jobq', 'schedule_runs', 'worker_runtime', ARRAY['SELECT'], 'worker_runtime can only read jobq.schedule_runs (maintain writes it)');
SELECT table_privs_are('jobq', 'workers', 'worker_runtime', ARRAY['SELECT'], 'worker_runtime can only read jobq.workers (register_worker and worker_heartbeat write it)');
SELECT table_privs_are('jobq', 'leader', 'worker_runtime', ARRAY['SELECT'], 'worker_runtime can only read jobq.leader (acquire_leadership writes it)');

SET LOCAL ROLE worker_runtime;
SELECT throws_ok($$ SELECT * FROM jobq.jobs $$, '42501', 'permission denied for table jobs', 'as worker_runtime, SELECT on jobq.jobs is denied');
SELECT throws_ok($$ INSERT INTO jobq.jobs (task, max_attempts) VALUES ('t', 1) $$, '42501', 'permission denied for table jobs', 'as worker_runtime, INSERT into jobq.jobs is denied');
SELECT throws_ok($$ UPDATE jobq.jobs SET state = 'queued' $$, '42501', 'permission denied for table jobs', 'as worker_runtime, UPDATE of jobq.jobs is denied');
SELECT throws_ok($$ DELETE FROM jobq.jobs $$, '42501', 'permission denied for table jobs', 'as worker_runtime, DELETE from jobq.jobs is denied');
SELECT throws_ok($$ SELECT * FROM jobq.job_history $$, '42501', 'permission denied for table job_history', 'as worker_runtime, SELECT on jobq.job_history is denied');
SELECT throws_ok($$ DELETE FROM jobq.job_history $$, '42501', 'permission denied for table job_history', 'as worker_runtime, DELETE from jobq.job_history is denied');
SELECT throws_ok($$ SELECT * FROM jobq.audit_log $$, '42501', 'permission denied for table audit_log', 'as worker_runtime, SELECT on jobq.audit_log is denied');
SELECT throws_ok($$ INSERT INTO jobq.audit_log (action) VALUES ('forged') $$, '42501', 'permission denied for table audit_log', 'as worker_runtime, forging an audit row is denied');
SELECT throws_ok($$ UPDATE jobq.settings SET value = '1' WHERE name = 'default_max_attempts' $$, '42501', 'permission denied for table settings',
                 'as worker_runtime, UPDATE of jobq.settings is denied');
SELECT throws_ok($$ TRUNCATE jobq.job_history $$, '42501', 'permission denied for table job_history', 'as worker_runtime, TRUNCATE of jobq.job_history is denied');
SELECT throws_ok($$ SELECT nextval('jobq.jobs_id_seq') $$, '42501', 'permission denied for sequence jobs_id_seq', 'as worker_runtime, nextval on jobq.jobs_id_seq is denied');
SELECT isnt_empty($$ SELECT name, value FROM jobq.settings $$, 'as worker_runtime, jobq.settings can be read');
SELECT throws_ok($$ INSERT INTO jobq.tasks (name) VALUES ('pgtap-forged') $$, '42501', 'permission denied for table tasks', 'as worker_runtime, INSERT into jobq.tasks is denied (define_task validates)');
SELECT throws_ok($$ UPDATE jobq.tasks SET scope = 'system' $$, '42501', 'permission denied for table tasks', 'as worker_runtime, UPDATE of jobq.tasks is denied');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
