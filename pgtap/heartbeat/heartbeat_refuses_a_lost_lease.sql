BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

CREATE TEMP TABLE job AS SELECT jobq.enqueue('t', queue => 'q', run_at => now() - interval '1 minute') AS id;
CREATE TEMP TABLE c AS SELECT * FROM jobq._claim('w1', ARRAY['q'], 1, '30 seconds', now() - interval '20 seconds');

SELECT is(jobq.heartbeat('w1', (SELECT id FROM c), (SELECT lease_token FROM c), '45 seconds'), now() + interval '45 seconds',
          'heartbeat with the claim''s token returns the new expiry now() + lease');
SELECT throws_ok(
    format('SELECT jobq.heartbeat(%L, %s, %L)', 'w1', (SELECT id FROM c), gen_random_uuid()),
    'JQ201', format('JOB.LEASE_LOST: job %s is not running under this lease token for worker w1', (SELECT id FROM c)),
    'heartbeat refuses a wrong token with JQ201 JOB.LEASE_LOST');
SELECT throws_ok(
    format('SELECT jobq.heartbeat(%L, %s, %L)', 'w2', (SELECT id FROM c), (SELECT lease_token FROM c)),
    'JQ201', format('JOB.LEASE_LOST: job %s is not running under this lease token for worker w2', (SELECT id FROM c)),
    'heartbeat refuses the right token from another worker');
SELECT is((SELECT lease_expires_at FROM jobq.jobs WHERE id = (SELECT id FROM c)), now() + interval '45 seconds',
          'the refused heartbeats changed nothing');

SELECT lives_ok($$ SELECT jobq.complete_job((SELECT id FROM c), (SELECT lease_token FROM c)) $$, 'setup: the job completes');
SELECT throws_ok(
    format('SELECT jobq.heartbeat(%L, %s, %L)', 'w1', (SELECT id FROM c), (SELECT lease_token FROM c)),
    'JQ201', format('JOB.LEASE_LOST: job %s is not running under this lease token for worker w1', (SELECT id FROM c)),
    'heartbeat of a finished job raises JQ201');

SELECT * FROM finish();
ROLLBACK;
