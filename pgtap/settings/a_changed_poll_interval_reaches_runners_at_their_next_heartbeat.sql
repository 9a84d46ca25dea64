-- Runners pick setting changes up without a restart: an operator's set_setting is in the
-- settings every worker_heartbeat returns from then on (and in what register_worker returns).
BEGIN;
SELECT plan(4);

SELECT jobq_test.reset();
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
