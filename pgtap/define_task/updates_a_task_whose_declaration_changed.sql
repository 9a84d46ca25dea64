-- Declaring a task again with something different updates it (and updated_at); what the new
-- declaration leaves out goes back to its default: a declaration is the whole task, not a patch.
BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();


SELECT is(jobq.define_task('pgtap-changing', 'store', '{"storeId": "uuid"}', max_attempts => 3, queue => 'pgtap_q', description => 'v1'),
          'pgtap-changing', 'setup: the task is declared');
UPDATE jobq.tasks SET created_at = now() - interval '1 day', updated_at = now() - interval '1 day' WHERE name = 'pgtap-changing';

SELECT is(jobq.define_task('pgtap-changing', 'store', '{"storeId": "uuid", "date": "date"}', max_attempts => 5, queue => 'pgtap_q',
                           priority => 7, description => 'v2'),
          'pgtap-changing', 'a changed declaration returns the name');
SELECT results_eq(
    $$ SELECT scope, payload_schema, max_attempts, queue, priority, description, created_at, updated_at FROM jobq.tasks WHERE name = 'pgtap-changing' $$,
    $$ VALUES ('store'::text, '{"storeId": "uuid", "date": "date"}'::jsonb, 5, 'pgtap_q'::text, 7::smallint, 'v2'::text,
               now() - interval '1 day', now()) $$,
    'the task takes the new schema, defaults and description; updated_at moves to now, created_at stays');

SELECT is(jobq.define_task('pgtap-changing'), 'pgtap-changing', 'a bare declaration of the same name returns the name');
SELECT results_eq(
    $$ SELECT scope, payload_schema, max_attempts, queue, priority, timeout, backoff_base, backoff_max, description FROM jobq.tasks WHERE name = 'pgtap-changing' $$,
    $$ VALUES ('system'::text, '{}'::jsonb, NULL::integer, NULL::text, NULL::smallint, NULL::interval, NULL::interval, NULL::interval, ''::text) $$,
    'what the new declaration leaves out goes back to its default: system scope, no contract, no task defaults');
SELECT is((SELECT count(*) FROM jobq.tasks WHERE name = 'pgtap-changing'), 1::bigint, 'updates never add a second row');

SELECT * FROM finish();
ROLLBACK;
