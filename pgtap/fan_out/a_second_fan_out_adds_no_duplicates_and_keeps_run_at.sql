-- GWT-6: the scheduler may run twice (a retry, two runners): the second fan_out with the same key
-- template adds no job, returns the same jobs, and under preserve_run_at (the default) does not
-- move their run_at.
BEGIN;
SELECT plan(7);

SELECT jobq_test.reset();
SELECT jobq_test.stores('cccccccc-cccc-4ccc-8ccc-cccccccccccc', 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb');
SELECT FROM jobq.define_task('pgtap-expire-tentative', scope => 'store', payload_schema => '{"storeId": "uuid", "targetDate": "date"}',
                             queue => 'pgtap_maintenance');

SET LOCAL ROLE worker_runtime;
SELECT is(jobq.fan_out('pgtap-expire-tentative', '{"targetDate": "2024-05-01"}', 'expire_tentative:{storeId}', run_at => now() + interval '1 hour'), 3,
          'the first fan-out enqueues three jobs');
RESET ROLE;
CREATE TEMP TABLE first AS SELECT id, store_id, run_at FROM jobq.jobs;

SET LOCAL ROLE worker_runtime;
SELECT is(jobq.fan_out('pgtap-expire-tentative', '{"targetDate": "2024-05-01"}', 'expire_tentative:{storeId}', run_at => now() + interval '2 hours'), 3,
          'the second fan-out reports the same three jobs');
RESET ROLE;
SELECT is((SELECT count(*) FROM jobq.jobs), 3::bigint, 'the second fan-out added no job');
SELECT set_eq($$ SELECT id, store_id, run_at FROM jobq.jobs $$, $$ SELECT id, store_id, run_at FROM first $$,
              'the same jobs, with the run_at of the first fan-out (preserve_run_at)');

SET LOCAL ROLE worker_runtime;
SELECT is(jobq.fan_out('pgtap-expire-tentative', '{"targetDate": "2024-05-01"}', 'expire_tentative:{storeId}', 'replace', now() + interval '2 hours'), 3,
          'with job_key_mode replace, a third fan-out reports the three jobs again');
RESET ROLE;
SELECT is((SELECT count(*) FROM jobq.jobs), 3::bigint, 'still no duplicate');
SELECT is((SELECT count(*) FROM jobq.jobs WHERE run_at = now() + interval '2 hours'), 3::bigint, 'replace moves run_at to the new one');

SELECT * FROM finish();
ROLLBACK;
