-- The leader renews its lease (every ttl/3): a renewal keeps the epoch and writes no audit row.
-- When the lease lapses — p_now past it — the next worker to ask takes over with the next epoch,
-- and every change of leader is audited (leader_changed, with the worker and its epoch). A
-- leader whose lease lapsed gets the next epoch too, even when nobody took over meanwhile.
BEGIN;
SELECT plan(11);

SELECT jobq_test.reset();
CREATE TEMP TABLE audit_before AS SELECT coalesce(max(id), 0) AS id FROM jobq.audit_log;

SELECT is(jobq._acquire_leadership('pgtap-w1', '15 seconds', '2026-05-05 12:00:00+00'), 1::bigint, 'w1 leads with epoch 1');
SELECT is(jobq._acquire_leadership('pgtap-w1', '15 seconds', '2026-05-05 12:00:05+00'), 1::bigint, 'w1 renews at 12:00:05: still epoch 1');
SELECT is(jobq._acquire_leadership('pgtap-w1', '15 seconds', '2026-05-05 12:00:10+00'), 1::bigint, 'and at 12:00:10: still epoch 1');
SELECT results_eq($$ SELECT holder, epoch, acquired_at, lease_expires_at FROM jobq.leader $$,
                  $$ VALUES ('pgtap-w1'::text, 1::bigint, '2026-05-05 12:00:00+00'::timestamptz, '2026-05-05 12:00:25+00'::timestamptz) $$,
                  'a renewal moves the lease on (12:00:25) and keeps acquired_at');
SELECT is(jobq._acquire_leadership('pgtap-w2', '15 seconds', '2026-05-05 12:00:24+00'), NULL::bigint, 'w2 is refused while the renewed lease lives');

-- w1 stops renewing (paused, partitioned); its lease lapses at 12:00:25.
SELECT is(jobq._acquire_leadership('pgtap-w2', '15 seconds', '2026-05-05 12:00:25+00'), 2::bigint, 'once it lapsed, w2 takes over with epoch 2');
SELECT is(jobq._acquire_leadership('pgtap-w1', '15 seconds', '2026-05-05 12:00:26+00'), NULL::bigint, 'w1, back, is refused: w2 leads');
SELECT is(jobq._acquire_leadership('pgtap-w2', '15 seconds', '2026-05-05 12:01:00+00'), 3::bigint,
          'w2 asking again after its own lease lapsed leads with a new epoch, 3');

SELECT results_eq(
    $$ SELECT action, job_id, detail FROM jobq.audit_log WHERE id > (SELECT id FROM audit_before) ORDER BY id $$,
    $$ VALUES ('leader_changed'::text, NULL::bigint, '{"worker_id": "pgtap-w1", "epoch": 1}'::jsonb),
              ('leader_changed', NULL, '{"worker_id": "pgtap-w2", "epoch": 2}'),
              ('leader_changed', NULL, '{"worker_id": "pgtap-w2", "epoch": 3}') $$,
    'each new epoch is audited as leader_changed with its worker; renewals and refusals are not');

-- A renewal at the very instant of the acquisition (acquire_leadership twice in one transaction,
-- where now() does not move) is a renewal as well.
CREATE TEMP TABLE audit_mid AS SELECT max(id) AS id FROM jobq.audit_log;
SELECT is(jobq._acquire_leadership('pgtap-w2', '15 seconds', '2026-05-05 12:01:00+00'), 3::bigint, 'a renewal at the same instant keeps epoch 3');
SELECT is_empty($$ SELECT * FROM jobq.audit_log WHERE id > (SELECT id FROM audit_mid) $$, 'and writes no audit row');

SELECT * FROM finish();
ROLLBACK;
