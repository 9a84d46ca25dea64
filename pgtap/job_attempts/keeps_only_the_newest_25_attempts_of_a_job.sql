-- The attempts of a job are bounded: fail_jobs keeps the newest 25 and deletes older ones of the
-- same job in the same statement; other jobs' attempts are untouched.
BEGIN;
SELECT plan(3);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t', 'other');

CREATE TEMP TABLE job AS SELECT jobq.enqueue('t', queue => 'q', max_attempts => 100) AS id;
SELECT jobq.enqueue('other', queue => 'o', max_attempts => 2);
CREATE TEMP TABLE o AS SELECT * FROM jobq.claim_job('w', ARRAY['o']);
SELECT FROM jobq.fail_job((SELECT id FROM o), (SELECT lease_token FROM o), 'other failed', NULL, true, '0 seconds');

DO $$
DECLARE
    c record;
BEGIN
    FOR i IN 1..30 LOOP
        SELECT * INTO c FROM jobq.claim_job('w', ARRAY['q']);
        PERFORM jobq.fail_job(c.id, c.lease_token, 'failure ' || i, NULL, true, '0 seconds');
    END LOOP;
END
$$;

SELECT is((SELECT count(*) FROM jobq.job_attempts WHERE job_id = (SELECT id FROM job)), 25::bigint, 'thirty failures keep 25 attempts');
SELECT results_eq(
    $$ SELECT min(attempt), max(attempt), max(error) FILTER (WHERE attempt = 30) FROM jobq.job_attempts WHERE job_id = (SELECT id FROM job) $$,
    $$ VALUES (6, 30, 'failure 30'::text) $$,
    'the newest 25 (attempts 6 to 30) are the ones kept');
SELECT is((SELECT count(*) FROM jobq.job_attempts WHERE task = 'other'), 1::bigint, 'another job''s attempt is not touched');

SELECT * FROM finish();
ROLLBACK;
