-- One enqueue_many takes at most 100000 jobs.
BEGIN;
SELECT plan(3);

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
SELECT throws_ok($$ SELECT count(*) FROM jobq.enqueue_many((SELECT jsonb_agg(jsonb_build_object('task', 't')) FROM generate_series(1, 100001))) $$,
    'JQ107', 'JOB.OUT_OF_RANGE: jobs has 100001 elements; the limit is 100000', '100001 jobs are refused');
SELECT is((SELECT count(*) FROM jobq.enqueue_many((SELECT jsonb_agg(jsonb_build_object('task', 't')) FROM generate_series(1, 10000)))),
          10000::bigint, '10000 jobs are accepted (the limit is not the batch limit of 10000 of the lease functions)');
RESET ROLE;
SELECT is((SELECT count(*) FROM jobq.jobs), (SELECT jobs FROM before) + 10000, 'the refused batch wrote nothing');

SELECT * FROM finish();
ROLLBACK;
