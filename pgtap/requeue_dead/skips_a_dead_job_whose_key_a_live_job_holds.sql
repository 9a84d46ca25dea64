BEGIN;
SELECT plan(5);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

CREATE TEMP TABLE audit_before AS SELECT coalesce(max(id), 0) AS id FROM jobq.audit_log;

CREATE TEMP TABLE jobs AS
SELECT jobq.enqueue('t', queue => 'q', job_key => 'pgtap:held') AS held,
       jobq.enqueue('t', queue => 'q', job_key => 'pgtap:free') AS free;
CREATE TEMP TABLE c AS SELECT * FROM jobq.claim_job('w', ARRAY['q'], 2);
SELECT is((SELECT count(*) FROM jobq.fail_jobs(ARRAY(SELECT id FROM c), ARRAY(SELECT lease_token FROM c), NULL,
                                               retryable => ARRAY[false, false]) WHERE outcome = 'dead'),
          2::bigint, 'setup: two keyed jobs died');
CREATE TEMP TABLE live AS SELECT jobq.enqueue('t', queue => 'q', job_key => 'pgtap:held') AS id;

SELECT is(jobq.requeue_dead(), 1::bigint, 'requeue_dead queues only the dead job whose key is free');
SELECT is((SELECT state FROM jobq.job_history WHERE id = (SELECT held FROM jobs)), 'dead',
          'the dead job whose key a live job holds stays dead in history');
SELECT is((SELECT job_key FROM jobq.jobs WHERE id = (SELECT free FROM jobs)), 'pgtap:free', 'the other one is live again with its key');
SELECT set_eq($$ SELECT job_id FROM jobq.audit_log WHERE action = 'requeue_dead' AND id > (SELECT id FROM audit_before) $$, $$ SELECT free FROM jobs $$,
              'only the requeued job is audited');

SELECT * FROM finish();
ROLLBACK;
