-- The sweeper writes its own last_error ("orphaned: ..." / "timed out: ..."); the error_code of an
-- earlier, unrelated failure must not stay next to it. The retry path clears error_code; the
-- dead path must too.
BEGIN;
SELECT plan(4);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

CREATE TEMP TABLE jobs AS
SELECT jobq.enqueue('t', queue => 'q', max_attempts => 2) AS dies,
       jobq.enqueue('t', queue => 'q', max_attempts => 3) AS retries;
CREATE TEMP TABLE c1 AS SELECT * FROM jobq.claim_job('w', ARRAY['q'], 2);
SELECT is((SELECT count(*) FROM jobq.fail_jobs(ARRAY(SELECT id FROM c1 ORDER BY id), ARRAY(SELECT lease_token FROM c1 ORDER BY id),
                                               ARRAY['HTTP 503', 'HTTP 503'], ARRAY['UPSTREAM_503', 'UPSTREAM_503'],
                                               retry_in => ARRAY['0', '0']::interval[]) WHERE outcome = 'retry_pending'),
          2::bigint, 'setup: attempt 1 of both jobs failed with error_code UPSTREAM_503');
CREATE TEMP TABLE c2 AS SELECT * FROM jobq.claim_job('vanishing', ARRAY['q'], 2, '30 seconds');
SELECT is((SELECT count(*) FROM jobq._rescue(100, now() + interval '1 minute')), 2::bigint, 'setup: both attempt-2 leases expire and are swept');

SELECT results_eq(
    $$ SELECT state, last_error LIKE 'orphaned: %', error_code FROM jobq.jobs WHERE id = (SELECT retries FROM jobs) $$,
    $$ VALUES ('retry_pending'::text, true, NULL::text) $$,
    'a requeued job carries the sweeper''s message and no error_code');
SELECT results_eq(
    $$ SELECT state, last_error LIKE 'orphaned: %', error_code FROM jobq.job_history WHERE id = (SELECT dies FROM jobs) $$,
    $$ VALUES ('dead'::text, true, NULL::text) $$,
    'a job the sweeper buries carries the sweeper''s message and no stale error_code');

SELECT * FROM finish();
ROLLBACK;
