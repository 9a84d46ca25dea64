-- job_key_mode replace (the default): a waiting job with the key takes the new task, payload,
-- run_at, queue, priority and limits, and starts over (attempt 0, state queued); same id.
BEGIN;
SELECT plan(5);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('digest', 'digest-v2');

CREATE TEMP TABLE first AS
SELECT jobq.enqueue('digest', '{"v": 1}', job_key => 'pgtap:digest:7', max_attempts => 5, queue => 'pgtap_digest') AS id;

-- Use an attempt so that the replace has something to reset: claim, then fail (retry later).
CREATE TEMP TABLE claimed AS SELECT * FROM jobq.claim_job('w1', ARRAY['pgtap_digest']);
SELECT is(jobq.fail_job((SELECT id FROM claimed), (SELECT lease_token FROM claimed), 'boom', retry_in => '1 hour'),
          'retry_pending', 'setup: the keyed job failed once and waits for its retry');

CREATE TEMP TABLE second AS
SELECT jobq.enqueue('digest-v2', '{"v": 2}', run_at => now() + interval '10 minutes', job_key => 'pgtap:digest:7',
                    max_attempts => 8, priority => 4, queue => 'pgtap_digests') AS id;

SELECT is((SELECT id FROM second), (SELECT id FROM first), 'replace returns the id of the job that holds the key');
SELECT is((SELECT count(*) FROM jobq.jobs WHERE job_key = 'pgtap:digest:7'), 1::bigint, 'replace creates no second job');
SELECT results_eq(
    $$ SELECT task, payload, run_at, max_attempts, priority, queue FROM jobq.jobs WHERE id = (SELECT id FROM first) $$,
    $$ VALUES ('digest-v2'::text, '{"v": 2}'::jsonb, now() + interval '10 minutes', 8, 4::smallint, 'pgtap_digests'::text) $$,
    'replace overwrites task, payload, run_at, max_attempts, priority and queue');
SELECT results_eq(
    $$ SELECT state, attempt, reason FROM jobq.jobs WHERE id = (SELECT id FROM first) $$,
    $$ VALUES ('queued'::text, 0, 'replaced'::text) $$,
    'replace starts the job over: state queued, attempt 0, reason replaced');

SELECT * FROM finish();
ROLLBACK;
