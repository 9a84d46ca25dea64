-- fail_jobs takes, per lease, why the attempt failed (error, or timed_out for a handler stopped by
-- its timeout), the tail of its output and a log reference, and keeps them in the attempt row:
-- the output cut to its last 16384 characters, the log reference to its first 1000, the
-- default log reference naming the worker, job and attempt. A timed-out last attempt dies as
-- timed_out; any other reason is refused.
BEGIN;
SELECT plan(7);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-t');
SELECT jobq.enqueue('pgtap-t', '{"n": 1}', queue => 'pgtap_q');
SELECT jobq.enqueue('pgtap-t', '{"n": 2}', queue => 'pgtap_q', max_attempts => 1);
SELECT jobq.enqueue('pgtap-t', '{"n": 3}', queue => 'pgtap_q');
CREATE TEMP TABLE c AS SELECT *, row_number() OVER (ORDER BY id) AS n FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_q'], 3, '1 minute');

SELECT results_eq(
    $$ SELECT outcome FROM jobq.fail_jobs(ARRAY(SELECT id FROM c ORDER BY id), ARRAY(SELECT lease_token FROM c ORDER BY id),
                                          ARRAY['timed out after 1s: context deadline exceeded', 'timed out again', 'boom'],
                                          reasons => ARRAY['timed_out', 'timed_out', NULL],
                                          outputs => ARRAY[repeat('x', 20000) || 'END', NULL, 'last line'],
                                          log_refs => ARRAY['https://logs.example/run/1', NULL, repeat('r', 1200)]) $$,
    $$ VALUES ('retry_pending'::text), ('dead'), ('retry_pending') $$,
    'three failures: two retried, the one on its last attempt dead');
SELECT is((SELECT reason FROM jobq.jobs WHERE id = (SELECT id FROM c WHERE n = 1)), 'timed_out', 'a retried timed-out job says timed_out');
SELECT is((SELECT state || '/' || reason FROM jobq.job_history WHERE id = (SELECT id FROM c WHERE n = 2)), 'dead/timed_out',
          'a timed-out last attempt dies as timed_out, not exhausted');
SELECT results_eq(
    $$ SELECT a.reason, char_length(a.output), right(a.output, 3), a.log_ref FROM c CROSS JOIN LATERAL jobq.job_attempt_list(c.id) a ORDER BY c.id $$,
    $$ SELECT * FROM (VALUES ('timed_out'::text, 16384, 'END'::text, 'https://logs.example/run/1'::text),
                             ('timed_out', NULL, NULL, format('workerId=pgtap-w jobId=%s attempt=1', (SELECT id FROM c WHERE n = 2))),
                             ('error', 9, 'ine', repeat('r', 1000))) AS v(a, b, c, d) $$,
    'each attempt keeps its reason, the last 16384 characters of its output and its log reference (cut to 1000), and job_attempt_list shows the default for none');
SELECT throws_ok(
    $$ SELECT * FROM jobq.fail_jobs(ARRAY[1::bigint], ARRAY[gen_random_uuid()], ARRAY['x'], reasons => ARRAY['orphaned']) $$,
    'JQ100', NULL, 'a reason other than error or timed_out is refused');
SELECT throws_ok(
    $$ SELECT * FROM jobq.fail_jobs(ARRAY[1::bigint], ARRAY[gen_random_uuid()], ARRAY['x'], outputs => ARRAY['a', 'b']) $$,
    'JQ100', NULL, 'an outputs array of another length is refused');
SELECT results_eq(
    $$ SELECT outcome FROM jobq.fail_jobs(ARRAY[(SELECT id FROM c WHERE n = 3)], ARRAY[(SELECT lease_token FROM c WHERE n = 3)], ARRAY['again']) $$,
    $$ VALUES ('lease_lost'::text) $$, 'the six-argument call of earlier runners still works');

SELECT * FROM finish();
ROLLBACK;
