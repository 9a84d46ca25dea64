-- jobq.set_fair_claiming is jobq_operator's alone; a change is audited (set_fair_claiming: queue,
-- from, to), setting it as it is changes nothing and returns false, and bad arguments raise
-- catalogued errors and write nothing.
BEGIN;
SELECT plan(19);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-x');
SELECT jobq.enqueue('pgtap-x', queue => 'pgtap_q');

SELECT function_privs_are('jobq', 'set_fair_claiming', ARRAY['text', 'boolean'], r.role,
                          CASE WHEN r.role = 'jobq_operator' THEN ARRAY['EXECUTE'] ELSE ARRAY[]::text[] END,
                          format('%s %s execute set_fair_claiming', r.role, CASE WHEN r.role = 'jobq_operator' THEN 'can' ELSE 'cannot' END))
FROM (VALUES ('jobq_operator'), ('jobq_app'), ('jobq_app_gate'), ('worker_runtime'), ('worker_fanout_owner'), ('jobq_viewer')) AS r(role)
ORDER BY r.role;

SET LOCAL ROLE jobq_app;
SELECT throws_ok($$ SELECT jobq.set_fair_claiming('pgtap_q', true) $$, '42501', NULL, 'as jobq_app, set_fair_claiming is denied');
RESET ROLE;
SET LOCAL ROLE worker_runtime;
SELECT throws_ok($$ SELECT jobq.set_fair_claiming('pgtap_q', true) $$, '42501', NULL, 'as worker_runtime, set_fair_claiming is denied');
RESET ROLE;
SET LOCAL ROLE jobq_operator;
SELECT is(jobq.set_fair_claiming('pgtap_q', true), true, 'as jobq_operator, set_fair_claiming works');
SELECT is(jobq.set_fair_claiming('pgtap_q', true), false, 'set again as it is: false');
RESET ROLE;
SELECT is((SELECT array_agg(detail ORDER BY id) FROM jobq.audit_log WHERE action = 'set_fair_claiming'),
          ARRAY['{"queue": "pgtap_q", "from": false, "to": true}'::jsonb], 'one audit row, for the change only');
SELECT is((SELECT store_key FROM jobq.claim_cursors WHERE queue = 'pgtap_q'), '00000000-0000-0000-0000-000000000000'::uuid,
          'turning it on inserts the queue''s turn, starting after the system jobs'' key (claims only move it)');
SELECT is(jobq.set_fair_claiming('pgtap_q', false), true, 'turned off');
SELECT is((SELECT count(*) FROM jobq.claim_cursors WHERE queue = 'pgtap_q'), 0::bigint, 'turning it off deletes the turn');
SELECT is(jobq.set_fair_claiming('pgtap_other_never_seen', false), false, 'off for a queue without a row: nothing to do');

SELECT throws_ok($$ SELECT jobq.set_fair_claiming('pgtap_typo', true) $$, 'JQ100', NULL, 'an unknown queue is refused');
SELECT throws_ok($$ SELECT jobq.set_fair_claiming('pgtap_q', NULL) $$, 'JQ100', NULL, 'fair NULL is refused');
SELECT throws_ok($$ SELECT jobq.set_fair_claiming(repeat('q', 201), true) $$, 'JQ106', NULL, 'a queue name above 200 characters is refused');
SELECT is((SELECT count(*) FROM jobq.queues WHERE name <> 'pgtap_q'), 0::bigint, 'the refused calls wrote nothing');

SELECT * FROM finish();
ROLLBACK;
