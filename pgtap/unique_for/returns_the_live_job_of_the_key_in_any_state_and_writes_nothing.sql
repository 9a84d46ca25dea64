-- unique_for: an enqueue with a job_key and unique_for returns the live job that holds the key and
-- was enqueued within the window, whatever its state (queued, running, retry_pending), and writes
-- nothing: no merge (even under replace), no new job, the running job keeps its key.
BEGIN;
SELECT plan(8);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

CREATE TEMP TABLE first AS
SELECT jobq.enqueue('t', '{"v": 1}', queue => 'q', job_key => 'pgtap:a', unique_for => '1 hour') AS queued,
       jobq.enqueue('t', '{"v": 1}', queue => 'r', job_key => 'pgtap:b', unique_for => '1 hour') AS running,
       jobq.enqueue('t', '{"v": 1}', queue => 'p', job_key => 'pgtap:c', unique_for => '1 hour') AS pending;
CREATE TEMP TABLE claimed AS SELECT * FROM jobq.claim_job('w1', ARRAY['r']);
CREATE TEMP TABLE failed AS SELECT * FROM jobq.claim_job('w1', ARRAY['p']);
SELECT FROM jobq.fail_job((SELECT id FROM failed), (SELECT lease_token FROM failed), 'boom');
CREATE TEMP TABLE rows_before AS SELECT j.*, j.ctid::text AS version FROM jobq.jobs j;

SELECT is(jobq.enqueue('t', '{"v": 2}', queue => 'q', job_key => 'pgtap:a', unique_for => '1 hour'),
          (SELECT queued FROM first), 'a queued job of the key is returned');
SELECT is(jobq.enqueue('t', '{"v": 2}', queue => 'r', job_key => 'pgtap:b', unique_for => '1 hour'),
          (SELECT running FROM first), 'a running job of the key is returned (replace would have taken its key)');
SELECT is(jobq.enqueue('t', '{"v": 2}', queue => 'p', job_key => 'pgtap:c', unique_for => '30 minutes',
                       job_key_mode => 'preserve_run_at'),
          (SELECT pending FROM first), 'a job waiting for its retry is returned, whatever the mode');
SELECT is((SELECT state FROM jobq.jobs WHERE id = (SELECT pending FROM first)), 'retry_pending', 'it was waiting for its retry');
SELECT is(jobq.enqueue('t', '{"v": 3}', queue => 'q', job_key => 'pgtap:a', unique_for => '1 second'),
          (SELECT queued FROM first), 'any window that reaches back to its created_at matches');

SELECT is((SELECT count(*) FROM jobq.jobs), 3::bigint, 'no job was added');
SELECT results_eq($$ SELECT id, payload, job_key, state, ctid::text FROM jobq.jobs ORDER BY id $$,
                  $$ SELECT id, payload, job_key, state, version FROM rows_before ORDER BY id $$,
                  'no row was rewritten: payloads, keys and states as they were');
SELECT is((SELECT job_key FROM jobq.jobs WHERE id = (SELECT running FROM first)), 'pgtap:b', 'the running job keeps its key');

SELECT * FROM finish();
ROLLBACK;
