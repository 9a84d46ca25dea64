-- Fairness is within a priority: a higher priority's jobs are claimed first, whatever the turn.
-- A fair queue with a per-store concurrency limit keeps the limit and serves the other stores in
-- turn. A fair queue is claimed from its head whatever the position passed, so claim_passed_over
-- reports nothing of it.
BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-x');
INSERT INTO jobq.jobs (task, queue, store_id, priority, max_attempts, run_at)
SELECT 'pgtap-x', 'pgtap_q', 'aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa', 5, 3, now() - interval '1 hour' FROM generate_series(1, 20);
INSERT INTO jobq.jobs (task, queue, store_id, priority, max_attempts, run_at)
SELECT 'pgtap-x', 'pgtap_q', 'bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb', 5, 3, now() FROM generate_series(1, 3);
INSERT INTO jobq.jobs (task, queue, store_id, priority, max_attempts, run_at)
SELECT 'pgtap-x', 'pgtap_q', 'cccccccc-cccc-cccc-cccc-cccccccccccc', 1, 3, now() FROM generate_series(1, 2);
-- Not yet due: never claimed, fair or not.
INSERT INTO jobq.jobs (task, queue, store_id, priority, max_attempts, run_at)
VALUES ('pgtap-x', 'pgtap_q', 'dddddddd-dddd-dddd-dddd-dddddddddddd', 0, 3, now() + interval '1 hour');
SELECT jobq.set_fair_claiming('pgtap_q', true);

SELECT results_eq($$ SELECT store_id, priority FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_q'], 4) ORDER BY priority, store_id $$,
                  $$ VALUES ('cccccccc-cccc-cccc-cccc-cccccccccccc'::uuid, 1::smallint), ('cccccccc-cccc-cccc-cccc-cccccccccccc'::uuid, 1::smallint),
                            ('aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa'::uuid, 5::smallint), ('bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb'::uuid, 5::smallint) $$,
                  'the higher priority first, then the stores of the next priority in turn; the job not yet due is not claimed');

SELECT jobq.set_store_concurrency_limit('pgtap_q', 2);
SELECT results_eq($$ SELECT store_id, count(*) FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_q'], 100) GROUP BY 1 ORDER BY 1 $$,
                  $$ VALUES ('aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa'::uuid, 1::bigint), ('bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb'::uuid, 1::bigint) $$,
                  'fair and limited: each store up to its limit of two running jobs, no more');
SELECT is((SELECT count(*) FROM jobq.jobs WHERE state = 'queued' AND attempt = 0), 20::bigint,
          'the jobs the limit holds back stay queued and used no attempt');
SELECT is(jobq.claim_passed_over(ARRAY['pgtap_q'], ARRAY[5], ARRAY[now() + interval '1 day'], ARRAY[9223372036854775807]), false,
          'claim_passed_over reports nothing of a fair queue: it is claimed from its head');
SELECT jobq.set_store_concurrency_limit('pgtap_q', NULL);
SELECT is((SELECT count(*) FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_q'], 1, after_priority => ARRAY[5], after_run_at => ARRAY[now() + interval '1 day'],
                                               after_id => ARRAY[9223372036854775807])), 1::bigint,
          'a claim with a position past every job still takes the fair queue''s head');
SELECT is((SELECT limits FROM jobq.queue_states() WHERE queue = 'pgtap_q'), '{"fair": true}'::jsonb, 'queue_states shows fair in limits');

SELECT * FROM finish();
ROLLBACK;
