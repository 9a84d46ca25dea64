-- jobq._claim computes the end of the lease once per claim (jobq._ts_add of its time and lease),
-- not once per row: every job of one claim is leased until the same moment, and that moment
-- saturates at infinity where now + lease would overflow a timestamp, for every job alike.
BEGIN;
SELECT plan(4);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('a');

SELECT lives_ok($$ SELECT jobq.enqueue_many('[{"task": "a", "queue": "q"}, {"task": "a", "queue": "q"}, {"task": "a", "queue": "q"}]') $$,
                'setup: three jobs');
CREATE TEMP TABLE near_the_end AS
SELECT * FROM jobq._claim('w', ARRAY['q'], 2, '1 day', '294276-12-31 12:00:00+00'::timestamptz);
SELECT results_eq($$ SELECT count(*), min(lease_expires_at), max(lease_expires_at) FROM near_the_end $$,
                  $$ VALUES (2::bigint, 'infinity'::timestamptz, 'infinity'::timestamptz) $$,
                  'a claim whose time + lease overflows a timestamp leases each of its jobs until infinity, raising nothing');

CREATE TEMP TABLE plain AS SELECT * FROM jobq.claim_job('w', ARRAY['q'], 5, '45 seconds');
SELECT is((SELECT count(*) FROM plain), 1::bigint, 'setup: the third job claimed');
SELECT is((SELECT lease_expires_at FROM jobq.jobs WHERE id = (SELECT id FROM plain)), now() + interval '45 seconds',
          'a plain claim leases until now() + lease');

SELECT * FROM finish();
ROLLBACK;
