-- A keyed enqueue that merges into a waiting job and moves it to another queue (job_key_mode
-- replace) gives it that queue's fair (jobq.jobs.fair), both ways.
BEGIN;
SELECT plan(3);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-x');
SELECT jobq.enqueue('pgtap-x', queue => 'pgtap_fair');
SELECT jobq.set_fair_claiming('pgtap_fair', true);

CREATE TEMP TABLE k AS SELECT jobq.enqueue('pgtap-x', queue => 'pgtap_plain', job_key => 'k') AS id;
SELECT is((SELECT fair FROM jobq.jobs WHERE id = (SELECT id FROM k)), false, 'setup: the keyed job in a plain queue is not fair');
SELECT jobq.enqueue('pgtap-x', queue => 'pgtap_fair', job_key => 'k');
SELECT results_eq($$ SELECT queue, fair FROM jobq.jobs WHERE id = (SELECT id FROM k) $$, $$ VALUES ('pgtap_fair', true) $$,
                  'merged into the fair queue, the same job is flagged fair');
SELECT jobq.enqueue('pgtap-x', queue => 'pgtap_plain', job_key => 'k');
SELECT results_eq($$ SELECT queue, fair FROM jobq.jobs WHERE id = (SELECT id FROM k) $$, $$ VALUES ('pgtap_plain', false) $$,
                  'moved back to the plain queue, it is not');

SELECT * FROM finish();
ROLLBACK;
