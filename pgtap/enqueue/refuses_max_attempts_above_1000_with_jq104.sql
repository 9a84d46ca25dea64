-- max_attempts is 1..1000: above is refused with JOB.MAX_ATTEMPTS_INVALID naming it.
BEGIN;
SELECT plan(4);

-- Known state, whatever database this runs in: no jobs, settings at their migration defaults.
-- Everything is rolled back at the end.
DELETE FROM jobq.jobs;
DELETE FROM jobq.job_history;
UPDATE jobq.settings s SET value = d.value
FROM (VALUES ('history_retention', '7 days'), ('backoff_base', '2 seconds'), ('backoff_max', '1 hour'),
             ('default_max_attempts', '25'), ('default_lease', '30 seconds'), ('worker_timeout', '30 seconds'),
             ('max_payload_bytes', '1048576')) AS d(name, value)
WHERE s.name = d.name;
SELECT FROM jobq.define_task('t', app_enqueue => true);
CREATE TEMP TABLE before AS SELECT (SELECT count(*) FROM jobq.jobs) AS jobs, (SELECT count(*) FROM jobq.workers) AS workers,
                                   (SELECT count(*) FROM jobq.audit_log) AS audits;

SET LOCAL ROLE jobq_app;
SELECT throws_ok($$ SELECT jobq.enqueue('t', max_attempts => 1001) $$,
    'JQ104', 'JOB.MAX_ATTEMPTS_INVALID: max_attempts 1001 is outside 1..1000', 'max_attempts 1001 is refused');
SELECT throws_ok($$ SELECT jobq.enqueue_many('[{"task": "t", "max_attempts": 2147483647}]') $$,
    'JQ104', 'JOB.MAX_ATTEMPTS_INVALID: job 1: max_attempts 2147483647 is outside 1..1000', 'enqueue_many refuses the largest integer');
SELECT lives_ok($$ SELECT jobq.enqueue('t', max_attempts => 1000) $$, 'max_attempts 1000 is accepted');
RESET ROLE;
SELECT is((SELECT count(*) FROM jobq.jobs), (SELECT jobs FROM before) + 1, 'only the job within the limit was written');

SELECT * FROM finish();
ROLLBACK;
