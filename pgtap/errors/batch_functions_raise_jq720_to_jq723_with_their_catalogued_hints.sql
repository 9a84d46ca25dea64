-- The batch errors JQ720 to JQ723 are catalogued, and each reaches the caller with its SQLSTATE,
-- code and hint: an unknown batch, a sealed one, a callback that could not be enqueued, a job of
-- another store than its batch.
BEGIN;
SELECT plan(5);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-b');
SELECT FROM jobq.define_task('pgtap-store-b', scope => 'store');
CREATE TEMP TABLE b AS SELECT jobq.create_batch() AS id;
SELECT FROM jobq.seal_batch((SELECT id FROM b));
CREATE TEMP TABLE o AS SELECT jobq.create_batch() AS id;

SELECT results_eq($$ SELECT sqlstate, code FROM jobq.error_codes WHERE sqlstate LIKE 'JQ72%' ORDER BY sqlstate $$,
                  $$ VALUES ('JQ720'::text, 'JOB.BATCH_NOT_FOUND'::text), ('JQ721', 'JOB.BATCH_SEALED'),
                            ('JQ722', 'JOB.BATCH_CALLBACK_INVALID'), ('JQ723', 'JOB.BATCH_STORE_MISMATCH') $$,
                  'the catalogue holds JQ720 to JQ723');
SELECT results_eq($$ SELECT err_state, err_hint FROM jobq_test.error_fields('SELECT jobq.seal_batch(-1)') $$,
                  $$ SELECT sqlstate, hint FROM jobq.error_codes WHERE code = 'JOB.BATCH_NOT_FOUND' $$, 'JQ720 with its hint');
SELECT results_eq(format($$ SELECT err_state, err_hint FROM jobq_test.error_fields('SELECT jobq.batch_enqueue(%s, ''[]'')') $$, (SELECT id FROM b)),
                  $$ SELECT sqlstate, hint FROM jobq.error_codes WHERE code = 'JOB.BATCH_SEALED' $$, 'JQ721 with its hint');
SELECT results_eq($$ SELECT err_state, err_hint FROM jobq_test.error_fields('SELECT jobq.create_batch(on_success => ''1'')') $$,
                  $$ SELECT sqlstate, hint FROM jobq.error_codes WHERE code = 'JOB.BATCH_CALLBACK_INVALID' $$, 'JQ722 with its hint');
SELECT results_eq(format($$ SELECT err_state, err_hint FROM jobq_test.error_fields('SELECT jobq.batch_enqueue(%s, ''[{"task": "pgtap-store-b", "store_id": "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"}]'')') $$, (SELECT id FROM o)),
                  $$ SELECT sqlstate, hint FROM jobq.error_codes WHERE code = 'JOB.BATCH_STORE_MISMATCH' $$, 'JQ723 with its hint');

SELECT * FROM finish();
ROLLBACK;
