-- Job keys are per store: a key that store B holds tells store A nothing. The same key in A, in
-- every job_key_mode, makes or finds A's own job and never touches or returns B's.
BEGIN;
SELECT plan(7);

SELECT jobq_test.reset();
SELECT FROM jobq.define_task('pgtap-store-task', scope => 'store');
SELECT jobq_test.tasks('pgtap-system-task');

-- Store A, store B and the system each have a live job and a finished (canceled) one (named).
SELECT jobq_test.tenant_jobs();
SELECT is((SELECT count(*) FROM (SELECT id FROM named WHERE name LIKE '%\_done') AS d CROSS JOIN LATERAL jobq.cancel_job(d.id) AS c),
          3::bigint, 'setup: a live and a finished job in store A, in store B and in the system');
GRANT SELECT ON named TO PUBLIC;
CREATE TEMP TABLE snapshot AS
SELECT 'jobs' AS t, to_jsonb(j) AS r FROM jobq.jobs j UNION ALL SELECT 'job_history', to_jsonb(h) FROM jobq.job_history h;

CREATE TEMP TABLE b_keyed AS SELECT jobq.enqueue('pgtap-store-task', '{"v": "b"}', store_id => 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb', job_key => 'pgtap:nightly',
                                                 run_at => now() + interval '1 day') AS id;
GRANT SELECT ON b_keyed TO PUBLIC;
CREATE TEMP TABLE b_snapshot AS SELECT * FROM jobq.jobs WHERE id = (SELECT id FROM b_keyed);

SET LOCAL ROLE jobq_app;
SET LOCAL app.current_store_id = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
CREATE TEMP TABLE probes AS
SELECT jobq.enqueue('pgtap-store-task', '{"v": "a1"}', store_id => 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', job_key => 'pgtap:nightly', job_key_mode => 'unsafe_dedupe') AS dedupe,
       jobq.enqueue('pgtap-store-task', '{"v": "a2"}', store_id => 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', job_key => 'pgtap:nightly', job_key_mode => 'preserve_run_at') AS preserve,
       jobq.enqueue('pgtap-store-task', '{"v": "a3"}', store_id => 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', job_key => 'pgtap:nightly') AS replace_;
SELECT isnt((SELECT dedupe FROM probes), (SELECT id FROM b_keyed), 'unsafe_dedupe with B''s key in store A does not return B''s job');
SELECT is((SELECT preserve FROM probes), (SELECT dedupe FROM probes), 'preserve_run_at with the key finds A''s own job');
SELECT is((SELECT replace_ FROM probes), (SELECT dedupe FROM probes), 'replace with the key finds A''s own job');
SELECT is((SELECT count(*) FROM jobq.jobs WHERE job_key = 'pgtap:nightly'), 1::bigint, 'store A sees one job with the key: its own');
RESET ROLE;
SELECT is_empty($$ SELECT * FROM jobq.jobs WHERE id = (SELECT id FROM b_keyed) EXCEPT SELECT * FROM b_snapshot $$,
                'B''s job with the key is untouched: payload, run_at, state');
SELECT results_eq($$ SELECT store_id, payload FROM jobq.jobs WHERE job_key = 'pgtap:nightly' ORDER BY store_id $$,
                  $$ VALUES ('aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa'::uuid, '{"v": "a3"}'::jsonb), ('bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb', '{"v": "b"}') $$,
                  'two live jobs hold the key, one per store');

SELECT * FROM finish();
ROLLBACK;
