-- jobq._maintain(…, p_now) marks lost every worker (active, draining or detached) whose last
-- heartbeat is older than the worker_timeout setting, and rescues its leases at once — without
-- waiting for each lease to expire. Workers that heartbeat in time, and their jobs, are left alone.
BEGIN;
SELECT plan(9);

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
SELECT FROM jobq.define_task('pgtap-t');
SELECT FROM jobq.register_worker('pgtap-silent', 'node-a', 101, ARRAY['pgtap_q'], 8);
SELECT FROM jobq.register_worker('pgtap-alive', 'node-b', 202, ARRAY['pgtap_q'], 8);
SELECT FROM generate_series(1, 2) AS g CROSS JOIN LATERAL jobq.enqueue('pgtap-t', jsonb_build_object('n', g), queue => 'pgtap_q') AS e;
CREATE TEMP TABLE silent_job AS SELECT * FROM jobq.claim_job('pgtap-silent', ARRAY['pgtap_q'], 1, '10 minutes');
CREATE TEMP TABLE alive_job AS SELECT * FROM jobq.claim_job('pgtap-alive', ARRAY['pgtap_q'], 1, '10 minutes');
-- pgtap-silent last heartbeat 45 seconds ago; its lease still has minutes to run.
UPDATE jobq.workers SET heartbeat_at = now() - interval '45 seconds' WHERE id = 'pgtap-silent';

SELECT lives_ok($$ SELECT jobq.set_setting('worker_timeout', '1 minute') $$, 'setup: worker_timeout is one minute');
SELECT is(jobq._maintain(NULL, NULL, now()) -> 'lost_workers', '[]'::jsonb, 'silent for 45 seconds is not lost under a one-minute timeout');
SELECT lives_ok($$ SELECT jobq.set_setting('worker_timeout', '30 seconds') $$, 'setup: worker_timeout is back to 30 seconds');

CREATE TEMP TABLE did AS SELECT jobq._maintain(NULL, NULL, now()) AS r;
SELECT is((SELECT r -> 'lost_workers' FROM did), '["pgtap-silent"]'::jsonb, 'under 30 seconds, maintain reports the silent worker lost');
SELECT results_eq($$ SELECT id, state, state_changed_at FROM jobq.workers ORDER BY id $$,
                  $$ VALUES ('pgtap-alive'::text, 'active'::text, now()), ('pgtap-silent', 'lost', now()) $$,
                  'it is marked lost; the worker that heartbeats stays active');
SELECT results_eq($$ SELECT state, reason, lease_token FROM jobq.jobs WHERE id = (SELECT id FROM silent_job) $$,
                  $$ VALUES ('retry_pending'::text, 'orphaned'::text, NULL::uuid) $$,
                  'its job was rescued at once, though its lease had minutes left: back in the queue, orphaned');
SELECT throws_ok(format('SELECT jobq.complete_job(%s, %L)', (SELECT id FROM silent_job), (SELECT lease_token FROM silent_job)), 'JQ201', NULL,
                 'the lost worker''s token is refused');
SELECT results_eq($$ SELECT state, lease_token FROM jobq.jobs WHERE id = (SELECT id FROM alive_job) $$,
                  $$ SELECT 'running'::text, lease_token FROM alive_job $$, 'the other worker''s job keeps running');

SELECT is((SELECT r -> 'rescued' FROM did), '1'::jsonb, 'maintain counts the lost worker''s lease among those it rescued');

SELECT * FROM finish();
ROLLBACK;
