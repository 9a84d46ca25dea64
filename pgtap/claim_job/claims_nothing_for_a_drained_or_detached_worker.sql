-- A worker an operator drained or detached claims nothing from that moment: the engine checks its
-- registered state, so it claims nothing more while its job is CONFIRMING (jobq.detach_worker).
BEGIN;
SELECT plan(5);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-x');
SELECT jobq.enqueue('pgtap-x', queue => 'pgtap_q') FROM generate_series(1, 3);
SELECT FROM jobq.register_worker('pgtap-wa', 'node', 1, ARRAY['pgtap_q'], 1);
SELECT FROM jobq.register_worker('pgtap-wb', 'node', 2, ARRAY['pgtap_q'], 1);

SELECT is((SELECT count(*) FROM jobq.claim_job('pgtap-wa', ARRAY['pgtap_q'], 1, '30 seconds')), 1::bigint,
          'an active registered worker claims');
SELECT is(jobq.detach_worker('pgtap-wa'), 1, 'detach_worker marks its one job CONFIRMING');
SELECT is_empty($$ SELECT * FROM jobq.claim_job('pgtap-wa', ARRAY['pgtap_q'], 3, '30 seconds') $$,
                'the detached worker claims nothing');
SELECT FROM jobq.drain_worker('pgtap-wb');
SELECT is_empty($$ SELECT * FROM jobq.claim_job('pgtap-wb', ARRAY['pgtap_q'], 3, '30 seconds') $$,
                'a draining worker claims nothing');
SELECT is((SELECT count(*) FROM jobq.claim_job('pgtap-unregistered', ARRAY['pgtap_q'], 3, '30 seconds')), 2::bigint,
          'a caller that never registered is not affected: it claims the two queued jobs (not the CONFIRMING one)');

SELECT * FROM finish();
ROLLBACK;
