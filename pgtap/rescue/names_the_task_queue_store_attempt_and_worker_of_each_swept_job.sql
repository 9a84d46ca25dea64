-- rescue_expired reports enough about each swept job for a log line and an alert.
BEGIN;
SELECT plan(1);

SELECT jobq_test.reset();
SELECT FROM jobq.define_task('send-mail', scope => 'store');
SELECT jobq_test.tasks('ping');

SELECT jobq.enqueue('send-mail', queue => 'q', store_id => '5b0c1a7e-0000-4000-8000-000000000001', max_attempts => 1);
SELECT jobq.enqueue('ping', queue => 'q');
CREATE TEMP TABLE c AS SELECT * FROM jobq.claim_job('worker-x', ARRAY['q'], 2, '1 second');

SELECT results_eq(
    $$ SELECT outcome, reason, task, queue, store_id, attempt, locked_by
       FROM jobq._rescue(10, now() + interval '1 minute') ORDER BY task $$,
    $$ VALUES ('retry_pending'::text, 'orphaned'::text, 'ping'::text, 'q'::text, NULL::uuid, 1, 'worker-x'::text),
              ('dead', 'orphaned', 'send-mail', 'q', '5b0c1a7e-0000-4000-8000-000000000001'::uuid, 1, 'worker-x') $$,
    'each swept job comes with its outcome, reason, task, queue, store, attempt and the worker that lost it');

SELECT * FROM finish();
ROLLBACK;
