-- jobq.set_rate_limit('pgtap_q', 2, '1 minute'): at most two jobs of the queue start in any minute,
-- whether or not they are still running; the others stay queued with attempt 0, and are claimed
-- once the window that ends at the claim holds fewer than two starts (a sliding window: the claims
-- move the clock with jobq._claim's p_now).
BEGIN;
SELECT plan(9);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-x');
SELECT jobq.enqueue('pgtap-x', queue => 'pgtap_q') FROM generate_series(1, 6);

SELECT is(jobq.set_rate_limit('pgtap_q', 2, '1 minute'), true, 'the rate limit is set');
CREATE TEMP TABLE first_claim AS SELECT * FROM jobq._claim('pgtap-w', ARRAY['pgtap_q'], 10, '30 seconds', now());
SELECT is((SELECT count(*) FROM first_claim), 2::bigint, 'a claim of ten starts two jobs');
SELECT jobq.complete_job(id, lease_token) FROM first_claim;
SELECT is_empty($$ SELECT * FROM jobq._claim('pgtap-w', ARRAY['pgtap_q'], 10, '30 seconds', now()) $$,
                'with both completed, nothing more starts in the same minute: a rate, not a concurrency limit');
SELECT is((SELECT count(*) FROM jobq.jobs WHERE state = 'queued' AND attempt = 0), 4::bigint, 'the four left over wait, no attempt used');
SELECT is_empty($$ SELECT * FROM jobq._claim('pgtap-w', ARRAY['pgtap_q'], 10, '30 seconds', now() + interval '59 seconds') $$,
                '59 seconds later the window still holds the two starts');
SELECT is((SELECT count(*) FROM jobq._claim('pgtap-w', ARRAY['pgtap_q'], 10, '30 seconds', now() + interval '61 seconds')), 2::bigint,
          'a minute after them, two more start');
SELECT is((SELECT count(*) FROM jobq.claim_starts WHERE queue = 'pgtap_q'), 2::bigint, 'the log keeps only the starts of the window');
SELECT is(jobq.set_rate_limit('pgtap_q', NULL, NULL), true, 'both NULL remove the limit');
SELECT is((SELECT count(*) FROM jobq._claim('pgtap-w', ARRAY['pgtap_q'], 10, '30 seconds', now() + interval '62 seconds')), 2::bigint,
          'without it the last two start at once');

SELECT * FROM finish();
ROLLBACK;
