-- jobq.demote_leader holds the old leader off: acquire_leadership refuses it (NULL) for
-- leader_ttl from the demotion, so that another runner takes over instead of the demoted one at
-- its next renewal (issue 29: it took the leadership straight back, 0.1 s after the demotion).
-- Another worker may take the leadership at once; after the hold-off the demoted worker may lead
-- again like any other, with a newer epoch. A demotion that finds nobody leading holds nobody off.
BEGIN;
SELECT plan(12);

SELECT jobq_test.reset();
SELECT jobq.set_setting('leader_ttl', '15 seconds');
SELECT FROM jobq.register_worker('pgtap-w1', 'node-a', 101, ARRAY['default'], 4);
SELECT FROM jobq.register_worker('pgtap-w2', 'node-b', 202, ARRAY['default'], 4);
SELECT is(jobq.acquire_leadership('pgtap-w1', '15 seconds'), 1::bigint, 'setup: w1 leads with epoch 1');

SELECT is(jobq.demote_leader(), 2::bigint, 'an operator demotes w1: epoch 2');
SELECT results_eq($$ SELECT demoted_holder, demoted_until FROM jobq.leader $$,
                  $$ VALUES ('pgtap-w1'::text, now() + interval '15 seconds') $$,
                  'the row names w1, held off until now() + leader_ttl');
SELECT is((SELECT (detail ->> 'held_off_until')::timestamptz FROM jobq.audit_log WHERE action = 'demote_leader'),
          now() + interval '15 seconds', 'the audit row says until when');
SELECT is(jobq.acquire_leadership('pgtap-w1', '15 seconds'), NULL::bigint, 'w1''s next renewal is refused');
SELECT is(jobq._acquire_leadership('pgtap-w1', '15 seconds', now() + interval '14.9 seconds'), NULL::bigint,
          'and so is every renewal until the hold-off ends');
SELECT is((SELECT holder FROM jobq.leader), NULL::text, 'refused: nobody leads yet');
SELECT is(jobq._acquire_leadership('pgtap-w1', '15 seconds', now() + interval '15 seconds'), 3::bigint,
          'once the hold-off is over, w1 may lead again, with a newer epoch (the only candidate is not left without a leader)');

-- With another candidate: it takes over during the hold-off.
SELECT is(jobq._acquire_leadership('pgtap-w1', '15 seconds', now() + interval '15 seconds'), 3::bigint, 'setup: w1 renews epoch 3');
SELECT FROM jobq.demote_leader();
SELECT is(jobq.acquire_leadership('pgtap-w1', '15 seconds'), NULL::bigint, 'demoted again: w1 is refused');
SELECT is(jobq.acquire_leadership('pgtap-w2', '15 seconds'), 5::bigint, 'w2 takes over at once, with epoch 5');

-- Nobody leads (the lease was given up): a demotion holds nobody off.
UPDATE jobq.leader SET lease_expires_at = now();
SELECT FROM jobq.demote_leader();
SELECT results_eq($$ SELECT demoted_holder, demoted_until, jobq.acquire_leadership('pgtap-w2', '15 seconds') FROM jobq.leader $$,
                  $$ VALUES (NULL::text, NULL::timestamptz, 7::bigint) $$,
                  'a demotion that finds no live lease holds nobody off: w2 leads again at once');

SELECT * FROM finish();
ROLLBACK;
