-- A schedule's jobs are enqueued later, by jobq.maintain, where a payload the task refuses would
-- fail the whole tick. So schedule checks, at once, that the payload plus its slot key
-- ({slot_key: "<slot instant>"}) keeps the task's payload contract, and refuses one that does not
-- with JQ402 (JOB.PAYLOAD_INVALID), writing nothing. A contract that asks for the slot key itself
-- is kept by the slot key schedule adds.
BEGIN;
SELECT plan(4);

SELECT jobq_test.reset();
SELECT FROM jobq.define_task('pgtap-daily-report', payload_schema => '{"targetDate": "date"}');
SELECT FROM jobq.define_task('pgtap-slot-task', payload_schema => '{"slotAt": "timestamp", "region?": "string"}');

SELECT throws_ok($$ SELECT jobq.schedule('pgtap-daily-report', '0 18 * * *', 'pgtap-daily-report', '{"region": "jp"}') $$, 'JQ402', NULL,
    'a payload missing a key the task requires is refused with JQ402');
SELECT is_empty($$ SELECT * FROM jobq.schedules WHERE name = 'pgtap-daily-report' $$, 'and no schedule is written');

SELECT lives_ok($$ SELECT jobq.schedule('pgtap-slot-task', '0 18 * * *', 'pgtap-slot-task') $$,
    'a task that requires the slot key (slotAt: timestamp) gets it from the schedule: accepted');
SELECT lives_ok($$ SELECT jobq.schedule('pgtap-slot-task-jp', '0 18 * * *', 'pgtap-slot-task', '{"region": "jp"}') $$,
    'a payload that keeps the contract is accepted');

SELECT * FROM finish();
ROLLBACK;
