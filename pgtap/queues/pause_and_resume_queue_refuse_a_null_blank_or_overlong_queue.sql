-- The queue controls check their argument like the other functions: NULL or blank is
-- JOB.INVALID_ARGUMENT (JQ100), above 200 characters JOB.VALUE_TOO_LONG; a refusal changes nothing.
BEGIN;
SELECT plan(7);

SELECT jobq_test.reset();
CREATE TEMP TABLE before AS SELECT * FROM jobq_test.counts();
SELECT throws_ok($$ SELECT jobq.pause_queue(NULL) $$, 'JQ100', NULL, 'pause_queue(NULL) is refused');
SELECT throws_ok($$ SELECT jobq.pause_queue('  ') $$, 'JQ100', NULL, 'a blank queue is refused');
SELECT throws_ok(format('SELECT jobq.pause_queue(%L)', repeat('q', 201)),
                 (SELECT sqlstate FROM jobq.error_codes WHERE code = 'JOB.VALUE_TOO_LONG'), NULL, 'a queue above 200 characters is refused');
SELECT lives_ok(format('SELECT jobq.pause_queue(%L)', repeat('q', 200)), 'a queue of 200 characters is paused');
SELECT throws_ok($$ SELECT jobq.resume_queue(NULL) $$, 'JQ100', NULL, 'resume_queue(NULL) is refused');
SELECT throws_ok(format('SELECT jobq.resume_queue(%L)', repeat('q', 201)),
                 (SELECT sqlstate FROM jobq.error_codes WHERE code = 'JOB.VALUE_TOO_LONG'), NULL, 'resume_queue refuses an overlong queue');
SELECT is((SELECT count(*) FROM jobq.queues), 1::bigint, 'only the valid call wrote a row');

SELECT * FROM finish();
ROLLBACK;
