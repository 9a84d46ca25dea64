-- An operator's drain or detach outlives a lapse: a draining or detached worker silent past
-- worker_timeout keeps the state the operator gave it (only an active one is marked lost), and
-- when it heartbeats again it is still draining or detached — not active, which would have it
-- claim again against the operator's decision.
BEGIN;
SELECT plan(4);

SELECT jobq_test.reset();
SELECT FROM jobq.register_worker('pgtap-drained', 'node-a', 101, ARRAY['pgtap_q'], 8);
SELECT FROM jobq.register_worker('pgtap-detached', 'node-b', 202, ARRAY['pgtap_q'], 8);
SELECT FROM jobq.drain_worker('pgtap-drained');
SELECT FROM jobq.detach_worker('pgtap-detached');
UPDATE jobq.workers SET heartbeat_at = now() - interval '1 minute';
SELECT is(jobq._maintain(NULL, NULL, now()) -> 'lost_workers', '[]'::jsonb, 'a silent draining or detached worker is not marked lost');
SELECT results_eq($$ SELECT id, state FROM jobq.workers ORDER BY id $$,
                  $$ VALUES ('pgtap-detached'::text, 'detached'::text), ('pgtap-drained', 'draining') $$,
                  'both keep the state the operator gave them');

SELECT is((SELECT state FROM jobq.worker_heartbeat('pgtap-drained')), 'draining', 'the drained worker comes back draining');
SELECT is((SELECT state FROM jobq.worker_heartbeat('pgtap-detached')), 'detached', 'the detached worker comes back detached');

SELECT * FROM finish();
ROLLBACK;
