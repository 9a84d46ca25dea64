-- jobq.maintain does everything periodic in one call. A schedule whose job the engine refuses —
-- here because a later deploy gave its task a payload contract the schedule's payload does not
-- keep, or made it store-scoped — must not stop the rest: the other schedules' slots, the lost
-- workers, the lease sweep and retention go on.
BEGIN;
SELECT plan(4);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-report', 'pgtap-tick');
SELECT FROM jobq.schedule('pgtap-report', '*/5 * * * *', 'pgtap-report');
SELECT FROM jobq.schedule('pgtap-tick', '*/5 * * * *', 'pgtap-tick');
-- Both due at the top of the hour after next (the maintain below), when an expired lease waits too.
UPDATE jobq.schedules SET next_slot_at = date_trunc('hour', now()) + interval '2 hours';
SELECT FROM jobq.enqueue('pgtap-tick', queue => 'pgtap_q');
CREATE TEMP TABLE claimed AS SELECT * FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_q'], 1, '1 minute');
-- The deploy: pgtap-report now requires a key its schedule's payload lacks.
SELECT FROM jobq.define_task('pgtap-report', payload_schema => '{"targetDate": "date"}');

SELECT lives_ok($$ CREATE TEMP TABLE did AS SELECT jobq._maintain(NULL, NULL, date_trunc('hour', now()) + interval '2 hours') AS r $$,
                'maintain completes despite the schedule whose job is refused');
SELECT is((SELECT count(*) FROM jobq.jobs WHERE task = 'pgtap-tick' AND payload ? 'slotAt'), 1::bigint, 'the healthy schedule''s slot was enqueued');
SELECT is((SELECT state FROM jobq.jobs WHERE id = (SELECT id FROM claimed)), 'retry_pending', 'the expired lease was swept');
SELECT is_empty($$ SELECT * FROM jobq.jobs WHERE task = 'pgtap-report' $$, 'the refused schedule enqueued nothing');

SELECT * FROM finish();
ROLLBACK;
