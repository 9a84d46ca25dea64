-- jobq.enqueue('task') alone: queue default, payload {}, priority 0, max_attempts from the
-- default_max_attempts setting (25), run_at now, state queued, attempt 0, no key, no store.
BEGIN;
SELECT plan(7);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('ping');

CREATE TEMP TABLE job AS SELECT jobq.enqueue('ping') AS id;

SELECT results_eq(
    $$ SELECT task, queue, payload, priority, max_attempts, run_at, state, attempt
       FROM jobq.jobs WHERE id = (SELECT id FROM job) $$,
    $$ VALUES ('ping'::text, 'default'::text, '{}'::jsonb, 0::smallint, 25, now(), 'queued'::text, 0) $$,
    'enqueue defaults to queue default, payload {}, priority 0, max_attempts 25, run_at now(), queued, attempt 0');

SELECT results_eq(
    $$ SELECT job_key, store_id, timeout, backoff_base, backoff_max, lease_token, locked_by, deadline_at
       FROM jobq.jobs WHERE id = (SELECT id FROM job) $$,
    $$ VALUES (NULL::text, NULL::uuid, NULL::interval, NULL::interval, NULL::interval, NULL::uuid, NULL::text, NULL::timestamptz) $$,
    'enqueue leaves key, store, timeout, backoff overrides and lease empty by default');

SELECT is((SELECT max_attempts FROM jobq.jobs WHERE id = (SELECT id FROM job)),
          (SELECT value::integer FROM jobq.settings WHERE name = 'default_max_attempts'),
          'the default max_attempts is the default_max_attempts setting');

CREATE TEMP TABLE nulls AS SELECT jobq.enqueue('ping', queue => NULL, priority => NULL, run_at => NULL, max_attempts => NULL) AS id;
SELECT results_eq(
    $$ SELECT queue, priority, run_at, max_attempts FROM jobq.jobs WHERE id = (SELECT id FROM nulls) $$,
    $$ VALUES ('default'::text, 0::smallint, now(), 25) $$,
    'an explicit NULL queue, priority, run_at or max_attempts takes the default');

SELECT is(jobq.set_setting('default_max_attempts', '3'), '3', 'set_setting returns the new default');
CREATE TEMP TABLE later AS
SELECT jobq.enqueue('ping') AS plain, jobq.enqueue('ping', max_attempts => 9) AS explicit;
SELECT is((SELECT max_attempts FROM jobq.jobs WHERE id = (SELECT plain FROM later)), 3,
          'a changed default_max_attempts setting applies to the next enqueue');
SELECT is((SELECT max_attempts FROM jobq.jobs WHERE id = (SELECT explicit FROM later)), 9,
          'an explicit max_attempts wins over the setting');

SELECT * FROM finish();
ROLLBACK;
