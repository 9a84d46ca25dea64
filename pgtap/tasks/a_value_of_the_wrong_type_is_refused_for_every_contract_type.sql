-- Each contract type accepts its JSON values and refuses the others with JQ402, naming the task,
-- the key, the type and the value: string, number, integer, boolean, object, array, uuid (a string
-- 8-4-4-4-12), date (a string YYYY-MM-DD), timestamp (an ISO 8601 string with a time); any takes all.
BEGIN;
SELECT plan(39);

SELECT jobq_test.reset();

SELECT FROM jobq.define_task('pgtap-takes-string', payload_schema => '{"v": "string"}');
SELECT FROM jobq.define_task('pgtap-takes-number', payload_schema => '{"v": "number"}');
SELECT FROM jobq.define_task('pgtap-takes-integer', payload_schema => '{"v": "integer"}');
SELECT FROM jobq.define_task('pgtap-takes-boolean', payload_schema => '{"v": "boolean"}');
SELECT FROM jobq.define_task('pgtap-takes-object', payload_schema => '{"v": "object"}');
SELECT FROM jobq.define_task('pgtap-takes-array', payload_schema => '{"v": "array"}');
SELECT FROM jobq.define_task('pgtap-takes-uuid', payload_schema => '{"v": "uuid"}');
SELECT FROM jobq.define_task('pgtap-takes-date', payload_schema => '{"v": "date"}');
SELECT FROM jobq.define_task('pgtap-takes-timestamp', payload_schema => '{"v": "timestamp"}');
CREATE TEMP TABLE before AS SELECT count(*) AS n FROM jobq.jobs;

SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-takes-string', '{"v": 5}') $$,
    'JQ402', 'JOB.PAYLOAD_INVALID: task pgtap-takes-string: key v must be a string, not 5', 'a string key refuses 5');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-takes-number', '{"v": "5"}') $$,
    'JQ402', 'JOB.PAYLOAD_INVALID: task pgtap-takes-number: key v must be a number, not "5"', 'a number key refuses "5"');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-takes-integer', '{"v": 2.5}') $$,
    'JQ402', 'JOB.PAYLOAD_INVALID: task pgtap-takes-integer: key v must be an integer, not 2.5', 'a integer key refuses 2.5');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-takes-boolean', '{"v": "true"}') $$,
    'JQ402', 'JOB.PAYLOAD_INVALID: task pgtap-takes-boolean: key v must be a boolean, not "true"', 'a boolean key refuses "true"');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-takes-object', '{"v": []}') $$,
    'JQ402', 'JOB.PAYLOAD_INVALID: task pgtap-takes-object: key v must be an object, not []', 'a object key refuses []');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-takes-array', '{"v": {}}') $$,
    'JQ402', 'JOB.PAYLOAD_INVALID: task pgtap-takes-array: key v must be an array, not {}', 'a array key refuses {}');
SELECT throws_like($$ SELECT jobq.enqueue('pgtap-takes-uuid', '{"v": "not-a-uuid"}') $$,
    'JOB.PAYLOAD_INVALID: task pgtap-takes-uuid: key v must be a% uuid, not "not-a-uuid"', 'a uuid key refuses "not-a-uuid"');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-takes-date', '{"v": "01/05/2024"}') $$,
    'JQ402', 'JOB.PAYLOAD_INVALID: task pgtap-takes-date: key v must be a date, not "01/05/2024"', 'a date key refuses "01/05/2024"');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-takes-timestamp', '{"v": "2024-05-01"}') $$,
    'JQ402', 'JOB.PAYLOAD_INVALID: task pgtap-takes-timestamp: key v must be a timestamp, not "2024-05-01"', 'a timestamp key refuses "2024-05-01"');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-takes-string', '{"v": null}') $$, 'JQ402', NULL, 'a string key refuses null');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-takes-number', '{"v": "1.5"}') $$, 'JQ402', NULL, 'a number key refuses "1.5"');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-takes-integer', '{"v": "3"}') $$, 'JQ402', NULL, 'a integer key refuses "3"');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-takes-integer', '{"v": 3.5e0}') $$, 'JQ402', NULL, 'a integer key refuses 3.5e0');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-takes-boolean', '{"v": 0}') $$, 'JQ402', NULL, 'a boolean key refuses 0');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-takes-object', '{"v": "{}"}') $$, 'JQ402', NULL, 'a object key refuses "{}"');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-takes-array', '{"v": "[]"}') $$, 'JQ402', NULL, 'a array key refuses "[]"');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-takes-uuid', '{"v": "0a1b2c3d00004000800000000000abcd"}') $$, 'JQ402', NULL, 'a uuid key refuses "0a1b2c3d00004000800000000000abcd"');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-takes-uuid', '{"v": 12}') $$, 'JQ402', NULL, 'a uuid key refuses 12');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-takes-date', '{"v": "2024-05-01T10:00:00Z"}') $$, 'JQ402', NULL, 'a date key refuses "2024-05-01T10:00:00Z"');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-takes-date', '{"v": 20240501}') $$, 'JQ402', NULL, 'a date key refuses 20240501');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-takes-timestamp', '{"v": "yesterday"}') $$, 'JQ402', NULL, 'a timestamp key refuses "yesterday"');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-takes-timestamp', '{"v": 1714557600}') $$, 'JQ402', NULL, 'a timestamp key refuses 1714557600');
SELECT is((SELECT count(*) FROM jobq.jobs), (SELECT n FROM before), 'no refused payload was written');

SELECT lives_ok($$ SELECT jobq.enqueue('pgtap-takes-string', '{"v": "x"}') $$, 'a string key accepts "x"');
SELECT lives_ok($$ SELECT jobq.enqueue('pgtap-takes-number', '{"v": 1.5}') $$, 'a number key accepts 1.5');
SELECT lives_ok($$ SELECT jobq.enqueue('pgtap-takes-integer', '{"v": 3}') $$, 'a integer key accepts 3');
SELECT lives_ok($$ SELECT jobq.enqueue('pgtap-takes-boolean', '{"v": true}') $$, 'a boolean key accepts true');
SELECT lives_ok($$ SELECT jobq.enqueue('pgtap-takes-object', '{"v": {"k": 1}}') $$, 'a object key accepts {"k": 1}');
SELECT lives_ok($$ SELECT jobq.enqueue('pgtap-takes-array', '{"v": [1, 2]}') $$, 'a array key accepts [1, 2]');
SELECT lives_ok($$ SELECT jobq.enqueue('pgtap-takes-uuid', '{"v": "0a1b2c3d-0000-4000-8000-00000000abcd"}') $$, 'a uuid key accepts "0a1b2c3d-0000-4000-8000-00000000abcd"');
SELECT lives_ok($$ SELECT jobq.enqueue('pgtap-takes-date', '{"v": "2024-05-01"}') $$, 'a date key accepts "2024-05-01"');
SELECT lives_ok($$ SELECT jobq.enqueue('pgtap-takes-timestamp', '{"v": "2024-05-01T10:00:00Z"}') $$, 'a timestamp key accepts "2024-05-01T10:00:00Z"');
SELECT lives_ok($$ SELECT jobq.enqueue('pgtap-takes-integer', '{"v": -7}') $$, 'a integer key accepts -7');
SELECT lives_ok($$ SELECT jobq.enqueue('pgtap-takes-number', '{"v": -3}') $$, 'a number key accepts -3');
SELECT lives_ok($$ SELECT jobq.enqueue('pgtap-takes-timestamp', '{"v": "2024-05-01 10:00"}') $$, 'a timestamp key accepts "2024-05-01 10:00"');
SELECT lives_ok($$ SELECT jobq.enqueue('pgtap-takes-timestamp', '{"v": "2024-05-01T10:00:00.123+02:00"}') $$, 'a timestamp key accepts "2024-05-01T10:00:00.123+02:00"');
SELECT lives_ok($$ SELECT jobq.enqueue('pgtap-takes-uuid', '{"v": "0A1B2C3D-0000-4000-8000-00000000ABCD"}') $$, 'a uuid key accepts "0A1B2C3D-0000-4000-8000-00000000ABCD"');
SELECT FROM jobq.define_task('pgtap-takes-any', payload_schema => '{"v": "any"}');
SELECT lives_ok($$ SELECT jobq.enqueue('pgtap-takes-any', v) FROM unnest(ARRAY['{"v": null}', '{"v": 1}', '{"v": "x"}', '{"v": []}']::jsonb[]) AS v $$,
                'an any key accepts every JSON value, null included');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-takes-any', '{}') $$,
    'JQ402', 'JOB.PAYLOAD_INVALID: task pgtap-takes-any: required key v is missing', 'but an any key is still required');

SELECT * FROM finish();
ROLLBACK;
