-- jobq.stats() checks its arguments: a blank queue is JOB.INVALID_ARGUMENT, one above 200
-- characters JOB.VALUE_TOO_LONG; an application naming a store other than its session's (or any
-- store without one) gets JOB.TENANT_MISMATCH.
BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
SELECT throws_ok($$ SELECT * FROM jobq.stats('  ') $$, 'JQ100', NULL, 'a blank queue is refused');
SELECT throws_ok(format('SELECT * FROM jobq.stats(%L)', repeat('q', 201)),
                 (SELECT sqlstate FROM jobq.error_codes WHERE code = 'JOB.VALUE_TOO_LONG'), NULL, 'a queue above 200 characters is refused');
SELECT lives_ok(format('SELECT * FROM jobq.stats(%L)', repeat('q', 200)), 'a queue of 200 characters is accepted');

SET LOCAL ROLE jobq_app;
SET LOCAL app.current_store_id = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
SELECT throws_ok($$ SELECT * FROM jobq.stats(NULL, 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb') $$,
                 (SELECT sqlstate FROM jobq.error_codes WHERE code = 'JOB.TENANT_MISMATCH'), NULL, 'an application cannot read another store''s stats');
SET LOCAL app.current_store_id = '';
SELECT throws_ok($$ SELECT * FROM jobq.stats(NULL, 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa') $$,
                 (SELECT sqlstate FROM jobq.error_codes WHERE code = 'JOB.TENANT_MISMATCH'), NULL, 'nor any store when its session has none');
RESET ROLE;
SELECT lives_ok($$ SELECT * FROM jobq.stats(NULL, 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb') $$, 'an operator may name any store');

SELECT * FROM finish();
ROLLBACK;
