-- jobq.retry_job of a dead job (jobq._revive, back from jobq.job_history) flags it fair
-- (jobq.jobs.fair) as its queue is when it comes back, not as it was when the job died; a fair
-- claim takes it.
BEGIN;
SELECT plan(4);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-x');
CREATE TEMP TABLE job AS SELECT q, jobq.enqueue('pgtap-x', queue => q, max_attempts => 1) AS id
FROM (VALUES ('pgtap_fair'), ('pgtap_plain')) AS v(q);
-- A row of jobq.queues for the queue, fair off, so that it is known once its job is dead.
SELECT jobq.set_fair_claiming('pgtap_fair', true), jobq.set_fair_claiming('pgtap_fair', false);
CREATE TEMP TABLE c AS SELECT * FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_fair', 'pgtap_plain'], 10);
SELECT is((SELECT count(*) FROM c WHERE jobq.fail_job(c.id, c.lease_token, 'fatal', 'E_FATAL', retryable => false) = 'dead'), 2::bigint,
          'setup: both jobs died while their queues were plain');
SELECT jobq.set_fair_claiming('pgtap_fair', true);

SELECT is((SELECT count(*) FROM job WHERE jobq.retry_job(job.id) = 'queued'), 2::bigint, 'retry_job queues both again');
SELECT results_eq($$ SELECT j.queue, j.fair FROM jobq.jobs j JOIN job USING (id) ORDER BY 1 $$,
                  $$ VALUES ('pgtap_fair', true), ('pgtap_plain', false) $$,
                  'the job of the queue made fair since is flagged fair, the other not');
SELECT is((SELECT array_agg(c.id) FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_fair'], 10) AS c),
          ARRAY[(SELECT id FROM job WHERE q = 'pgtap_fair')], 'a fair claim takes it');

SELECT * FROM finish();
ROLLBACK;
