-- hand_back_unheld acts for a registered worker only, and only on jobs claimed since its current
-- registration: an unregistered id is refused, a detached worker hands back nothing, and a job
-- claimed under the same id before it registered again is left to the sweep.
BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-x');
SELECT jobq.enqueue('pgtap-x', queue => 'pgtap_q') FROM generate_series(1, 3);

SELECT throws_ok($$ SELECT * FROM jobq.hand_back_unheld('pgtap-nobody', '{}') $$, 'JQ605', NULL,
                 'an unregistered worker is refused (JOB.UNKNOWN_WORKER)');
SELECT throws_ok($$ SELECT * FROM jobq.hand_back_unheld('pgtap-wa', NULL) $$, 'JQ100', NULL,
                 'NULL lease_tokens are refused (JOB.INVALID_ARGUMENT)');

-- A job claimed under pgtap-wa by an earlier registration (a process that died and restarted
-- under the same id): its claim lies before the registration's started_at.
SELECT FROM jobq.register_worker('pgtap-wa', 'node', 1, ARRAY['pgtap_q'], 3);
CREATE TEMP TABLE old AS SELECT id FROM jobq.claim_job('pgtap-wa', ARRAY['pgtap_q'], 1);
UPDATE jobq.jobs SET claimed_at = now() - interval '1 minute' WHERE id = (SELECT id FROM old);
CREATE TEMP TABLE cur AS SELECT id FROM jobq.claim_job('pgtap-wa', ARRAY['pgtap_q'], 1);
SELECT results_eq($$ SELECT job_id FROM jobq.hand_back_unheld('pgtap-wa', '{}') $$,
                  $$ SELECT id FROM cur $$,
                  'only the job claimed since the current registration is handed back');
SELECT is((SELECT state FROM jobq.jobs WHERE id = (SELECT id FROM old)), 'running',
          'the job of the earlier registration waits for its lease to expire');

CREATE TEMP TABLE again AS SELECT id FROM jobq.claim_job('pgtap-wa', ARRAY['pgtap_q'], 1);
UPDATE jobq.workers SET state = 'detached' WHERE id = 'pgtap-wa';
SELECT is_empty($$ SELECT * FROM jobq.hand_back_unheld('pgtap-wa', '{}') $$, 'a detached worker hands back nothing');
SELECT is((SELECT state FROM jobq.jobs WHERE id = (SELECT id FROM again)), 'running', 'its job is left as it was');

SELECT * FROM finish();
ROLLBACK;
