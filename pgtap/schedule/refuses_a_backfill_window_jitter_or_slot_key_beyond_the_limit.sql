-- schedule: backfill_window at most 7 days, jitter at most 1 day (JQ107), slot_key at most 100
-- characters, queue 200 (JQ106), max_attempts 1..1000 (JQ104). Nothing is written.
BEGIN;
SELECT plan(6);

-- Known state, whatever database this runs in: no jobs, settings at their migration defaults.
-- Everything is rolled back at the end.
DELETE FROM jobq.jobs;
DELETE FROM jobq.job_history;
UPDATE jobq.settings s SET value = d.value
FROM (VALUES ('history_retention', '7 days'), ('backoff_base', '2 seconds'), ('backoff_max', '1 hour'),
             ('default_max_attempts', '25'), ('default_lease', '30 seconds'), ('worker_timeout', '30 seconds'),
             ('leader_ttl', '15 seconds'), ('max_payload_bytes', '1048576')) AS d(name, value)
WHERE s.name = d.name;
SELECT FROM jobq.define_task('t');
CREATE TEMP TABLE before AS SELECT (SELECT count(*) FROM jobq.jobs) AS jobs, (SELECT count(*) FROM jobq.workers) AS workers,
                                   (SELECT count(*) FROM jobq.audit_log) AS audits;
DELETE FROM jobq.schedules WHERE name = 'pgtap-bounds';

SELECT throws_ok($$ SELECT jobq.schedule('pgtap-bounds', '@hourly', 't', backfill_window => '1000000 years') $$,
    'JQ107', 'JOB.OUT_OF_RANGE: backfill_window 1000000 years is above the limit of 7 days', 'a backfill window of 1000000 years is refused');
SELECT throws_ok($$ SELECT jobq.schedule('pgtap-bounds', '@hourly', 't', jitter => '2 days') $$,
    'JQ107', 'JOB.OUT_OF_RANGE: jitter 2 days is above the limit of 1 day', 'a jitter of 2 days is refused');
SELECT throws_ok($$ SELECT jobq.schedule('pgtap-bounds', '@hourly', 't', slot_key => repeat('s', 101)) $$,
    'JQ106', 'JOB.VALUE_TOO_LONG: slot_key is 101 characters long; the limit is 100', 'a 101-character slot key is refused');
SELECT throws_ok($$ SELECT jobq.schedule('pgtap-bounds', '@hourly', 't', queue => repeat('q', 201)) $$,
    'JQ106', 'JOB.VALUE_TOO_LONG: queue is 201 characters long; the limit is 200', 'a 201-character queue is refused');
SELECT throws_ok($$ SELECT jobq.schedule('pgtap-bounds', '@hourly', 't', max_attempts => 1001) $$,
    'JQ104', 'JOB.MAX_ATTEMPTS_INVALID: max_attempts 1001 is outside 1..1000', 'max_attempts 1001 is refused');
SELECT is((SELECT count(*) FROM jobq.schedules WHERE name = 'pgtap-bounds'), 0::bigint, 'no schedule was written');

SELECT * FROM finish();
ROLLBACK;
