-- Each setting takes the range of what it stands for: history_retention up to 3650 days, the
-- backoffs up to 30 days, the runner intervals (default_lease, leader_ttl, ...) up to 1 day,
-- default_max_attempts up to 1000, max_payload_bytes 1024..268435456; a value at most 1000
-- characters. A refused value changes nothing and is not audited.
BEGIN;
SELECT plan(7);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');
CREATE TEMP TABLE before AS SELECT * FROM jobq_test.counts();

SELECT throws_ok($$ SELECT jobq.set_setting('history_retention', '1000000 years') $$,
    'JQ107', 'JOB.OUT_OF_RANGE: value of setting history_retention 1000000 years is above the limit of 3650 days',
    'a retention of 1000000 years is refused');
SELECT throws_ok($$ SELECT jobq.set_setting('backoff_max', '31 days') $$,
    'JQ107', 'JOB.OUT_OF_RANGE: value of setting backoff_max 31 days is above the limit of 30 days', 'a backoff of 31 days is refused');
SELECT throws_ok($$ SELECT jobq.set_setting('leader_ttl', '2 days') $$,
    'JQ107', 'JOB.OUT_OF_RANGE: value of setting leader_ttl 2 days is above the limit of 1 day', 'a leader_ttl of 2 days is refused');
SELECT throws_ok($$ SELECT jobq.set_setting('default_max_attempts', '1001') $$,
    'JQ107', 'JOB.OUT_OF_RANGE: value of setting default_max_attempts 1001 is outside 1..1000', 'default_max_attempts 1001 is refused');
SELECT throws_ok($$ SELECT jobq.set_setting('max_payload_bytes', '1023') $$,
    'JQ107', 'JOB.OUT_OF_RANGE: value of setting max_payload_bytes 1023 is outside 1024..268435456', 'max_payload_bytes 1023 is refused');
SELECT results_eq($$ SELECT name, value FROM jobq.settings WHERE name IN ('history_retention', 'backoff_max', 'leader_ttl', 'default_max_attempts', 'max_payload_bytes') ORDER BY name $$,
    $$ VALUES ('backoff_max'::text, '1 hour'::text), ('default_max_attempts', '25'), ('history_retention', '7 days'),
              ('leader_ttl', '15 seconds'), ('max_payload_bytes', '1048576') $$,
    'the settings are unchanged');
SELECT is((SELECT count(*) FROM jobq.audit_log), (SELECT audits FROM before), 'nothing was audited');

SELECT * FROM finish();
ROLLBACK;
