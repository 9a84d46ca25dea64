-- jobq.audit_list() reads the audit log newest first, each filter narrowing it: actor, action,
-- job, since, before (the next page), and at most max_rows rows; an application may not read it.
BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
DELETE FROM jobq.audit_log;
INSERT INTO jobq.audit_log (id, at, actor, action, job_id) OVERRIDING SYSTEM VALUE VALUES
    (990001, now() - interval '2 days', 'ann', 'retry_job', 7),
    (990002, now(), 'bob', 'pause_queue', NULL),
    (990003, now(), 'ann', 'cancel_job', 8);

SELECT results_eq($$ SELECT id FROM jobq.audit_list() $$, $$ VALUES (990003::bigint), (990002), (990001) $$, 'newest first');
SELECT results_eq($$ SELECT id FROM jobq.audit_list(actor => 'ann', action => 'retry_job') $$, $$ VALUES (990001::bigint) $$,
    'actor and action narrow it');
SELECT results_eq($$ SELECT id FROM jobq.audit_list(job_id => 8) $$, $$ VALUES (990003::bigint) $$, 'job narrows it');
SELECT results_eq($$ SELECT id FROM jobq.audit_list(since => now() - interval '1 day') $$, $$ VALUES (990003::bigint), (990002) $$,
    'since narrows it');
SELECT results_eq($$ SELECT id FROM jobq.audit_list(before => 990003, max_rows => 1) $$, $$ VALUES (990002::bigint) $$,
    'before and max_rows page through');
SET LOCAL ROLE jobq_app;
SELECT throws_ok($$ SELECT * FROM jobq.audit_list() $$, '42501', NULL, 'an application may not read the audit log');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
