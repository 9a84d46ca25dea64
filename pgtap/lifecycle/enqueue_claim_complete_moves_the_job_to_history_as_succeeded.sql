-- The happy path of one job: enqueue -> claim -> complete.
BEGIN;
SELECT plan(16);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('send-email');

CREATE TEMP TABLE job AS
SELECT jobq.enqueue('send-email', '{"to": "a@example.com"}', queue => 'pgtap_mail') AS id;

SELECT is((SELECT state FROM jobq.jobs WHERE id = (SELECT id FROM job)), 'queued',
          'enqueue puts the new job in jobq.jobs as queued');

CREATE TEMP TABLE claimed AS
SELECT * FROM jobq.claim_job('worker-1', ARRAY['pgtap_mail'], 1, '45 seconds');

SELECT is((SELECT count(*) FROM claimed), 1::bigint, 'claim_job returns the one due job');
SELECT is((SELECT id FROM claimed), (SELECT id FROM job), 'claim_job returns the enqueued job');

SELECT results_eq(
    $$ SELECT state, attempt, locked_by, claimed_at, heartbeat_at, lease_expires_at
       FROM jobq.jobs WHERE id = (SELECT id FROM job) $$,
    $$ VALUES ('running'::text, 1, 'worker-1'::text, now(), now(), now() + interval '45 seconds') $$,
    'claim_job marks the job running, attempt 1, locked by the worker, lease_expires_at = now() + lease');
SELECT isnt((SELECT lease_token FROM jobq.jobs WHERE id = (SELECT id FROM job)), NULL,
            'claim_job gives the claimed job a lease token');
SELECT is((SELECT lease_token FROM jobq.jobs WHERE id = (SELECT id FROM job)), (SELECT lease_token FROM claimed),
          'claim_job returns the lease token it stored');
SELECT is((SELECT state FROM claimed), 'running', 'claim_job returns the row as it is after the claim');

SELECT lives_ok(
    $$ SELECT jobq.complete_job((SELECT id FROM claimed), (SELECT lease_token FROM claimed)) $$,
    'complete_job accepts the lease token of the claim');

SELECT is_empty($$ SELECT 1 FROM jobq.jobs WHERE id = (SELECT id FROM job) $$,
                'a completed job is gone from jobq.jobs');
SELECT results_eq(
    $$ SELECT state, reason, attempt, task, queue, payload, locked_by, finished_at
       FROM jobq.job_history WHERE id = (SELECT id FROM job) $$,
    $$ VALUES ('succeeded'::text, NULL::text, 1, 'send-email'::text, 'pgtap_mail'::text,
               '{"to": "a@example.com"}'::jsonb, 'worker-1'::text, now()) $$,
    'the completed job is in jobq.job_history as succeeded, keeping task, queue, payload, attempt and worker');
SELECT is((SELECT count(*) FROM jobq.job_history WHERE id = (SELECT id FROM job)), 1::bigint,
          'complete_job writes exactly one history row');

SELECT is_empty($$ SELECT * FROM jobq.claim_job('worker-2', ARRAY['pgtap_mail']) $$,
                'a completed job is never claimed again');
SELECT lives_ok(
    format('SELECT jobq.complete_job(%s, %L)', (SELECT id FROM claimed), (SELECT lease_token FROM claimed)),
    'complete_job is idempotent per lease: completing the same attempt again (a retry after a lost reply) succeeds');
SELECT is((SELECT count(*) FROM jobq.job_history WHERE id = (SELECT id FROM job)), 1::bigint,
          'the repeated complete writes no second history row');
SELECT throws_ok(
    format('SELECT jobq.complete_job(%s, gen_random_uuid())', (SELECT id FROM claimed)),
    'JQ201',
    format('JOB.LEASE_LOST: job %s is not running under this lease token', (SELECT id FROM claimed)),
    'complete_job refuses a finished job under any other token');
SELECT is((SELECT state FROM jobq.job_history WHERE id = (SELECT id FROM job)), 'succeeded',
          'the refused complete leaves the history row as it was');

SELECT * FROM finish();
ROLLBACK;
