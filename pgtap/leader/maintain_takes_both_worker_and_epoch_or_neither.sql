-- maintain is fenced with both worker_id and epoch, or unfenced with neither (pg_cron); one
-- without the other is refused with JQ100 and does nothing. Unfenced, it acts whoever leads.
BEGIN;
SELECT plan(6);

-- Known state, whatever database this runs in: no jobs, no schedules (nor, by cascade, their
-- runs), no workers, nobody leading (epoch 0), settings at their migration defaults. Everything
-- is rolled back at the end.
DELETE FROM jobq.jobs;
DELETE FROM jobq.job_history;
DELETE FROM jobq.schedules;
DELETE FROM jobq.workers;
UPDATE jobq.leader SET holder = NULL, epoch = 0, acquired_at = NULL, lease_expires_at = NULL;
UPDATE jobq.settings s SET value = d.value
FROM (VALUES ('history_retention', '7 days'), ('backoff_base', '2 seconds'), ('backoff_max', '1 hour'),
             ('default_max_attempts', '25'), ('default_lease', '30 seconds'), ('worker_heartbeat_interval', '5 seconds'),
             ('worker_timeout', '30 seconds'), ('leader_ttl', '15 seconds'), ('maintain_interval', '1 second'),
             ('poll_interval', '1 second')) AS d(name, value)
WHERE s.name = d.name;
SELECT FROM jobq.define_task('pgtap-tick');
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
