-- A runner declares its tasks at every start-up: declaring a task again exactly as it is must
-- change nothing, not even updated_at (the row is not rewritten).
BEGIN;
SELECT plan(7);

SELECT jobq_test.reset();


SELECT is(jobq.define_task('pgtap-idempotent', 'store', '{"storeId": "uuid", "note?": "string"}', max_attempts => 3, queue => 'pgtap_q',
                           priority => -2, timeout => '1 minute', backoff_base => '5 seconds', backoff_max => '5 minutes',
                           description => 'declared once'),
          'pgtap-idempotent', 'define_task returns the name of the task it declared');
-- Back-date the declaration (superuser) so that a rewrite would show in updated_at.
UPDATE jobq.tasks SET created_at = now() - interval '1 day', updated_at = now() - interval '1 day' WHERE name = 'pgtap-idempotent';
CREATE TEMP TABLE before AS SELECT ctid AS row_ctid, * FROM jobq.tasks WHERE name = 'pgtap-idempotent';

SELECT is(jobq.define_task('pgtap-idempotent', 'store', '{ "note?" : "string", "storeId" : "uuid" }', max_attempts => 3, queue => 'pgtap_q',
                           priority => -2, timeout => '60 seconds', backoff_base => '5 seconds', backoff_max => '5 minutes',
                           description => 'declared once'),
          'pgtap-idempotent', 'a second identical declaration (the same schema written differently) returns the name too');
SELECT is((SELECT count(*) FROM jobq.tasks WHERE name = 'pgtap-idempotent'), 1::bigint, 'the task is declared once');
SELECT is_empty(
    $$ SELECT ctid AS row_ctid, * FROM jobq.tasks WHERE name = 'pgtap-idempotent' EXCEPT SELECT * FROM before $$,
    'the second declaration left the row exactly as it was: same values, same updated_at, not rewritten (same ctid)');
SELECT is((SELECT updated_at FROM jobq.tasks WHERE name = 'pgtap-idempotent'), now() - interval '1 day',
          'updated_at keeps the time of the first declaration');
SELECT lives_ok($$ SELECT jobq.define_task('pgtap-idempotent', 'store', '{"storeId": "uuid", "note?": "string"}', max_attempts => 3, queue => 'pgtap_q',
                                           priority => -2, timeout => '1 minute', backoff_base => '5 seconds', backoff_max => '5 minutes',
                                           description => 'declared once')
                    FROM generate_series(1, 3) $$,
                'declaring it three more times raises nothing');
SELECT is_empty(
    $$ SELECT ctid AS row_ctid, * FROM jobq.tasks WHERE name = 'pgtap-idempotent' EXCEPT SELECT * FROM before $$,
    'and still rewrites nothing');

SELECT * FROM finish();
ROLLBACK;
