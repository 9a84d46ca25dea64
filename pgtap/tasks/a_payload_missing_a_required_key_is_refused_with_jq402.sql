-- A key of the contract without "?" is required: a payload without it is refused with JQ402,
-- naming the task and the key, and nothing is written.
BEGIN;
SELECT plan(9);

SELECT jobq_test.reset();

SELECT FROM jobq.define_task('pgtap-report', payload_schema => '{"reportId": "integer", "format": "string"}');
CREATE TEMP TABLE before AS SELECT count(*) AS n FROM jobq.jobs;

SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-report', '{"reportId": 1}') $$,
    'JQ402', 'JOB.PAYLOAD_INVALID: task pgtap-report: required key format is missing', 'enqueue refuses a payload without a required key, naming it');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-report') $$,
    'JQ402', 'JOB.PAYLOAD_INVALID: task pgtap-report: required key format is missing', 'the default empty payload misses the required keys too');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-report', NULL) $$,
    'JQ402', NULL, 'so does a NULL payload');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-report', '{"reportid": 1, "format": "pdf"}') $$,
    'JQ402', 'JOB.PAYLOAD_INVALID: task pgtap-report: required key reportId is missing', 'keys are case-sensitive: reportid is not reportId');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-report', '{"reportId?": 1, "format": "pdf"}') $$,
    'JQ402', 'JOB.PAYLOAD_INVALID: task pgtap-report: required key reportId is missing', 'the optional mark in a payload key does not stand for the key');
SELECT is((SELECT count(*) FROM jobq.jobs), (SELECT n FROM before), 'nothing was written');
SELECT is(jobq.payload_problem('{"reportId": "integer", "format": "string"}', '{"format": "pdf"}'), 'required key reportId is missing',
          'payload_problem names the missing key');
SELECT is(jobq.payload_problem('{"reportId": "integer", "format": "string"}', '{"reportId": 1, "format": "pdf"}'), NULL,
          'payload_problem is NULL for a payload that keeps the contract');
SELECT lives_ok($$ SELECT jobq.enqueue('pgtap-report', '{"reportId": 1, "format": "pdf"}') $$, 'a payload with every required key is accepted');

SELECT * FROM finish();
ROLLBACK;
