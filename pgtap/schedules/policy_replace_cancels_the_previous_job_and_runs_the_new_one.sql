-- Concurrency policy replace: when a slot comes while the previous slot's job is live, that job
-- is canceled — it moves to jobq.job_history as canceled, reason replaced, and if it was running
-- its lease token stops working — and the new slot's job runs.
BEGIN;
SELECT plan(9);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-hourly');
SELECT FROM jobq.schedule('pgtap-hourly', '0 * * * *', 'pgtap-hourly', queue => 'pgtap_sched', concurrency_policy => 'replace');
UPDATE jobq.schedules SET next_slot_at = '2026-05-05 10:00:00+00';
CREATE TEMP TABLE first AS SELECT job_id FROM jobq._enqueue_due_slots('2026-05-05 10:00:00+00');

CREATE TEMP TABLE second AS SELECT * FROM jobq._enqueue_due_slots('2026-05-05 11:00:00+00');
SELECT results_eq($$ SELECT slot_at, outcome FROM second $$, $$ VALUES ('2026-05-05 11:00:00+00'::timestamptz, 'enqueued'::text) $$,
                  'the 11:00 slot runs while the 10:00 job is queued');
SELECT results_eq(
    $$ SELECT state, reason, payload ->> 'slotAt' FROM jobq.job_history WHERE id = (SELECT job_id FROM first) $$,
    $$ VALUES ('canceled'::text, 'replaced'::text, '2026-05-05T10:00:00Z'::text) $$,
    'the queued 10:00 job was replaced: it is in job_history as canceled, reason replaced');
SELECT is_empty($$ SELECT * FROM jobq.jobs WHERE id = (SELECT job_id FROM first) $$, 'and no longer live');

CREATE TEMP TABLE claimed AS SELECT * FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_sched']);
SELECT is((SELECT id FROM claimed), (SELECT job_id FROM second), 'setup: the 11:00 job is running');
CREATE TEMP TABLE third AS SELECT * FROM jobq._enqueue_due_slots('2026-05-05 12:00:00+00');
SELECT results_eq($$ SELECT slot_at, outcome FROM third $$, $$ VALUES ('2026-05-05 12:00:00+00'::timestamptz, 'enqueued'::text) $$,
                  'the 12:00 slot runs while the 11:00 job is running');
SELECT results_eq(
    $$ SELECT state, reason, attempt FROM jobq.job_history WHERE id = (SELECT job_id FROM second) $$,
    $$ VALUES ('canceled'::text, 'replaced'::text, 1) $$,
    'the running 11:00 job was replaced: canceled, reason replaced');
SELECT throws_ok(format('SELECT jobq.heartbeat(%L, %s, %L)', 'pgtap-w', (SELECT id FROM claimed), (SELECT lease_token FROM claimed)), 'JQ201', NULL,
                 'the replaced job''s lease token no longer renews (the runner cancels its handler)');
SELECT throws_ok(format('SELECT jobq.complete_job(%s, %L)', (SELECT id FROM claimed), (SELECT lease_token FROM claimed)), 'JQ201', NULL,
                 'nor completes it');
SELECT results_eq(
    $$ SELECT id, state, payload ->> 'slotAt' FROM jobq.jobs $$,
    $$ SELECT job_id, 'queued'::text, '2026-05-05T12:00:00Z'::text FROM third $$,
    'the one live job is the 12:00 slot''s');

SELECT * FROM finish();
ROLLBACK;
