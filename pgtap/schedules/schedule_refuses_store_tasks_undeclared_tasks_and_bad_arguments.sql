-- schedule refuses, writing nothing: a store-scoped task (schedules run system tasks; a system
-- task fans out) and a bad name, policy, backfill or interval with JQ100, an undeclared task with
-- JQ401, a payload that is not an object with JQ102, max_attempts below 1 with JQ104, a cron that
-- does not parse or never fires with JQ601, an unknown time zone with JQ602. A refused update
-- leaves the existing schedule as it was.
BEGIN;
SELECT plan(17);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-nightly');
SELECT FROM jobq.define_task('pgtap-store-task', scope => 'store');

SELECT throws_ok($$ SELECT jobq.schedule('pgtap-s', '0 18 * * *', 'pgtap-store-task') $$, 'JQ100',
    'JOB.INVALID_ARGUMENT: schedules run system tasks; pgtap-store-task is store-scoped (schedule a system task that calls jobq.fan_out)',
    'a store-scoped task is refused with JQ100');
SELECT throws_ok($$ SELECT jobq.schedule('pgtap-s', '0 18 * * *', 'pgtap-undeclared') $$, 'JQ401',
    'JOB.UNKNOWN_TASK: task ''pgtap-undeclared'' is not declared', 'an undeclared task is refused with JQ401');
SELECT throws_ok($$ SELECT jobq.schedule('pgtap-s', '0 25 * * *', 'pgtap-nightly') $$, 'JQ601',
    'JOB.INVALID_CRON: hour field value 25 is outside 0-23', 'a cron that does not parse is refused with JQ601');
SELECT throws_ok($$ SELECT jobq.schedule('pgtap-s', '0 0 30 2 *', 'pgtap-nightly') $$, 'JQ601',
    'JOB.INVALID_CRON: ''0 0 30 2 *'' never fires', 'a cron that never fires (February 30) is refused with JQ601');
SELECT throws_ok($$ SELECT jobq.schedule('pgtap-s', '0 18 * * *', 'pgtap-nightly', timezone => 'Asia/Tokio') $$, 'JQ602',
    'JOB.INVALID_TIMEZONE: time zone ''Asia/Tokio'' is not recognized', 'an unknown time zone is refused with JQ602');
SELECT throws_ok($$ SELECT jobq.schedule('pgtap-s', '0 18 * * *', 'pgtap-nightly', concurrency_policy => 'skip') $$, 'JQ100',
    'JOB.INVALID_ARGUMENT: concurrency_policy ''skip'' is not allow, forbid or replace', 'an unknown concurrency policy is refused with JQ100');
SELECT throws_ok($$ SELECT jobq.schedule('pgtap-s', '0 18 * * *', 'pgtap-nightly', concurrency_policy => NULL) $$, 'JQ100', NULL,
    'a NULL concurrency policy is refused with JQ100');
SELECT throws_ok($$ SELECT jobq.schedule('pgtap-s', '0 18 * * *', 'pgtap-nightly', backfill => 'none') $$, 'JQ100',
    'JOB.INVALID_ARGUMENT: backfill ''none'' is not all or latest', 'an unknown backfill is refused with JQ100');
SELECT throws_ok($$ SELECT jobq.schedule('pgtap-s', '0 18 * * *', 'pgtap-nightly', backfill_window => '-1 minute') $$, 'JQ100',
    'JOB.INVALID_ARGUMENT: backfill_window and jitter must be zero or positive', 'a negative backfill window is refused with JQ100');
SELECT throws_ok($$ SELECT jobq.schedule('pgtap-s', '0 18 * * *', 'pgtap-nightly', jitter => '-1 second') $$, 'JQ100',
    'JOB.INVALID_ARGUMENT: backfill_window and jitter must be zero or positive', 'a negative jitter is refused with JQ100');
SELECT throws_ok($$ SELECT jobq.schedule('Nightly Job', '0 18 * * *', 'pgtap-nightly') $$, 'JQ100',
    'JOB.INVALID_ARGUMENT: schedule name ''Nightly Job'' is not kebab-case', 'a name that is not kebab-case is refused with JQ100');
SELECT throws_ok($$ SELECT jobq.schedule(NULL, '0 18 * * *', 'pgtap-nightly') $$, 'JQ100', NULL, 'a NULL name is refused with JQ100');
SELECT throws_ok($$ SELECT jobq.schedule('pgtap-s', '0 18 * * *', 'pgtap-nightly', '[1]') $$, 'JQ102',
    'JOB.PAYLOAD_NOT_OBJECT: the schedule payload must be a JSON object', 'a payload that is not an object is refused with JQ102');
SELECT throws_ok($$ SELECT jobq.schedule('pgtap-s', '0 18 * * *', 'pgtap-nightly', max_attempts => 0) $$, 'JQ104',
    'JOB.MAX_ATTEMPTS_INVALID: max_attempts is 0; it must be at least 1', 'max_attempts 0 is refused with JQ104');
SELECT is_empty($$ SELECT * FROM jobq.schedules $$, 'no refused call wrote a schedule');

SELECT FROM jobq.schedule('pgtap-s', '0 18 * * *', 'pgtap-nightly');
CREATE TEMP TABLE before AS SELECT * FROM jobq.schedules;
SELECT throws_ok($$ SELECT jobq.schedule('pgtap-s', '0 18 * * *', 'pgtap-store-task') $$, 'JQ100', NULL,
    'changing an existing schedule to a store-scoped task is refused');
SELECT results_eq($$ SELECT * FROM jobq.schedules $$, $$ SELECT * FROM before $$, 'the refused update left the schedule as it was');

SELECT * FROM finish();
ROLLBACK;
