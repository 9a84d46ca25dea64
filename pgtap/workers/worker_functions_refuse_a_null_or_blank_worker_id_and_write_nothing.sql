-- Every function that names a worker applies claim_job's rule for worker_id: worker_heartbeat,
-- deregister_worker, drain_worker, resume_worker and detach_worker refuse NULL, empty or spaces
-- only with JOB.INVALID_ARGUMENT (JQ100), not as an unknown worker and not as a silent no-op;
-- maintain takes NULL (with a NULL epoch) as its unfenced form and refuses a blank worker id
-- with an epoch. Each refusal writes nothing.
BEGIN;
SELECT plan(13);

SELECT jobq_test.reset();
SELECT FROM jobq.register_worker('pgtap-w1', 'node-a', 101, ARRAY['pgtap_q'], 8);
CREATE TEMP TABLE before AS SELECT * FROM jobq_test.counts();
CREATE TEMP TABLE before_workers AS SELECT * FROM jobq.workers;
CREATE TEMP TABLE before_leader AS SELECT * FROM jobq.leader;

SET LOCAL ROLE worker_runtime;
SELECT throws_ok($$ SELECT * FROM jobq.worker_heartbeat(NULL, 1) $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: worker_id is NULL or empty', 'worker_heartbeat refuses a NULL worker id');
SELECT throws_ok($$ SELECT * FROM jobq.worker_heartbeat('   ', 1) $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: worker_id is NULL or empty', 'worker_heartbeat refuses a blank worker id');
SELECT throws_ok($$ SELECT jobq.deregister_worker(NULL) $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: worker_id is NULL or empty', 'deregister_worker refuses a NULL worker id');
SELECT throws_ok($$ SELECT jobq.deregister_worker('') $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: worker_id is NULL or empty', 'deregister_worker refuses an empty worker id');
SELECT throws_ok($$ SELECT jobq.maintain('  ', 1) $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: worker_id is NULL or empty', 'maintain refuses a blank worker id with an epoch');
SELECT throws_ok($$ SELECT jobq.maintain(repeat('w', 201), 1) $$,
    'JQ106', 'JOB.VALUE_TOO_LONG: worker_id is 201 characters long; the limit is 200', 'maintain refuses a 201-character worker id');
RESET ROLE;

SET LOCAL ROLE jobq_operator;
SELECT throws_ok($$ SELECT jobq.drain_worker(NULL) $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: worker_id is NULL or empty', 'drain_worker refuses a NULL worker id');
SELECT throws_ok($$ SELECT jobq.drain_worker(' ') $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: worker_id is NULL or empty', 'drain_worker refuses a blank worker id');
SELECT throws_ok($$ SELECT jobq.resume_worker(NULL) $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: worker_id is NULL or empty', 'resume_worker refuses a NULL worker id');
SELECT throws_ok($$ SELECT jobq.detach_worker(NULL) $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: worker_id is NULL or empty', 'detach_worker refuses a NULL worker id');
SELECT throws_ok($$ SELECT jobq.detach_worker('') $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: worker_id is NULL or empty', 'detach_worker refuses an empty worker id');
RESET ROLE;

SELECT results_eq($$ SELECT * FROM jobq_test.counts() $$, $$ SELECT * FROM before $$,
                  'no worker, job or audit row was written');
SELECT ok((SELECT array_agg(w ORDER BY w.id)::text FROM jobq.workers w) = (SELECT array_agg(b ORDER BY b.id)::text FROM before_workers b)
          AND (SELECT l::text FROM jobq.leader l) = (SELECT b::text FROM before_leader b),
          'the registered worker and the leader row are unchanged');

SELECT * FROM finish();
ROLLBACK;
