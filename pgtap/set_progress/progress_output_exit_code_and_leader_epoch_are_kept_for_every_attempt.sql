-- Every attempt keeps what it left behind: a failed one in jobq.job_attempts, the last one (a
-- succeeded one too) in the job's history row: progress, the output's tail, log_ref, the exit
-- code and the leader epoch current when it was recorded. A retried attempt's progress does
-- not leak into the next attempt.
BEGIN;
SELECT plan(7);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-x');
UPDATE jobq.leader SET epoch = 41;
CREATE TEMP TABLE job AS SELECT jobq.enqueue('pgtap-x', queue => 'pgtap_q') AS id;
CREATE TEMP TABLE c1 AS SELECT id, lease_token FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_q'], 1);
SELECT jobq.set_progress((SELECT id FROM c1), (SELECT lease_token FROM c1), '{"done": 3, "of": 10}');
SELECT outcome FROM jobq.fail_jobs(ARRAY[(SELECT id FROM c1)], ARRAY[(SELECT lease_token FROM c1)], ARRAY['exit status 3'],
                                   retry_in => ARRAY[interval '0'], outputs => ARRAY['half done'], exit_codes => ARRAY[3]);
SELECT results_eq(
    $$ SELECT progress, output, log_ref, exit_code, leader_epoch FROM jobq.job_attempt_list((SELECT id FROM job)) WHERE attempt = 1 $$,
    $$ VALUES ('{"done": 3, "of": 10}'::jsonb, 'half done'::text, format('workerId=pgtap-w jobId=%s attempt=1', (SELECT id FROM job)), 3, 41::bigint) $$,
    'the failed attempt keeps its progress, output, exit code and leader epoch, and job_attempt_list shows the default log_ref');
SELECT is((SELECT progress FROM jobq.jobs WHERE id = (SELECT id FROM job)), NULL, 'the retry waits without the failed attempt''s progress');

UPDATE jobq.leader SET epoch = 42;
CREATE TEMP TABLE c2 AS SELECT id, lease_token FROM jobq.claim_job('pgtap-w2', ARRAY['pgtap_q'], 1);
SELECT is((SELECT progress FROM jobq.jobs WHERE id = (SELECT id FROM job)), NULL, 'the second attempt starts without progress');
SELECT jobq.set_progress((SELECT id FROM c2), (SELECT lease_token FROM c2), '{"done": 10, "of": 10}');
SELECT results_eq(
    $$ SELECT outcome FROM jobq.complete_jobs(ARRAY[(SELECT id FROM c2)], ARRAY[(SELECT lease_token FROM c2)],
                                             ARRAY[repeat('a', 20000) || 'end'], ARRAY['s3://logs/job'], ARRAY[0]) $$,
    ARRAY['succeeded'], 'the second attempt succeeds');
SELECT results_eq(
    $$ SELECT state, progress, right(output, 3), char_length(output), log_ref, exit_code, leader_epoch FROM jobq.job_history WHERE id = (SELECT id FROM job) $$,
    $$ VALUES ('succeeded'::text, '{"done": 10, "of": 10}'::jsonb, 'end'::text, 16384, 's3://logs/job'::text, 0, 42::bigint) $$,
    'the succeeded attempt keeps its progress, the tail of its output (16384 characters), log_ref, exit code and leader epoch');

-- A completion that passes nothing but the leases (a runner of the release before) still shows a
-- log_ref: the default, which job_list derives (jobq.default_log_ref).
CREATE TEMP TABLE job2 AS SELECT jobq.enqueue('pgtap-x', queue => 'pgtap_q') AS id;
CREATE TEMP TABLE c3 AS SELECT id, lease_token FROM jobq.claim_job('pgtap-w3', ARRAY['pgtap_q'], 1);
SELECT complete_job FROM jobq.complete_job((SELECT id FROM c3), (SELECT lease_token FROM c3));
SELECT results_eq(
    $$ SELECT output, log_ref, exit_code, leader_epoch FROM jobq.job_list(id => (SELECT id FROM job2)) $$,
    $$ VALUES (NULL::text, format('workerId=pgtap-w3 jobId=%s attempt=1', (SELECT id FROM job2)), NULL::integer, 42::bigint) $$,
    'a two-argument completion shows the default log_ref and keeps the leader epoch');
SELECT throws_ok($$ SELECT * FROM jobq.complete_jobs(ARRAY[1::bigint, 2], ARRAY[gen_random_uuid(), gen_random_uuid()], ARRAY['one']) $$,
                 'JQ100', NULL, 'outputs of another length than job_ids is refused (JOB.INVALID_ARGUMENT)');

SELECT * FROM finish();
ROLLBACK;
