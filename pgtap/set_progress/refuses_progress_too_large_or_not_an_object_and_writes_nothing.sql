-- Progress is a JSON object of at most 65536 bytes as text (jobq._limit('progress_bytes')). 10 MB,
-- an array, a string, a number, JSON null and SQL NULL are each refused with a catalogued error,
-- and the progress already recorded stays as it was.
BEGIN;
SELECT plan(9);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-x');
CREATE TEMP TABLE job AS SELECT jobq.enqueue('pgtap-x', queue => 'pgtap_q') AS id;
CREATE TEMP TABLE c AS SELECT id, lease_token FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_q'], 1);
SELECT jobq.set_progress((SELECT id FROM c), (SELECT lease_token FROM c), '{"step": "before"}');
GRANT SELECT ON c TO worker_runtime;

SET LOCAL ROLE worker_runtime;
SELECT throws_ok($$ SELECT jobq.set_progress((SELECT id FROM c), (SELECT lease_token FROM c),
                                            jsonb_build_object('blob', repeat('x', 10 * 1024 * 1024))) $$,
                 'JQ106', NULL, '10 MB of progress is refused (JOB.VALUE_TOO_LONG)');
SELECT throws_ok($$ SELECT jobq.set_progress((SELECT id FROM c), (SELECT lease_token FROM c),
                                            jsonb_build_object('blob', repeat('x', 65536))) $$,
                 'JQ106', NULL, 'one byte past the limit is refused too');
SELECT lives_ok($$ SELECT jobq.set_progress((SELECT id FROM c), (SELECT lease_token FROM c),
                                           jsonb_build_object('b', repeat('x', 65536 - 9))) $$,
                'exactly 65536 bytes is accepted');
SELECT jobq.set_progress((SELECT id FROM c), (SELECT lease_token FROM c), '{"step": "before"}');
SELECT throws_ok($$ SELECT jobq.set_progress((SELECT id FROM c), (SELECT lease_token FROM c), '[1, 2]') $$,
                 'JQ100', NULL, 'an array is refused (JOB.INVALID_ARGUMENT)');
SELECT throws_ok($$ SELECT jobq.set_progress((SELECT id FROM c), (SELECT lease_token FROM c), '"half"') $$,
                 'JQ100', NULL, 'a string is refused');
SELECT throws_ok($$ SELECT jobq.set_progress((SELECT id FROM c), (SELECT lease_token FROM c), '0.5') $$,
                 'JQ100', NULL, 'a number is refused');
SELECT throws_ok($$ SELECT jobq.set_progress((SELECT id FROM c), (SELECT lease_token FROM c), 'null') $$,
                 'JQ100', NULL, 'JSON null is refused');
SELECT throws_ok($$ SELECT jobq.set_progress((SELECT id FROM c), (SELECT lease_token FROM c), NULL) $$,
                 'JQ100', NULL, 'SQL NULL is refused');
RESET ROLE;
SELECT is((SELECT progress FROM jobq.jobs WHERE id = (SELECT id FROM c)), '{"step": "before"}'::jsonb,
          'the progress recorded before the refusals is unchanged');

SELECT * FROM finish();
ROLLBACK;
