-- A payload contract maps keys to one of the contract types (string, number, integer, boolean,
-- object, array, uuid, date, timestamp, any). Anything else, a contract that is not an object and
-- a scope other than system or store are refused with JQ100, and nothing is written.
BEGIN;
SELECT plan(15);

SELECT jobq_test.reset();

CREATE TEMP TABLE before AS SELECT count(*) AS n FROM jobq.tasks;

SELECT throws_ok($$ SELECT jobq.define_task('pgtap-schema', payload_schema => '{"n": "int"}') $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: payload_schema key n has type "int"; types are string, number, integer, boolean, object, array, uuid, date, timestamp, any',
    'define_task refuses an unknown type name (int) and lists the types');
SELECT throws_ok($$ SELECT jobq.define_task('pgtap-schema', payload_schema => '{"n": "String"}') $$,
    'JQ100', NULL, 'type names are case-sensitive (String)');
SELECT throws_ok($$ SELECT jobq.define_task('pgtap-schema', payload_schema => '{"n": 5}') $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: payload_schema key n has type 5; types are string, number, integer, boolean, object, array, uuid, date, timestamp, any',
    'define_task refuses a type that is not a string');
SELECT throws_ok($$ SELECT jobq.define_task('pgtap-schema', payload_schema => '{"n": {"type": "integer"}}') $$,
    'JQ100', NULL, 'define_task refuses a nested (JSON Schema style) type');
SELECT throws_ok($$ SELECT jobq.define_task('pgtap-schema', payload_schema => '{"storeId": "uuid", "when?": "datetime"}') $$,
    'JQ100', NULL, 'define_task refuses an unknown type of an optional key');
SELECT throws_ok($$ SELECT jobq.define_task('pgtap-schema', payload_schema => '{"?": "string"}') $$,
    'JQ100', NULL, 'define_task refuses a key that is only the optional mark');
SELECT throws_ok($$ SELECT jobq.define_task('pgtap-schema', payload_schema => '["storeId"]') $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: payload_schema must be a JSON object of key: type', 'define_task refuses a contract that is an array');
SELECT throws_ok($$ SELECT jobq.define_task('pgtap-schema', payload_schema => NULL) $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: payload_schema must be a JSON object of key: type', 'define_task refuses a NULL contract');
SELECT throws_ok($$ SELECT jobq.define_task('pgtap-schema', scope => 'tenant') $$,
    'JQ100', 'JOB.INVALID_ARGUMENT: scope ''tenant'' is not system or store', 'define_task refuses a scope other than system or store');
SELECT throws_ok($$ SELECT jobq.define_task('pgtap-schema', queue => '') $$, 'JQ100', NULL, 'define_task refuses an empty default queue');
SELECT throws_ok($$ SELECT jobq.define_task('pgtap-schema', priority => 40000) $$, 'JQ100', NULL, 'define_task refuses a default priority outside smallint');
SELECT throws_ok($$ SELECT jobq.define_task('pgtap-schema', max_attempts => 0) $$, 'JQ104', NULL, 'define_task refuses a default max_attempts below 1 (JQ104)');
SELECT throws_ok($$ SELECT jobq.define_task('pgtap-schema', timeout => '0') $$, 'JQ105', NULL, 'define_task refuses a zero default timeout (JQ105)');
SELECT is((SELECT count(*) FROM jobq.tasks), (SELECT n FROM before), 'no refused declaration was written');

SELECT is(jobq.define_task('pgtap-schema', payload_schema =>
              '{"s": "string", "n": "number", "i": "integer", "b": "boolean", "o": "object", "a": "array", "u": "uuid", "d": "date", "t": "timestamp", "x?": "any"}'),
          'pgtap-schema', 'every contract type, and an optional key, is accepted');

SELECT * FROM finish();
ROLLBACK;
