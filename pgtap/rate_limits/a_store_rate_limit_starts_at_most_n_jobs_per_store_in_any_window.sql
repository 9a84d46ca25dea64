-- jobq.set_store_rate_limit('pgtap_q', 1, '1 minute'): at most one job per store starts in any
-- minute, system jobs being one more store; a store whose window is full does not hold back the
-- others.
BEGIN;
SELECT plan(5);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-x');
INSERT INTO jobq.jobs (task, queue, store_id, max_attempts, run_at)
SELECT 'pgtap-x', 'pgtap_q', s, 3, now() - interval '1 hour'
FROM (VALUES ('aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa'::uuid), ('bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb'::uuid), (NULL::uuid)) AS v(s),
     generate_series(1, 3);

SELECT is(jobq.set_store_rate_limit('pgtap_q', 1, '1 minute'), true, 'the per-store rate limit is set');
SELECT results_eq($$ SELECT store_id, count(*) FROM jobq._claim('pgtap-w', ARRAY['pgtap_q'], 10, '30 seconds', now())
                     GROUP BY store_id ORDER BY store_id NULLS LAST $$,
                  $$ VALUES ('aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa'::uuid, 1::bigint), ('bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb'::uuid, 1::bigint),
                            (NULL::uuid, 1::bigint) $$,
                  'a claim of ten starts one job of each store and one system job');
SELECT is_empty($$ SELECT * FROM jobq._claim('pgtap-w', ARRAY['pgtap_q'], 10, '30 seconds', now() + interval '30 seconds') $$,
                'half a minute later, none');
SELECT is((SELECT count(*) FROM jobq._claim('pgtap-w', ARRAY['pgtap_q'], 10, '30 seconds', now() + interval '61 seconds')), 3::bigint,
          'a minute later, one of each again');
SELECT is((SELECT count(*) FROM jobq.jobs WHERE state = 'queued' AND attempt = 0), 3::bigint, 'the rest wait, no attempt used');

SELECT * FROM finish();
ROLLBACK;
