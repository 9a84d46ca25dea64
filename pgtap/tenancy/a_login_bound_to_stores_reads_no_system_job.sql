-- A login bound to stores (jobq.bind_store) is one store's credential — a store's staff signing
-- in to the dashboard is one: it reads its store's live and finished jobs and nothing else, no
-- system job either (their payloads and errors serve every store). An application login bound to
-- no store (the seed's model: one login serves every store) still reads the system jobs beside
-- the store it names; an operator reads every row.
BEGIN;
SELECT plan(8);

SELECT jobq_test.reset();
SELECT FROM jobq.define_task('pgtap-store-task', scope => 'store');
SELECT jobq_test.tasks('pgtap-system-task');
CREATE ROLE pgtap_staff_a LOGIN IN ROLE jobq_app;
CREATE ROLE pgtap_app_unbound LOGIN IN ROLE jobq_app;
CREATE ROLE pgtap_operator LOGIN IN ROLE jobq_operator;
SELECT jobq.bind_store('pgtap_staff_a', 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa');

-- Store A, store B and the system each have a live job and a finished (canceled) one (named).
SELECT jobq_test.tenant_jobs();
SELECT is((SELECT count(*) FROM (SELECT id FROM named WHERE name LIKE '%\_done') AS d CROSS JOIN LATERAL jobq.cancel_job(d.id) AS c),
          3::bigint, 'setup: a live and a finished job in store A, in store B and in the system');
GRANT SELECT ON named TO PUBLIC;

SET LOCAL SESSION AUTHORIZATION pgtap_staff_a;
SET LOCAL app.current_store_id = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
SELECT set_eq($$ SELECT id FROM jobq.jobs $$, $$ SELECT id FROM named WHERE name = 'a_live' $$,
              'the login bound to store A reads A''s live job and no live system job');
SELECT set_eq($$ SELECT id FROM jobq.job_history $$, $$ SELECT id FROM named WHERE name = 'a_done' $$,
              'and A''s finished job, no finished system job');
SELECT is((SELECT count(*) FROM jobq.stats() WHERE queue IN ('pgtap_system', 'pgtap_b')), 0::bigint,
          'jobq.stats counts no system or other store''s queue for it');
SET LOCAL app.current_store_id = '';
SELECT is((SELECT count(*) FROM jobq.jobs) + (SELECT count(*) FROM jobq.job_history), 0::bigint,
          'without a store setting it reads nothing at all, system jobs included');
RESET SESSION AUTHORIZATION;

SET LOCAL SESSION AUTHORIZATION pgtap_app_unbound;
SET LOCAL app.current_store_id = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
SELECT set_eq($$ SELECT id FROM jobq.jobs $$, $$ SELECT id FROM named WHERE name IN ('a_live', 'system_live') $$,
              'an application login bound to no store reads its store''s live jobs and the live system jobs');
SELECT set_eq($$ SELECT id FROM jobq.job_history $$, $$ SELECT id FROM named WHERE name IN ('a_done', 'system_done') $$,
              'and its store''s finished jobs and the finished system jobs');
RESET SESSION AUTHORIZATION;

SET LOCAL SESSION AUTHORIZATION pgtap_operator;
SELECT is((SELECT count(*) FROM jobq.jobs) + (SELECT count(*) FROM jobq.job_history), 6::bigint,
          'an operator reads every store''s jobs and the system''s');
RESET SESSION AUTHORIZATION;

SELECT * FROM finish();
ROLLBACK;
