-- rescue_expired reports enough about each swept job for a log line and an alert.
BEGIN;
SELECT plan(1);

-- Known state, whatever database this runs in: no jobs, settings at their migration defaults.
-- Everything is rolled back at the end.
DELETE FROM jobq.jobs;
DELETE FROM jobq.job_history;
UPDATE jobq.settings s SET value = d.value
FROM (VALUES ('history_retention', '7 days'), ('backoff_base', '2 seconds'), ('backoff_max', '1 hour'),
             ('default_max_attempts', '25'), ('default_lease', '30 seconds')) AS d(name, value)
WHERE s.name = d.name;
-- The tasks this file enqueues: every enqueue needs a declared task (jobq.define_task is
-- idempotent and puts back a task whose declaration differs).
SELECT FROM jobq.define_task('send-mail', scope => 'store');
SELECT FROM jobq.define_task('ping');

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
