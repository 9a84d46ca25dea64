-- A worker that lost a claim's answer hands back exactly the jobs running under its id whose
-- tokens it does not hold: the job whose token it passes and another worker's job stay running
-- under their leases; the handed-back jobs are queued again at once without using an attempt.
BEGIN;
SELECT plan(9);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-x');
SELECT jobq.enqueue('pgtap-x', queue => 'pgtap_q') FROM generate_series(1, 4);
SELECT FROM jobq.register_worker('pgtap-wa', 'node', 1, ARRAY['pgtap_q'], 3);
SELECT FROM jobq.register_worker('pgtap-wb', 'node', 2, ARRAY['pgtap_q'], 1);
CREATE TEMP TABLE a AS SELECT row_number() OVER (ORDER BY id) AS n, id, lease_token FROM jobq.claim_job('pgtap-wa', ARRAY['pgtap_q'], 3);
CREATE TEMP TABLE b AS SELECT id, lease_token FROM jobq.claim_job('pgtap-wb', ARRAY['pgtap_q'], 1);

SELECT is((SELECT count(*) FROM a), 3::bigint, 'pgtap-wa claimed three jobs');
-- pgtap-wa holds the token of its first job only: the answer that carried the other two was lost.
SELECT results_eq(
    $$ SELECT job_id, task, queue FROM jobq.hand_back_unheld('pgtap-wa', ARRAY[(SELECT lease_token FROM a WHERE n = 1)]) $$,
    $$ SELECT id, 'pgtap-x'::text, 'pgtap_q'::text FROM a WHERE n > 1 ORDER BY id $$,
    'the two jobs whose tokens pgtap-wa does not hold are handed back');
SELECT results_eq(
    $$ SELECT state, attempt, lease_token IS NULL, run_at <= now() FROM jobq.jobs WHERE id IN (SELECT id FROM a WHERE n > 1) ORDER BY id $$,
    $$ VALUES ('queued'::text, 0, true, true), ('queued'::text, 0, true, true) $$,
    'they are queued, due now, without a lease, and the lost claim used no attempt');
SELECT results_eq(
    $$ SELECT state, lease_token, locked_by FROM jobq.jobs WHERE id = (SELECT id FROM a WHERE n = 1) $$,
    $$ SELECT 'running'::text, lease_token, 'pgtap-wa'::text FROM a WHERE n = 1 $$,
    'the job whose token the caller holds is untouched: running under its lease');
SELECT results_eq(
    $$ SELECT state, lease_token, locked_by FROM jobq.jobs WHERE id = (SELECT id FROM b) $$,
    $$ SELECT 'running'::text, lease_token, 'pgtap-wb'::text FROM b $$,
    'another worker''s job is untouched, although pgtap-wa does not hold its token');
SELECT is_empty($$ SELECT * FROM jobq.hand_back_unheld('pgtap-wa', ARRAY[(SELECT lease_token FROM a WHERE n = 1)]) $$,
                'a second call hands back nothing more');
SELECT is((SELECT count(*) FROM jobq.claim_job('pgtap-wb', ARRAY['pgtap_q'], 5)), 2::bigint,
          'the handed-back jobs are claimed again at once');
SELECT lives_ok($$ SELECT jobq.complete_job((SELECT id FROM a WHERE n = 1), (SELECT lease_token FROM a WHERE n = 1)) $$,
                'the held lease still completes its job');
SELECT is((SELECT count(*) FROM jobq.hand_back_unheld('pgtap-wb', '{}')), 3::bigint,
          'with no token held, every job running under the worker is handed back');

SELECT * FROM finish();
ROLLBACK;
