-- maintain is fenced with both worker_id and epoch, or unfenced with neither (pg_cron); one
-- without the other is refused with JQ100 and does nothing. Unfenced, it acts whoever leads.
BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-tick');
-- A yearly schedule with a slot due now: one slot for whichever call acts first.
SELECT FROM jobq.schedule('pgtap-tick', '@yearly', 'pgtap-tick');
UPDATE jobq.schedules SET next_slot_at = now();
SELECT FROM jobq.acquire_leadership('pgtap-w1');

SELECT throws_ok($$ SELECT jobq.maintain('pgtap-w1') $$, 'JQ100',
    'JOB.INVALID_ARGUMENT: pass both worker_id and epoch (fenced), or neither (unfenced)', 'a worker without an epoch is refused with JQ100');
SELECT throws_ok($$ SELECT jobq.maintain(epoch => 1) $$, 'JQ100', NULL, 'an epoch without a worker is refused with JQ100');
SELECT throws_ok($$ SELECT jobq._maintain(NULL, 1, now()) $$, 'JQ100', NULL, '_maintain refuses the same');
SELECT is_empty($$ SELECT * FROM jobq.schedule_runs $$, 'the refused calls did nothing');
SELECT is(jobq.maintain() -> 'slots_enqueued', '1'::jsonb, 'with neither it runs unfenced, though w1 leads');
SELECT results_eq($$ SELECT r -> 'fenced', r -> 'slots_enqueued' FROM jobq.maintain('pgtap-w1', 1) AS r $$, $$ VALUES ('false'::jsonb, '0'::jsonb) $$,
                  'with both, as the leader, it runs fenced (the slot was handled already)');

SELECT * FROM finish();
ROLLBACK;
