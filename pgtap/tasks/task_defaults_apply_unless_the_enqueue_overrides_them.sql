-- A task's max_attempts, queue, priority, timeout and backoff apply to its jobs unless the enqueue
-- passes its own; a task without defaults falls back to the global ones.
BEGIN;
SELECT plan(8);

SELECT jobq_test.reset();

SELECT FROM jobq.define_task('pgtap-with-defaults', max_attempts => 3, queue => 'pgtap_slow', priority => -5, timeout => '2 minutes',
                             backoff_base => '5 seconds', backoff_max => '10 minutes');
SELECT jobq_test.tasks('pgtap-without-defaults');

CREATE TEMP TABLE ids AS
SELECT jobq.enqueue('pgtap-with-defaults') AS task_defaults,
       jobq.enqueue('pgtap-with-defaults', max_attempts => 9, queue => 'pgtap_fast', priority => 4, timeout => '30 seconds',
                    backoff_base => '1 second', backoff_max => '1 minute') AS overridden,
       jobq.enqueue('pgtap-with-defaults', max_attempts => NULL, queue => NULL, priority => NULL) AS explicit_nulls,
       jobq.enqueue('pgtap-without-defaults') AS global_defaults;

SELECT results_eq(
    $$ SELECT max_attempts, queue, priority, timeout, backoff_base, backoff_max FROM jobq.jobs WHERE id = (SELECT task_defaults FROM ids) $$,
    $$ VALUES (3, 'pgtap_slow'::text, (-5)::smallint, interval '2 minutes', interval '5 seconds', interval '10 minutes') $$,
    'a job of a task with defaults takes them');
SELECT results_eq(
    $$ SELECT max_attempts, queue, priority, timeout, backoff_base, backoff_max FROM jobq.jobs WHERE id = (SELECT overridden FROM ids) $$,
    $$ VALUES (9, 'pgtap_fast'::text, 4::smallint, interval '30 seconds', interval '1 second', interval '1 minute') $$,
    'what the enqueue passes overrides each task default');
SELECT results_eq(
    $$ SELECT max_attempts, queue, priority FROM jobq.jobs WHERE id = (SELECT explicit_nulls FROM ids) $$,
    $$ VALUES (3, 'pgtap_slow'::text, (-5)::smallint) $$,
    'an explicit NULL takes the task default');
SELECT results_eq(
    $$ SELECT max_attempts, queue, priority, timeout, backoff_base, backoff_max FROM jobq.jobs WHERE id = (SELECT global_defaults FROM ids) $$,
    $$ VALUES (25, 'default'::text, 0::smallint, NULL::interval, NULL::interval, NULL::interval) $$,
    'a task without defaults falls back to the global ones (default queue, priority 0, default_max_attempts)');

CREATE TEMP TABLE many AS
SELECT e.id, e.n FROM jobq.enqueue_many('[{"task": "pgtap-with-defaults"}, {"task": "pgtap-with-defaults", "priority": 1}]') WITH ORDINALITY AS e(id, n);
SELECT results_eq(
    $$ SELECT j.max_attempts, j.queue, j.priority FROM many e JOIN jobq.jobs j ON j.id = e.id ORDER BY e.n $$,
    $$ VALUES (3, 'pgtap_slow'::text, (-5)::smallint), (3, 'pgtap_slow', 1::smallint) $$,
    'enqueue_many applies the task defaults and the overrides the same way');

CREATE TEMP TABLE c AS SELECT * FROM jobq.claim_job('w', ARRAY['pgtap_slow'], 1);
SELECT is((SELECT deadline_at FROM c), now() + interval '2 minutes', 'the task''s default timeout gives the claimed job its deadline');
SELECT is(jobq.fail_job((SELECT id FROM c), (SELECT lease_token FROM c), 'x'), 'retry_pending', 'setup: the claimed job fails once');
SELECT ok((SELECT run_at BETWEEN now() + interval '2.5 seconds' AND now() + interval '5 seconds' FROM jobq.jobs WHERE id = (SELECT id FROM c)),
          'the task''s default backoff_base (5 s) sets the first retry within [2.5 s, 5 s]');

SELECT * FROM finish();
ROLLBACK;
