-- In a tenant transaction (app.current_store_id set) a worker reports progress only for a job of
-- that store: another store's job and a system job are refused (JOB.TENANT_MISMATCH) and keep
-- their progress, even with their right lease token.
BEGIN;
SELECT plan(5);

SELECT jobq_test.reset();
SELECT jobq_test.stores('aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa', 'bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb');
SELECT jobq.define_task('pgtap-store-task', scope => 'store');
SELECT jobq_test.tasks('pgtap-system-task');
CREATE TEMP TABLE a AS SELECT jobq.enqueue('pgtap-store-task', queue => 'pgtap_a', store_id => 'aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa') AS id;
CREATE TEMP TABLE b AS SELECT jobq.enqueue('pgtap-store-task', queue => 'pgtap_b', store_id => 'bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb') AS id;
CREATE TEMP TABLE s AS SELECT jobq.enqueue('pgtap-system-task', queue => 'pgtap_s') AS id;
CREATE TEMP TABLE c AS SELECT id, lease_token FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_a', 'pgtap_b', 'pgtap_s'], 3);
GRANT SELECT ON a, b, s, c TO worker_runtime;

SET LOCAL ROLE worker_runtime;
SET LOCAL app.current_store_id = 'aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa';
SELECT lives_ok($$ SELECT jobq.set_progress((SELECT id FROM a), (SELECT lease_token FROM c WHERE id = (SELECT id FROM a)), '{"n": 1}') $$,
                'the session''s own store''s job takes its progress');
SELECT throws_ok($$ SELECT jobq.set_progress((SELECT id FROM b), (SELECT lease_token FROM c WHERE id = (SELECT id FROM b)), '{"n": 2}') $$,
                 'JQ406', NULL, 'another store''s job is refused (JOB.TENANT_MISMATCH)');
SELECT throws_ok($$ SELECT jobq.set_progress((SELECT id FROM s), (SELECT lease_token FROM c WHERE id = (SELECT id FROM s)), '{"n": 3}') $$,
                 'JQ406', NULL, 'a system job is refused in a tenant transaction');
RESET app.current_store_id;
RESET ROLE;
SELECT results_eq($$ SELECT id, progress FROM jobq.jobs WHERE id IN ((SELECT id FROM a), (SELECT id FROM b), (SELECT id FROM s)) ORDER BY id $$,
                  $$ VALUES ((SELECT id FROM a), '{"n": 1}'::jsonb), ((SELECT id FROM b), NULL::jsonb), ((SELECT id FROM s), NULL::jsonb) $$,
                  'only the own store''s job has progress');
SET LOCAL ROLE worker_runtime;
SELECT lives_ok($$ SELECT jobq.set_progress((SELECT id FROM b), (SELECT lease_token FROM c WHERE id = (SELECT id FROM b)), '{"n": 2}') $$,
                'outside a tenant transaction the runner reports any job it holds');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
