-- jobq._maintain(…, p_now) marks lost every worker (active, draining or detached) whose last
-- heartbeat is older than the worker_timeout setting, and rescues its leases at once — without
-- waiting for each lease to expire. Workers that heartbeat in time, and their jobs, are left alone.
BEGIN;
SELECT plan(9);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-t');
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
