BEGIN;
SELECT plan(9);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('a', 'b', 'slow', 'fast');

SELECT lives_ok($$ SELECT jobq.enqueue_many('[{"task": "a", "queue": "q"}, {"task": "b", "queue": "q"}]') $$, 'setup: two jobs');
CREATE TEMP TABLE claimed AS SELECT * FROM jobq.claim_job('worker-7', ARRAY['q'], 2, '2 minutes');

SELECT is((SELECT count(*) FROM claimed), 2::bigint, 'claim_job claims both due jobs when max_jobs allows');
SELECT is((SELECT count(DISTINCT lease_token) FROM claimed WHERE lease_token IS NOT NULL), 2::bigint,
          'claim_job gives each claimed job its own lease token');
SELECT results_eq(
    $$ SELECT DISTINCT state, attempt, locked_by, claimed_at, heartbeat_at, lease_expires_at FROM jobq.jobs
       WHERE id IN (SELECT id FROM claimed) $$,
    $$ VALUES ('running'::text, 1, 'worker-7'::text, now(), now(), now() + interval '2 minutes') $$,
    'every claimed job is running, attempt 1, locked by the worker, leased until now() + lease');

-- A job that comes back (snoozed) and is claimed again gets a new token.
CREATE TEMP TABLE one AS SELECT * FROM claimed ORDER BY id LIMIT 1;
SELECT is(jobq.snooze((SELECT id FROM one), (SELECT lease_token FROM one), '0'), now(), 'setup: the job is snoozed back to the queue');
CREATE TEMP TABLE reclaimed AS SELECT * FROM jobq.claim_job('worker-8', ARRAY['q']);
SELECT is((SELECT id FROM reclaimed), (SELECT id FROM one), 'the snoozed job is claimed again');
SELECT isnt((SELECT lease_token FROM reclaimed), (SELECT lease_token FROM one), 'a second claim of the same job gets a new lease token');

-- The deadline: claim time + the job's timeout, none without a timeout.
CREATE TEMP TABLE timed AS
SELECT jobq.enqueue('slow', queue => 't1', timeout => '90 seconds') AS with_timeout,
       jobq.enqueue('fast', queue => 't2') AS without_timeout;
CREATE TEMP TABLE c3 AS SELECT * FROM jobq._claim('w', ARRAY['t1', 't2'], 2, '30 seconds', now() + interval '1 minute');
SELECT is((SELECT deadline_at FROM jobq.jobs WHERE id = (SELECT with_timeout FROM timed)), now() + interval '2 minutes 30 seconds',
          'a claimed job with a timeout gets deadline_at = claim time + timeout');
SELECT is((SELECT deadline_at FROM jobq.jobs WHERE id = (SELECT without_timeout FROM timed)), NULL,
          'a claimed job without a timeout has no deadline');

SELECT * FROM finish();
ROLLBACK;
