-- GWT-6: the scheduler may run twice (a retry, two runners): the second fan_out with the same key
-- template adds no job, returns the same jobs, and under preserve_run_at (the default) does not
-- move their run_at.
BEGIN;
SELECT plan(7);

-- Known state, whatever database this runs in: no jobs, settings at their migration defaults.
-- Everything is rolled back at the end.
DELETE FROM jobq.jobs;
DELETE FROM jobq.job_history;
UPDATE jobq.settings s SET value = d.value
FROM (VALUES ('history_retention', '7 days'), ('backoff_base', '2 seconds'), ('backoff_max', '1 hour'),
             ('default_max_attempts', '25'), ('default_lease', '30 seconds')) AS d(name, value)
WHERE s.name = d.name;
-- Known stores: A, B and C, and no other (rolled back with the rest).
DELETE FROM public.store;
INSERT INTO public.store (id, name) VALUES ('cccccccc-cccc-4ccc-8ccc-cccccccccccc', 'pgtap C'), ('aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', 'pgtap A'), ('bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb', 'pgtap B');
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
