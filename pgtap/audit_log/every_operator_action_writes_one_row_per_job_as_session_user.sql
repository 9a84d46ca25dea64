-- Operator actions write exactly one jobq.audit_log row per job they act on, with
-- actor = session_user (the login behind the session, even under SET ROLE).
BEGIN;
SELECT plan(9);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t', 'pgtap-bulk');

CREATE TEMP TABLE named (name text, id bigint);
INSERT INTO named VALUES
    ('waiting', jobq.enqueue('t', queue => 'w', run_at => now() + interval '1 day')),
    ('dead',    jobq.enqueue('t', queue => 'd')),
    ('cancel',  jobq.enqueue('t', queue => 'x')),
    ('delete',  jobq.enqueue('t', queue => 'y')),
    ('bulk1',   jobq.enqueue('pgtap-bulk', queue => 'b')),
    ('bulk2',   jobq.enqueue('pgtap-bulk', queue => 'b'));
CREATE TEMP TABLE c AS SELECT * FROM jobq.claim_job('w', ARRAY['d', 'b'], 3);
SELECT is((SELECT count(*) FROM jobq.fail_jobs(ARRAY(SELECT id FROM c), ARRAY(SELECT lease_token FROM c), NULL,
                                               retryable => ARRAY[false, false, false]) WHERE outcome = 'dead'),
          3::bigint, 'setup: three dead jobs');
GRANT SELECT ON named TO jobq_operator;
CREATE TEMP TABLE audit_before AS SELECT coalesce(max(id), 0) AS id FROM jobq.audit_log;

SET LOCAL ROLE jobq_operator;
SELECT is(jobq.retry_job((SELECT id FROM named WHERE name = 'waiting')), 'queued', 'jobq_operator retries a waiting job');
SELECT is(jobq.retry_job((SELECT id FROM named WHERE name = 'dead')), 'queued', 'jobq_operator retries a dead job');
SELECT is(jobq.cancel_job((SELECT id FROM named WHERE name = 'cancel')), 'canceled', 'jobq_operator cancels a job');
SELECT is(jobq.delete_job((SELECT id FROM named WHERE name = 'delete')), 'queued', 'jobq_operator deletes a job');
SELECT is(jobq.requeue_dead(task => 'pgtap-bulk'), 2::bigint, 'jobq_operator requeues two dead jobs');
SELECT is(jobq.set_setting('history_retention', '14 days'), '14 days', 'jobq_operator changes a setting');
RESET ROLE;

SELECT is((SELECT count(*) FROM jobq.audit_log WHERE id > (SELECT id FROM audit_before)), 7::bigint,
          'seven actions on six jobs and one setting wrote seven audit rows');
SELECT bag_eq(
    $$ SELECT a.action, n.name, a.actor, a.detail->>'previous_state' FROM jobq.audit_log a LEFT JOIN named n ON n.id = a.job_id WHERE a.id > (SELECT id FROM audit_before) $$,
    $$ VALUES ('retry_job'::text, 'waiting'::text, session_user::text COLLATE "default", 'queued'::text),
              ('retry_job', 'dead', session_user::text, 'dead'),
              ('cancel_job', 'cancel', session_user::text, 'queued'),
              ('delete_job', 'delete', session_user::text, 'queued'),
              ('requeue_dead', 'bulk1', session_user::text, 'dead'),
              ('requeue_dead', 'bulk2', session_user::text, 'dead'),
              ('set_setting', NULL, session_user::text, NULL) $$,
    'each action is audited once per job, with its previous state and actor = session_user');

SELECT * FROM finish();
ROLLBACK;
