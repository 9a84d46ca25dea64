-- A runner that exits cleanly deregisters: its jobq.workers row becomes stopped and, if it leads,
-- its lease ends now, so another runner takes over at once (with the next epoch) instead of
-- waiting for the lease to lapse. Deregistering another worker leaves the leadership alone.
BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
SELECT FROM jobq.register_worker('pgtap-w1', 'node-a', 101, ARRAY['default'], 4);
SELECT FROM jobq.register_worker('pgtap-w2', 'node-b', 202, ARRAY['default'], 4);
SELECT FROM jobq.register_worker('pgtap-w3', 'node-c', 303, ARRAY['default'], 4);

SELECT is(jobq.acquire_leadership('pgtap-w1', '1 hour'), 1::bigint, 'w1 leads with epoch 1, for an hour');
SELECT is(jobq.acquire_leadership('pgtap-w2', '1 hour'), NULL::bigint, 'w2 is refused');
SELECT lives_ok($$ SELECT jobq.deregister_worker('pgtap-w3') $$, 'w3, not leading, deregisters');
SELECT is(jobq.acquire_leadership('pgtap-w2', '1 hour'), NULL::bigint, 'that leaves the leadership with w1');
SELECT lives_ok($$ SELECT jobq.deregister_worker('pgtap-w1') $$, 'w1 deregisters');
SELECT is(jobq.acquire_leadership('pgtap-w2', '1 hour'), 2::bigint, 'w2 takes over at once, with epoch 2');

SELECT * FROM finish();
ROLLBACK;
