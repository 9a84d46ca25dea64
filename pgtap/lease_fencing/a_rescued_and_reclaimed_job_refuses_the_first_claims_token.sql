-- A zombie worker whose lease expired must not be able to write once the job was rescued and
-- claimed again; the new owner's token works.
BEGIN;
SELECT plan(9);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

CREATE TEMP TABLE job AS SELECT jobq.enqueue('t', queue => 'q') AS id;
CREATE TEMP TABLE first AS SELECT * FROM jobq.claim_job('zombie', ARRAY['q'], 1, '30 seconds');

SELECT results_eq(
    $$ SELECT job_id, outcome, reason FROM jobq._rescue(100, now() + interval '1 minute') $$,
    $$ SELECT id, 'retry_pending'::text, 'orphaned'::text FROM job $$,
    'setup: the expired lease is rescued as orphaned');
CREATE TEMP TABLE second AS SELECT * FROM jobq._claim('healthy', ARRAY['q'], 1, '30 seconds', now() + interval '1 minute');
SELECT isnt((SELECT lease_token FROM second), (SELECT lease_token FROM first), 'the second claim holds a different token');

SELECT throws_ok(format('SELECT jobq.complete_job(%s, %L)', (SELECT id FROM job), (SELECT lease_token FROM first)),
    'JQ201', NULL, 'complete_job refuses the first claim''s token');
SELECT throws_ok(format('SELECT jobq.fail_job(%s, %L, %L)', (SELECT id FROM job), (SELECT lease_token FROM first), 'late'),
    'JQ201', NULL, 'fail_job refuses the first claim''s token');
SELECT throws_ok(format('SELECT jobq.heartbeat(%L, %s, %L)', 'zombie', (SELECT id FROM job), (SELECT lease_token FROM first)),
    'JQ201', NULL, 'heartbeat refuses the first claim''s token');
SELECT throws_ok(format('SELECT jobq.snooze(%s, %L, %L)', (SELECT id FROM job), (SELECT lease_token FROM first), '1 hour'),
    'JQ201', NULL, 'snooze refuses the first claim''s token');
SELECT results_eq(
    $$ SELECT state, locked_by, lease_token, attempt FROM jobq.jobs WHERE id = (SELECT id FROM job) $$,
    $$ SELECT 'running'::text, 'healthy'::text, lease_token, 2 FROM second $$,
    'the zombie''s refused writes left the second claim intact');

SELECT lives_ok(format('SELECT jobq.complete_job(%s, %L)', (SELECT id FROM job), (SELECT lease_token FROM second)),
    'complete_job accepts the second claim''s token');
SELECT results_eq(
    $$ SELECT state, attempt, locked_by FROM jobq.job_history WHERE id = (SELECT id FROM job) $$,
    $$ VALUES ('succeeded'::text, 2, 'healthy'::text) $$,
    'the job succeeded on its second attempt under the healthy worker');

SELECT * FROM finish();
ROLLBACK;
