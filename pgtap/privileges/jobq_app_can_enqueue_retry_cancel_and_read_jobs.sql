BEGIN;
SELECT plan(12);

-- Known state, whatever database this runs in: no jobs, settings at their migration defaults.
-- Everything is rolled back at the end.
DELETE FROM jobq.jobs;
DELETE FROM jobq.job_history;
UPDATE jobq.settings s SET value = d.value
FROM (VALUES ('history_retention', '7 days'), ('backoff_base', '2 seconds'), ('backoff_max', '1 hour'),
             ('default_max_attempts', '25'), ('default_lease', '30 seconds')) AS d(name, value)
WHERE s.name = d.name;

SELECT function_privs_are('jobq', 'enqueue', ARRAY['text', 'jsonb', 'timestamptz', 'text', 'text', 'integer', 'integer', 'text', 'uuid', 'interval', 'interval', 'interval'],
                          'jobq_app', ARRAY['EXECUTE'], 'jobq_app can execute enqueue');
SELECT function_privs_are('jobq', 'enqueue_many', ARRAY['jsonb'], 'jobq_app', ARRAY['EXECUTE'], 'jobq_app can execute enqueue_many');
SELECT function_privs_are('jobq', 'retry_job', ARRAY['bigint'], 'jobq_app', ARRAY['EXECUTE'], 'jobq_app can execute retry_job');
SELECT function_privs_are('jobq', 'cancel_job', ARRAY['bigint'], 'jobq_app', ARRAY['EXECUTE'], 'jobq_app can execute cancel_job');
SELECT table_privs_are('jobq', 'jobs', 'jobq_app', ARRAY['SELECT'], 'jobq_app can only read jobq.jobs');
SELECT table_privs_are('jobq', 'job_history', 'jobq_app', ARRAY['SELECT'], 'jobq_app can only read jobq.job_history');

SET LOCAL ROLE jobq_app;
CREATE TEMP TABLE mine AS
SELECT jobq.enqueue('welcome_email', '{"user": 1}', run_at => now() + interval '1 hour') AS later,
       jobq.enqueue('welcome_email', '{"user": 2}') AS now_;
SELECT results_eq($$ SELECT payload FROM jobq.jobs WHERE id IN (SELECT later FROM mine UNION ALL SELECT now_ FROM mine) ORDER BY id $$,
                  $$ VALUES ('{"user": 1}'::jsonb), ('{"user": 2}') $$, 'as jobq_app, enqueue works and jobq.jobs can be read');
SELECT is((SELECT count(*) FROM jobq.enqueue_many('[{"task": "a"}, {"task": "b"}]')), 2::bigint, 'as jobq_app, enqueue_many works');
SELECT is(jobq.retry_job((SELECT later FROM mine)), 'queued', 'as jobq_app, retry_job works');
SELECT is(jobq.cancel_job((SELECT now_ FROM mine)), 'canceled', 'as jobq_app, cancel_job works');
SELECT is((SELECT state FROM jobq.job_history WHERE id = (SELECT now_ FROM mine)), 'canceled', 'as jobq_app, jobq.job_history can be read');
RESET ROLE;

SELECT is((SELECT run_at FROM jobq.jobs WHERE id = (SELECT later FROM mine)), now(), 'the retry by jobq_app made the job due now');

SELECT * FROM finish();
ROLLBACK;
