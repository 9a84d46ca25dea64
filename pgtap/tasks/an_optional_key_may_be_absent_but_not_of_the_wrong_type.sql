-- A contract key ending in "?" is optional: the payload may leave it out, but when it is there its
-- value must have the type.
BEGIN;
SELECT plan(7);

SELECT jobq_test.reset();

SELECT FROM jobq.define_task('pgtap-notify', payload_schema => '{"userId": "integer", "note?": "string", "at?": "timestamp"}');
CREATE TEMP TABLE before AS SELECT count(*) AS n FROM jobq.jobs;

SELECT lives_ok($$ SELECT jobq.enqueue('pgtap-notify', '{"userId": 1}') $$, 'optional keys may be absent');
SELECT lives_ok($$ SELECT jobq.enqueue('pgtap-notify', '{"userId": 1, "note": "hi", "at": "2024-05-01T10:00:00Z"}') $$,
                'optional keys of the right type are accepted');
SELECT is((SELECT count(*) FROM jobq.jobs), (SELECT n FROM before) + 2, 'setup: both were enqueued');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-notify', '{"userId": 1, "note": 5}') $$,
    'JQ402', 'JOB.PAYLOAD_INVALID: task pgtap-notify: key note must be a string, not 5', 'an optional key of the wrong type is refused, named without its "?"');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-notify', '{"userId": 1, "at": "tomorrow"}') $$,
    'JQ402', 'JOB.PAYLOAD_INVALID: task pgtap-notify: key at must be a timestamp, not "tomorrow"', 'so is another optional key of the wrong type');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-notify', '{"note": "hi"}') $$,
    'JQ402', 'JOB.PAYLOAD_INVALID: task pgtap-notify: required key userId is missing', 'an optional key does not make the required ones optional');
SELECT is((SELECT count(*) FROM jobq.jobs), (SELECT n FROM before) + 2, 'the refused payloads wrote nothing');

SELECT * FROM finish();
ROLLBACK;
