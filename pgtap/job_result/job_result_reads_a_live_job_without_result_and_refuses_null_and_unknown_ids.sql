-- job_result reads a job while it or its history row lives: a live job's state with no result
-- yet, a finished job's state, result and finish time (dead and canceled ones have no result). A
-- NULL id is JQ100, an id that never existed or whose history row was pruned JQ202.
BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

CREATE TEMP TABLE job AS SELECT jobq.enqueue('t', queue => 'q') AS queued, jobq.enqueue('t', queue => 'r') AS ran,
                                jobq.enqueue('t', queue => 'x') AS canceled;
CREATE TEMP TABLE c AS SELECT * FROM jobq.claim_job('w', ARRAY['r']);

SELECT results_eq($$ SELECT state, result, finished_at FROM jobq.job_result((SELECT queued FROM job)) $$,
                  $$ VALUES ('queued'::text, NULL::jsonb, NULL::timestamptz) $$, 'a queued job: its state, no result');
SELECT results_eq($$ SELECT state, result FROM jobq.job_result((SELECT ran FROM job)) $$,
                  $$ VALUES ('running'::text, NULL::jsonb) $$, 'a running job: its state, no result');
SELECT FROM jobq.complete_job((SELECT id FROM c), (SELECT lease_token FROM c), '{"answer": 42}');
SELECT FROM jobq.cancel_job((SELECT canceled FROM job));
SELECT results_eq($$ SELECT r.state, r.result, r.finished_at = h.finished_at
                     FROM jobq.job_result((SELECT ran FROM job)) r, jobq.job_history h WHERE h.id = (SELECT ran FROM job) $$,
                  $$ VALUES ('succeeded'::text, '{"answer": 42}'::jsonb, true) $$,
                  'a succeeded job: its state, its result and when it finished');
SELECT results_eq($$ SELECT state, result FROM jobq.job_result((SELECT canceled FROM job)) $$,
                  $$ VALUES ('canceled'::text, NULL::jsonb) $$, 'a canceled job: its state, no result');
SELECT throws_ok('SELECT * FROM jobq.job_result(NULL)', 'JQ100', 'JOB.INVALID_ARGUMENT: job_id is NULL', 'a NULL id is JQ100');
DELETE FROM jobq.job_history WHERE id = (SELECT ran FROM job);
SELECT throws_ok(format('SELECT * FROM jobq.job_result(%s)', (SELECT ran FROM job)), 'JQ202', NULL,
                 'a job whose history row was pruned is JQ202, as an id that never existed');

SELECT * FROM finish();
ROLLBACK;
