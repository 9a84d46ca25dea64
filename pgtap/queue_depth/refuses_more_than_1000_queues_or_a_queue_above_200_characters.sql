-- jobq.queue_depth() bounds its list: more than 1000 queues is JOB.OUT_OF_RANGE, a queue above
-- 200 characters JOB.VALUE_TOO_LONG; the limits themselves are accepted.
BEGIN;
SELECT plan(4);

SELECT jobq_test.reset();
SELECT throws_ok($$ SELECT * FROM jobq.queue_depth(array_fill('q'::text, ARRAY[1001])) $$,
                 (SELECT sqlstate FROM jobq.error_codes WHERE code = 'JOB.OUT_OF_RANGE'), NULL, 'more than 1000 queues are refused');
SELECT lives_ok($$ SELECT * FROM jobq.queue_depth(array_fill('q'::text, ARRAY[1000])) $$, '1000 queues are accepted');
SELECT throws_ok(format('SELECT * FROM jobq.queue_depth(ARRAY[%L, %L])', 'q', repeat('q', 201)),
                 (SELECT sqlstate FROM jobq.error_codes WHERE code = 'JOB.VALUE_TOO_LONG'), NULL, 'a queue above 200 characters is refused');
SELECT lives_ok(format('SELECT * FROM jobq.queue_depth(ARRAY[%L])', repeat('q', 200)), 'a queue of 200 characters is accepted');

SELECT * FROM finish();
ROLLBACK;
