-- timeout is at most 7 days, backoff_base and backoff_max at most 30 days: a larger one is refused
-- with JOB.OUT_OF_RANGE naming it, and nothing is written. (Keyed, or through enqueue_many:
-- keyless enqueue checks it once the fast path calls jobq._spec_in_bounds.)
BEGIN;
SELECT plan(6);

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
SELECT throws_ok($$ SELECT jobq.enqueue('t', queue => 'q', timeout => '1000000 years') $$,
    'JQ107', 'JOB.OUT_OF_RANGE: timeout 1000000 years is above the limit of 7 days', 'a timeout of 1000000 years is refused');
SELECT throws_ok($$ SELECT jobq.enqueue('t', timeout => '7 days 00:00:01') $$,
    'JQ107', 'JOB.OUT_OF_RANGE: timeout 7 days 00:00:01 is above the limit of 7 days', 'a timeout one second above 7 days is refused');
SELECT throws_ok($$ SELECT jobq.enqueue('t', timeout => '1 second', backoff_base => '1000000 years',
                                        backoff_max => '1000000 years') $$,
    'JQ107', 'JOB.OUT_OF_RANGE: backoff_base 1000000 years is above the limit of 30 days', 'a backoff_base of 1000000 years is refused');
SELECT throws_ok($$ SELECT jobq.enqueue_many('[{"task": "t", "backoff_max": "31 days"}]') $$,
    'JQ107', 'JOB.OUT_OF_RANGE: job 1: backoff_max 31 days is above the limit of 30 days',
    'enqueue_many refuses a keyless job with a backoff_max of 31 days, naming the element');
SELECT lives_ok($$ SELECT jobq.enqueue('t', timeout => '7 days', backoff_base => '30 days', backoff_max => '1 mon') $$,
    'a timeout of 7 days and backoffs of 30 days are accepted');
RESET ROLE;
SELECT is((SELECT count(*) FROM jobq.jobs), (SELECT jobs FROM before) + 1, 'only the job within the limits was written');

SELECT * FROM finish();
ROLLBACK;
