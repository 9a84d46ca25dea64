-- Tenancy: unique_for looks only at jobs of the spec's own store (system jobs are one more store).
-- A live or finished job with the same key in another store, or a system job, is never returned.
BEGIN;
SELECT plan(9);

SELECT jobq_test.reset();
SELECT FROM jobq.define_task('sync', scope => 'store');
SELECT jobq_test.tasks('sync-system');

CREATE TEMP TABLE a AS
SELECT jobq.enqueue('sync', job_key => 'pgtap:k', queue => 'qa', store_id => 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa') AS live;
CREATE TEMP TABLE b AS
SELECT jobq.enqueue('sync', job_key => 'pgtap:k', queue => 'qb', store_id => 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb') AS done;
CREATE TEMP TABLE claimed AS SELECT * FROM jobq.claim_job('w1', ARRAY['qb']);
SELECT FROM jobq.complete_job((SELECT id FROM claimed), (SELECT lease_token FROM claimed));

CREATE TEMP TABLE c AS
SELECT jobq.enqueue('sync', job_key => 'pgtap:k', store_id => 'cccccccc-cccc-4ccc-8ccc-cccccccccccc', unique_for => '1 day') AS id;
SELECT isnt((SELECT id FROM c), (SELECT live FROM a), 'store c does not get store a''s live job');
SELECT isnt((SELECT id FROM c), (SELECT done FROM b), 'nor store b''s finished one');
SELECT is((SELECT store_id FROM jobq.jobs WHERE id = (SELECT id FROM c)), 'cccccccc-cccc-4ccc-8ccc-cccccccccccc'::uuid,
          'store c got a job of its own');

CREATE TEMP TABLE sys AS SELECT jobq.enqueue('sync-system', job_key => 'pgtap:k', unique_for => '1 day') AS id;
SELECT ok((SELECT id FROM sys) NOT IN ((SELECT live FROM a), (SELECT done FROM b), (SELECT id FROM c)),
          'a system job does not get a store''s job of the key');

SELECT is(jobq.enqueue('sync', job_key => 'pgtap:k', store_id => 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb', unique_for => '1 day'),
          (SELECT done FROM b), 'store b gets its own finished job');
SELECT is((SELECT count(*) FROM jobq.jobs WHERE job_key = 'pgtap:k'), 3::bigint, 'live jobs of the key: stores a and c, the system');

-- As an application of store d: its own new job, never b's; naming store b is refused before any look-up.
SELECT FROM set_config('app.current_store_id', 'dddddddd-dddd-4ddd-8ddd-dddddddddddd', true);
SET LOCAL ROLE jobq_app;
SELECT FROM set_config('pgtap.d1', jobq.enqueue('sync', job_key => 'pgtap:k', store_id => 'dddddddd-dddd-4ddd-8ddd-dddddddddddd',
                                                unique_for => '1 day')::text, true);
SELECT FROM set_config('pgtap.d2', jobq.enqueue('sync', job_key => 'pgtap:k', store_id => 'dddddddd-dddd-4ddd-8ddd-dddddddddddd',
                                                unique_for => '1 day')::text, true);
SELECT throws_ok($$ SELECT jobq.enqueue('sync', job_key => 'pgtap:k', store_id => 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb', unique_for => '1 day') $$,
    'JQ406', NULL, 'an application of store d asking for store b''s key is refused (JOB.TENANT_MISMATCH), learning no id');
RESET ROLE;
SELECT ok(current_setting('pgtap.d1')::bigint NOT IN ((SELECT live FROM a), (SELECT done FROM b), (SELECT id FROM c), (SELECT id FROM sys)),
          'an application of store d gets a new job of its own');
SELECT is(current_setting('pgtap.d2'), current_setting('pgtap.d1'), 'and the same job again within the window');

SELECT * FROM finish();
ROLLBACK;
