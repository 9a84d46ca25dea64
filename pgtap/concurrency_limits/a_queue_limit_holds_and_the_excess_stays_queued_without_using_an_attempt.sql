-- jobq.set_concurrency_limit('pgtap_q', 2): whatever the batch and the worker, no claim takes a job
-- of the queue while two of its jobs run; the others stay queued with attempt 0, and are claimed as
-- slots free. A queue without a limit listed in the same claim is served as before.
BEGIN;
SELECT plan(10);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-x');
SELECT jobq.enqueue('pgtap-x', queue => 'pgtap_q') FROM generate_series(1, 5);
SELECT jobq.enqueue('pgtap-x', queue => 'pgtap_free') FROM generate_series(1, 3);

SELECT is(jobq.set_concurrency_limit('pgtap_q', 2), true, 'the limit is set');
SELECT results_eq($$ SELECT max_running, limited FROM jobq.queues WHERE name = 'pgtap_q' $$,
                  $$ VALUES (2, true) $$, 'jobq.queues shows it');

CREATE TEMP TABLE first_claim AS SELECT * FROM jobq.claim_job('pgtap-w1', ARRAY['pgtap_q'], 10);
SELECT is((SELECT count(*) FROM first_claim), 2::bigint, 'a claim of ten takes two jobs');
SELECT results_eq($$ SELECT id FROM first_claim ORDER BY id $$,
                  $$ SELECT id FROM jobq.jobs WHERE queue = 'pgtap_q' ORDER BY priority, run_at, id LIMIT 2 $$,
                  'the first two in claim order');
SELECT is_empty($$ SELECT * FROM jobq.claim_job('pgtap-w2', ARRAY['pgtap_q'], 1) $$,
                'another worker gets none while two run');
SELECT results_eq($$ SELECT state, attempt FROM jobq.jobs WHERE queue = 'pgtap_q' AND id NOT IN (SELECT id FROM first_claim) $$,
                  $$ VALUES ('queued'::text, 0), ('queued'::text, 0), ('queued'::text, 0) $$,
                  'the three left over stay queued and used no attempt');
SELECT results_eq($$ SELECT queue, count(*) FROM jobq.claim_job('pgtap-w2', ARRAY['pgtap_q', 'pgtap_free'], 10) GROUP BY queue $$,
                  $$ VALUES ('pgtap_free'::text, 3::bigint) $$,
                  'a claim of both queues takes every job of the queue without a limit and none of the full one');
SELECT lives_ok(format('SELECT jobq.complete_job(%s, %L)', (SELECT min(id) FROM first_claim),
                       (SELECT lease_token FROM first_claim ORDER BY id LIMIT 1)), 'one of the two completes');
SELECT is((SELECT count(*) FROM jobq.claim_job('pgtap-w2', ARRAY['pgtap_q'], 10)), 1::bigint,
          'the freed slot is taken by the next claim, one job');
SELECT is((SELECT count(*) FROM jobq.jobs WHERE queue = 'pgtap_q' AND state = 'running'), 2::bigint,
          'two run, as the limit says');

SELECT * FROM finish();
ROLLBACK;
