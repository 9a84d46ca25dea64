BEGIN;
SELECT plan(5);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

CREATE TEMP TABLE named (name text, id bigint);
INSERT INTO named SELECT 'lease_' || s || 's', jobq.enqueue('t', queue => 'q' || s) FROM unnest(ARRAY[10, 20, 30, 40, 50]) AS s;
CREATE TEMP TABLE c AS
SELECT * FROM jobq.claim_job('w', ARRAY['q50'], 1, '50 seconds')
UNION ALL SELECT * FROM jobq.claim_job('w', ARRAY['q10'], 1, '10 seconds')
UNION ALL SELECT * FROM jobq.claim_job('w', ARRAY['q40'], 1, '40 seconds')
UNION ALL SELECT * FROM jobq.claim_job('w', ARRAY['q20'], 1, '20 seconds')
UNION ALL SELECT * FROM jobq.claim_job('w', ARRAY['q30'], 1, '30 seconds');

SELECT set_eq(
    $$ SELECT n.name FROM jobq._rescue(2, now() + interval '1 hour') r JOIN named n ON n.id = r.job_id $$,
    $$ VALUES ('lease_10s'), ('lease_20s') $$,
    '_rescue(2) sweeps two jobs, those whose lease expired first');
SELECT is((SELECT count(*) FROM jobq.jobs WHERE state = 'running'), 3::bigint, 'the three others are still running');
SELECT is((SELECT count(*) FROM jobq._rescue(2, now() + interval '1 hour')), 2::bigint, 'the next sweep takes two more');
SELECT is((SELECT count(*) FROM jobq._rescue(2, now() + interval '1 hour')), 1::bigint, 'the next one takes the last');
SELECT is((SELECT count(*) FROM jobq._rescue(2, now() + interval '1 hour')), 0::bigint, 'then nothing is left to sweep');

SELECT * FROM finish();
ROLLBACK;
