-- jobq.set_fair_claiming turned on flags (jobq.jobs.fair) every job of its queue, queued,
-- retry_pending, running and blocked, and no job of another queue, and marks the queue for
-- maintain's recheck; set as it is, it changes no job; a job that was running when the queue was
-- made fair waits again flagged fair, and a fair claim takes it. Turned off, it leaves the flags
-- (only fair claims read jobs_fair_idx) and a plain claim takes every waiting job.
BEGIN;
SELECT plan(10);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-x');
CREATE TEMP TABLE job (q text, name text, id bigint);
INSERT INTO job SELECT q, 'queued', jobq.enqueue('pgtap-x', queue => q, max_attempts => 3) FROM (VALUES ('pgtap_q'), ('pgtap_other')) AS v(q);
INSERT INTO job SELECT q, 'retry', jobq.enqueue('pgtap-x', queue => q, max_attempts => 3, priority => -10) FROM (VALUES ('pgtap_q'), ('pgtap_other')) AS v(q);
INSERT INTO job SELECT q, 'running', jobq.enqueue('pgtap-x', queue => q, max_attempts => 3, priority => -5) FROM (VALUES ('pgtap_q'), ('pgtap_other')) AS v(q);
-- The first two of each queue by priority: the retry jobs fail back to retry_pending, the running ones stay claimed.
CREATE TEMP TABLE c AS SELECT * FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_q'], 2)
                       UNION ALL SELECT * FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_other'], 2);
SELECT jobq.fail_job(c.id, c.lease_token, 'again', 'E_AGAIN') FROM c JOIN job j USING (id) WHERE j.name = 'retry';
INSERT INTO job SELECT q, 'blocked', jobq.enqueue('pgtap-x', queue => q, depends_on => ARRAY[(SELECT id FROM job WHERE name = 'running' AND job.q = v.q)])
FROM (VALUES ('pgtap_q'), ('pgtap_other')) AS v(q);
SELECT results_eq($$ SELECT j.name, s.state FROM job j JOIN jobq.jobs s USING (id) WHERE j.q = 'pgtap_q' ORDER BY 1 $$,
                  $$ VALUES ('blocked', 'blocked'), ('queued', 'queued'), ('retry', 'retry_pending'), ('running', 'running') $$,
                  'setup: a job of the queue in each live state, and the same in another queue');

SELECT jobq.set_fair_claiming('pgtap_q', true);
SELECT results_eq($$ SELECT j.q, bool_and(s.fair), bool_or(s.fair) FROM job j JOIN jobq.jobs s USING (id) GROUP BY 1 ORDER BY 1 $$,
                  $$ VALUES ('pgtap_other', false, false), ('pgtap_q', true, true) $$,
                  'turned on: every job of the queue is flagged fair, whatever its state, and no job of the other queue');
SELECT results_eq($$ SELECT fair, fair_recheck, fair_recheck_after FROM jobq.queues WHERE name = 'pgtap_q' $$,
                  $$ VALUES (true, true, NULL::xid8) $$, 'and the queue is marked for maintain''s recheck');
CREATE TEMP TABLE before AS SELECT xmin::text AS x, id FROM jobq.jobs;
SELECT is(jobq.set_fair_claiming('pgtap_q', true), false, 'set again as it is');
SELECT is_empty($$ SELECT 1 FROM jobq.jobs j JOIN before b USING (id) WHERE j.xmin::text <> b.x $$, 'and no job was rewritten');

-- The running job comes back to wait (fails, retryable) and keeps its flag: a fair claim takes it.
SELECT jobq.fail_job(c.id, c.lease_token, 'again', 'E_AGAIN', retry_in => interval '0') FROM c JOIN job j USING (id)
WHERE j.name = 'running' AND j.q = 'pgtap_q';
SELECT ok((SELECT id FROM job WHERE name = 'running' AND q = 'pgtap_q') IN (SELECT c2.id FROM jobq.claim_job('pgtap-w2', ARRAY['pgtap_q'], 10) AS c2),
          'the job running while the queue was made fair waits again flagged fair: a fair claim takes it');

SELECT jobq.set_fair_claiming('pgtap_q', false);
SELECT results_eq($$ SELECT j.q, bool_and(s.fair), bool_or(s.fair) FROM job j JOIN jobq.jobs s USING (id) WHERE j.name <> 'running' GROUP BY 1 ORDER BY 1 $$,
                  $$ VALUES ('pgtap_other', false, false), ('pgtap_q', true, true) $$,
                  'turned off: the flags stay as they were');
SELECT is((SELECT fair_recheck FROM jobq.queues WHERE name = 'pgtap_q'), false, 'and the queue is no longer marked');
SELECT is((SELECT count(*) FROM jobq.jobs WHERE queue = 'pgtap_q' AND state = 'queued' AND NOT fair), 0::bigint,
          'setup: every waiting job of the queue is flagged');
-- A job enqueued now is not flagged; the claim takes it with the flagged ones.
SELECT jobq.enqueue('pgtap-x', queue => 'pgtap_q');
CREATE TEMP TABLE due AS
SELECT s.id, s.fair FROM jobq.jobs s WHERE s.queue = 'pgtap_q' AND s.state IN ('queued', 'retry_pending') AND s.run_at <= now();
SELECT set_eq($$ SELECT c3.id FROM jobq.claim_job('pgtap-w3', ARRAY['pgtap_q'], 10) AS c3 $$,
              $$ SELECT id FROM due $$,
              'a plain claim of the queue takes every due waiting job, flagged or not');

SELECT * FROM finish();
ROLLBACK;
