-- Store bindings (off by default): a login an operator bound to stores acts only for them. Naming
-- another store in app.current_store_id gives it no store at all (current_store_id() is NULL, every
-- policy fails closed): it reads none of that store's jobs and enqueue answers JQ408
-- JOB.STORE_NOT_BOUND, writing nothing. A leaked credential of store A cannot act as store B. A
-- login without bindings is unaffected; binding and unbinding are operator acts, audited.
BEGIN;
SELECT plan(13);

SELECT jobq_test.reset();
SELECT FROM jobq.define_task('pgtap-store-task', scope => 'store');
-- Two application logins (created and dropped with the transaction).
CREATE ROLE pgtap_store_a_login LOGIN IN ROLE jobq_app;
CREATE ROLE pgtap_shared_login LOGIN IN ROLE jobq_app;
SELECT FROM jobq.enqueue('pgtap-store-task', store_id => 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb', queue => 'pgtap_b');

SET LOCAL ROLE jobq_operator;
SELECT lives_ok($$ SELECT jobq.bind_store('pgtap_store_a_login', 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa') $$, 'an operator binds a login to store A');
RESET ROLE;
SELECT is((SELECT count(*) FROM jobq.audit_log WHERE action = 'bind_store' AND detail->>'login' = 'pgtap_store_a_login'), 1::bigint,
          'the binding is audited');

SET LOCAL SESSION AUTHORIZATION pgtap_store_a_login;
SET LOCAL app.current_store_id = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb';
SELECT is(jobq.current_store_id(), NULL, 'the bound login naming store B has no store');
SELECT is((SELECT count(*) FROM jobq.jobs WHERE store_id IS NOT NULL), 0::bigint, 'and reads none of B''s jobs');
SELECT throws_ok($$ SELECT jobq.enqueue('pgtap-store-task', store_id => 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb') $$, 'JQ408',
    'JOB.STORE_NOT_BOUND: login pgtap_store_a_login is not bound to store bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb (jobq.store_bindings)',
    'enqueue for store B: JQ408');
SELECT throws_ok($$ SELECT jobq.bind_store('pgtap_store_a_login', 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb') $$, '42501', NULL,
    'the login cannot bind itself to another store');
SET LOCAL app.current_store_id = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
SELECT is(jobq.current_store_id(), 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa'::uuid, 'naming its bound store A, it acts for A');
SELECT lives_ok($$ SELECT jobq.enqueue('pgtap-store-task', store_id => 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa') $$, 'and enqueues for A');
SELECT is((SELECT count(*) FROM jobq.store_bindings), 1::bigint, 'it sees its own binding only');
RESET SESSION AUTHORIZATION;

SET LOCAL SESSION AUTHORIZATION pgtap_shared_login;
SET LOCAL app.current_store_id = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb';
SELECT is((SELECT count(*) FROM jobq.jobs WHERE store_id = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb'), 1::bigint,
          'a login without bindings acts for the store it names (the seed''s model: the application chooses its tenant)');
RESET SESSION AUTHORIZATION;

SELECT is((SELECT count(*) FROM jobq.jobs WHERE store_id = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb'), 1::bigint, 'the refused enqueue wrote nothing');

SET LOCAL ROLE jobq_operator;
SELECT is(jobq.unbind_store('pgtap_store_a_login', 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa'), true, 'an operator unbinds it');
RESET ROLE;
SELECT is((SELECT count(*) FROM jobq.audit_log WHERE action = 'unbind_store' AND detail->>'login' = 'pgtap_store_a_login'), 1::bigint,
          'the unbinding is audited');

SELECT * FROM finish();
ROLLBACK;
