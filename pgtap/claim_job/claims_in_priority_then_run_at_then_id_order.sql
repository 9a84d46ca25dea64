-- Within a queue, the claim order is (priority, run_at, id): a lower priority number first.
BEGIN;
SELECT plan(2);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

CREATE TEMP TABLE named (name text, id bigint);
INSERT INTO named VALUES
    ('p0_old',      jobq.enqueue('t', queue => 'q', priority => 0,  run_at => now() - interval '1 minute')),
    ('p-1_now',     jobq.enqueue('t', queue => 'q', priority => -1, run_at => now())),
    ('p0_older_1',  jobq.enqueue('t', queue => 'q', priority => 0,  run_at => now() - interval '2 minutes')),
    ('p0_older_2',  jobq.enqueue('t', queue => 'q', priority => 0,  run_at => now() - interval '2 minutes')),
    ('p1_oldest',   jobq.enqueue('t', queue => 'q', priority => 1,  run_at => now() - interval '1 hour'));

CREATE TEMP TABLE seen (n serial, id bigint);
INSERT INTO seen (id) SELECT id FROM jobq.claim_job('w', ARRAY['q']);
INSERT INTO seen (id) SELECT id FROM jobq.claim_job('w', ARRAY['q']);
INSERT INTO seen (id) SELECT id FROM jobq.claim_job('w', ARRAY['q']);
INSERT INTO seen (id) SELECT id FROM jobq.claim_job('w', ARRAY['q']);
INSERT INTO seen (id) SELECT id FROM jobq.claim_job('w', ARRAY['q']);
INSERT INTO seen (id) SELECT id FROM jobq.claim_job('w', ARRAY['q']);

SELECT results_eq(
    $$ SELECT n.name FROM seen s JOIN named n ON n.id = s.id ORDER BY s.n $$,
    $$ VALUES ('p-1_now'), ('p0_older_1'), ('p0_older_2'), ('p0_old'), ('p1_oldest') $$,
    'claim_job takes the lowest priority number first, then the earliest run_at, then the lowest id');
SELECT is((SELECT count(*) FROM seen), 5::bigint, 'a sixth claim finds nothing left');

SELECT * FROM finish();
ROLLBACK;
