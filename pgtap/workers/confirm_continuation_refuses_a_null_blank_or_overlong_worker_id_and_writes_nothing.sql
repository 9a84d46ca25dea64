-- confirm_continuation takes the worker id that claims the leases, under the rule of claim_job's
-- worker_id: NULL, empty or spaces only is JOB.INVALID_ARGUMENT (JQ100), above 200 characters
-- JOB.VALUE_TOO_LONG (JQ106). A refused confirmation writes nothing: the job stays CONFIRMING
-- under its deadline, nothing is audited, and nothing is swept.
BEGIN;
SELECT plan(7);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-t');
SELECT FROM jobq.register_worker('pgtap-w1', 'node-a', 101, ARRAY['pgtap_q'], 8);
SELECT FROM jobq.enqueue('pgtap-t', '{}', queue => 'pgtap_q');
CREATE TEMP TABLE w1_jobs AS SELECT * FROM jobq.claim_job('pgtap-w1', ARRAY['pgtap_q'], 1, '10 minutes');
SELECT jobq.detach_worker('pgtap-w1');
CREATE TEMP TABLE before_jobs AS SELECT id, state, locked_by, lease_token, lease_expires_at, heartbeat_at, updated_at FROM jobq.jobs;
CREATE TEMP TABLE before_continuations AS SELECT * FROM jobq.continuations;
CREATE TEMP TABLE before AS SELECT * FROM jobq_test.counts();
GRANT SELECT ON w1_jobs TO worker_runtime;

SET LOCAL ROLE worker_runtime;
SELECT throws_ok(format('SELECT * FROM jobq.confirm_continuation(NULL, ARRAY[%s], ARRAY[%L]::uuid[])',
                        (SELECT id FROM w1_jobs), (SELECT lease_token FROM w1_jobs)),
    'JQ100', 'JOB.INVALID_ARGUMENT: worker_id is NULL or empty', 'a NULL worker id is refused');
SELECT throws_ok(format('SELECT * FROM jobq.confirm_continuation(%L, ARRAY[%s], ARRAY[%L]::uuid[])', '',
                        (SELECT id FROM w1_jobs), (SELECT lease_token FROM w1_jobs)),
    'JQ100', 'JOB.INVALID_ARGUMENT: worker_id is NULL or empty', 'an empty worker id is refused');
SELECT throws_ok(format('SELECT * FROM jobq.confirm_continuation(%L, ARRAY[%s], ARRAY[%L]::uuid[])', '   ',
                        (SELECT id FROM w1_jobs), (SELECT lease_token FROM w1_jobs)),
    'JQ100', 'JOB.INVALID_ARGUMENT: worker_id is NULL or empty', 'a worker id of spaces only is refused');
SELECT throws_ok(format('SELECT * FROM jobq.confirm_continuation(%L, ARRAY[%s], ARRAY[%L]::uuid[])', repeat('w', 201),
                        (SELECT id FROM w1_jobs), (SELECT lease_token FROM w1_jobs)),
    'JQ106', 'JOB.VALUE_TOO_LONG: worker_id is 201 characters long; the limit is 200', 'a 201-character worker id is refused');
RESET ROLE;

SELECT results_eq($$ SELECT id, state, locked_by, lease_token, lease_expires_at, heartbeat_at, updated_at FROM jobq.jobs ORDER BY id $$,
                  $$ SELECT * FROM before_jobs ORDER BY id $$,
                  'the job is untouched: still running on pgtap-w1 under its token, its lease ending at the confirmation deadline');
SELECT results_eq($$ SELECT * FROM jobq.continuations $$, $$ SELECT * FROM before_continuations $$,
                  'it is still CONFIRMING, under the same deadline');
SELECT results_eq($$ SELECT * FROM jobq_test.counts() $$, $$ SELECT * FROM before $$,
                  'no job, history row or audit row was written');

SELECT * FROM finish();
ROLLBACK;
