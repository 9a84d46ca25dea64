-- jobq.run_schedule_now enqueues one job of the schedule now, paused or not: its task and queue,
-- its payload with the slot key set to now, job key schedule:<name>:manual:<now>; the schedule's
-- own slots are untouched. Audited. An unknown name is JOB.UNKNOWN_SCHEDULE (JQ603).
BEGIN;
SELECT plan(8);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-hourly');
SELECT FROM jobq.schedule('pgtap-hourly', '0 * * * *', 'pgtap-hourly', payload => '{"region": "eu"}', queue => 'pgtap_sched');
SELECT FROM jobq.pause_schedule('pgtap-hourly');
CREATE TEMP TABLE next_before AS SELECT next_slot_at FROM jobq.schedules;
CREATE TEMP TABLE now_iso AS SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS iso;

CREATE TEMP TABLE run AS SELECT jobq.run_schedule_now('pgtap-hourly') AS id;
SELECT results_eq(
    $$ SELECT task, queue, state, payload, job_key, run_at FROM jobq.jobs WHERE id = (SELECT id FROM run) $$,
    $$ SELECT 'pgtap-hourly'::text, 'pgtap_sched'::text, 'queued'::text,
              jsonb_build_object('region', 'eu', 'slotAt', (SELECT iso FROM now_iso)),
              'schedule:pgtap-hourly:manual:' || (SELECT iso FROM now_iso), now() $$,
    'one queued job of the task, in its queue, due now, slot key and manual job key set to now, even while paused');
SELECT is((SELECT next_slot_at FROM jobq.schedules), (SELECT next_slot_at FROM next_before), 'the schedule''s next slot is unchanged');
SELECT is_empty($$ SELECT * FROM jobq.schedule_runs $$, 'no slot is recorded as run');
SELECT results_eq($$ SELECT action, actor, job_id, detail ->> 'schedule' FROM jobq.audit_log WHERE action = 'run_schedule_now' $$,
                  $$ SELECT 'run_schedule_now'::text, session_user::text COLLATE "default", id, 'pgtap-hourly'::text FROM run $$,
                  'audited with the job id, actor session_user');

CREATE TEMP TABLE before AS SELECT * FROM jobq_test.counts();
SELECT throws_ok($$ SELECT jobq.run_schedule_now('pgtap-nope') $$, 'JQ603', NULL, 'run_schedule_now of an unknown schedule: JQ603');
SELECT throws_ok($$ SELECT jobq.pause_schedule('pgtap-nope') $$, 'JQ603', NULL, 'pause_schedule of an unknown schedule: JQ603');
SELECT throws_ok($$ SELECT jobq.resume_schedule(NULL) $$, 'JQ100', NULL, 'a NULL name: JQ100');
SELECT results_eq($$ SELECT * FROM jobq_test.counts() $$, $$ SELECT * FROM before $$, 'the refusals changed nothing');

SELECT * FROM finish();
ROLLBACK;
