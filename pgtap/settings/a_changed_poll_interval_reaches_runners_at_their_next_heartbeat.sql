-- Runners pick setting changes up without a restart: an operator's set_setting is in the
-- settings every worker_heartbeat returns from then on (and in what register_worker returns).
BEGIN;
SELECT plan(4);

-- Known state, whatever database this runs in: no jobs, no schedules (nor, by cascade, their
-- runs), no workers, nobody leading (epoch 0), settings at their migration defaults. Everything
-- is rolled back at the end.
DELETE FROM jobq.jobs;
DELETE FROM jobq.job_history;
DELETE FROM jobq.schedules;
DELETE FROM jobq.workers;
UPDATE jobq.leader SET holder = NULL, epoch = 0, acquired_at = NULL, lease_expires_at = NULL;
UPDATE jobq.settings s SET value = d.value
FROM (VALUES ('history_retention', '7 days'), ('backoff_base', '2 seconds'), ('backoff_max', '1 hour'),
             ('default_max_attempts', '25'), ('default_lease', '30 seconds'), ('worker_heartbeat_interval', '5 seconds'),
             ('worker_timeout', '30 seconds'), ('leader_ttl', '15 seconds'), ('maintain_interval', '1 second'),
             ('poll_interval', '1 second')) AS d(name, value)
WHERE s.name = d.name;
SELECT is(jobq.register_worker('pgtap-w1', 'node-a', 101, ARRAY['default'], 4) ->> 'poll_interval', '1 second',
          'at registration the runner polls every second');
SELECT is(jobq.set_setting('poll_interval', '250 milliseconds'), '250 milliseconds', 'an operator sets poll_interval to 250 milliseconds');
SELECT is((SELECT settings ->> 'poll_interval' FROM jobq.worker_heartbeat('pgtap-w1', 0)), '250 milliseconds',
          'the runner''s next heartbeat returns the new value');
SELECT FROM jobq.set_setting('worker_heartbeat_interval', '2 seconds');
SELECT results_eq($$ SELECT settings ->> 'poll_interval', settings ->> 'worker_heartbeat_interval' FROM jobq.worker_heartbeat('pgtap-w1', 0) $$,
                  $$ VALUES ('250 milliseconds'::text, '2 seconds'::text) $$,
                  'a second change (the heartbeat interval itself) arrives the same way, with the first kept');

SELECT * FROM finish();
ROLLBACK;
