-- A worker an operator drains or detaches gives up the leadership at once (its lease ends now, so
-- its fenced maintain is refused and another runner takes over) and acquire_leadership refuses it
-- (NULL) while it stays draining or detached; resumed, it may lead again.
BEGIN;
SELECT plan(10);

SELECT jobq_test.reset();
SELECT FROM jobq.register_worker('pgtap-w1', 'node-a', 101, ARRAY['default'], 4);
SELECT FROM jobq.register_worker('pgtap-w2', 'node-b', 202, ARRAY['default'], 4);
SELECT FROM jobq.register_worker('pgtap-w3', 'node-c', 303, ARRAY['default'], 4);

SELECT is(jobq.acquire_leadership('pgtap-w1', '1 hour'), 1::bigint, 'setup: w1 leads with epoch 1, for an hour');
SELECT lives_ok($$ SELECT jobq.drain_worker('pgtap-w2') $$, 'draining w2, who does not lead');
SELECT is((SELECT holder FROM jobq.leader) || ' ' || ((SELECT lease_expires_at FROM jobq.leader) > now())::text, 'pgtap-w1 true',
          'leaves w1''s leadership alone');
SELECT lives_ok($$ SELECT jobq.drain_worker('pgtap-w1') $$, 'an operator drains w1, the leader');
SELECT is(jobq.maintain('pgtap-w1', 1) ->> 'fenced', 'true', 'w1''s fenced maintain is refused at once');
SELECT is(jobq.acquire_leadership('pgtap-w1', '1 hour'), NULL::bigint, 'a draining w1 cannot take the leadership back');
SELECT is(jobq.acquire_leadership('pgtap-w3', '1 hour'), 2::bigint, 'w3 takes over at once, with epoch 2');
SELECT lives_ok($$ SELECT jobq.detach_worker('pgtap-w3') $$, 'an operator detaches w3, the leader');
SELECT is(jobq.acquire_leadership('pgtap-w3', '1 hour'), NULL::bigint, 'a detached w3 is refused');
SELECT FROM jobq.resume_worker('pgtap-w1');
SELECT is(jobq.acquire_leadership('pgtap-w1', '1 hour'), 3::bigint, 'resumed, w1 leads again, with epoch 3');

SELECT * FROM finish();
ROLLBACK;
