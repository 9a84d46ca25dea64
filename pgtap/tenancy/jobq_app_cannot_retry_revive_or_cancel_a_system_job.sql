-- An application (jobq_app), in a store or in none, cannot retry a waiting or future system job,
-- revive a dead or canceled one, or cancel a live one: to the gate's row policies a system job is
-- not the application's, so retry_job and cancel_job answer JQ202 JOB.NOT_FOUND (cancel of a
-- finished one JQ203, as its history row is readable) and nothing changes, nothing is audited.
BEGIN;
SELECT plan(9);

SELECT jobq_test.reset();
SELECT FROM jobq.define_task('pgtap-system-task', app_enqueue => true);

-- A future system job, a dead one and a canceled one (set up as the superuser).
CREATE TEMP TABLE named (name text, id bigint);
INSERT INTO named VALUES
    ('future', jobq.enqueue('pgtap-system-task', run_at => now() + interval '1 day', queue => 'pgtap_future')),
    ('dead', jobq.enqueue('pgtap-system-task', queue => 'pgtap_dead', max_attempts => 1)),
    ('canceled', jobq.enqueue('pgtap-system-task', queue => 'pgtap_canceled'));
SELECT FROM jobq.cancel_job((SELECT id FROM named WHERE name = 'canceled'));
CREATE TEMP TABLE failed AS SELECT jobq.fail_job(c.id, c.lease_token, 'boom') AS state FROM jobq.claim_job('w', ARRAY['pgtap_dead']) AS c;
SELECT is((SELECT state FROM jobq.job_history WHERE id = (SELECT id FROM named WHERE name = 'dead')), 'dead', 'setup: a dead system job');
GRANT SELECT ON named TO PUBLIC;
CREATE TEMP TABLE snapshot AS
SELECT 'jobs' AS t, to_jsonb(j) AS r FROM jobq.jobs j UNION ALL SELECT 'job_history', to_jsonb(h) FROM jobq.job_history h;
CREATE TEMP TABLE audit_before AS SELECT coalesce(max(id), 0) AS id FROM jobq.audit_log;

SET LOCAL ROLE jobq_app;
SET LOCAL app.current_store_id = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
SELECT throws_ok(format('SELECT jobq.retry_job(%s)', (SELECT id FROM named WHERE name = 'future')),
    'JQ202', NULL, 'retry_job of a future system job: JQ202, it is not the application''s');
SELECT throws_ok(format('SELECT jobq.retry_job(%s)', (SELECT id FROM named WHERE name = 'dead')),
    'JQ202', NULL, 'retry_job of a dead system job: JQ202, no revival');
SELECT throws_ok(format('SELECT jobq.retry_job(%s)', (SELECT id FROM named WHERE name = 'canceled')),
    'JQ202', NULL, 'retry_job of a canceled system job: JQ202');
SELECT throws_ok(format('SELECT jobq.cancel_job(%s)', (SELECT id FROM named WHERE name = 'future')),
    'JQ202', NULL, 'cancel_job of a waiting system job: JQ202');
RESET app.current_store_id;
SELECT throws_ok(format('SELECT jobq.retry_job(%s)', (SELECT id FROM named WHERE name = 'dead')),
    'JQ202', NULL, 'in no store, retry_job of a dead system job: JQ202');
RESET ROLE;

SELECT is_empty(
    $$ SELECT 'jobs' AS t, to_jsonb(j) AS r FROM jobq.jobs j UNION ALL SELECT 'job_history', to_jsonb(h) FROM jobq.job_history h
       EXCEPT SELECT * FROM snapshot $$,
    'the refused calls changed no job');
SELECT is((SELECT count(*) FROM jobq.audit_log WHERE id > (SELECT id FROM audit_before)), 0::bigint, 'and audited nothing');

SET LOCAL ROLE jobq_operator;
SELECT is(jobq.retry_job((SELECT id FROM named WHERE name = 'dead')), 'queued', 'an operator still revives a dead system job');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
