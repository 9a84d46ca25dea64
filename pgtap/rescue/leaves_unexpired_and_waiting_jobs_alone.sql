BEGIN;
SELECT plan(3);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');

CREATE TEMP TABLE named (name text, id bigint);
INSERT INTO named VALUES
    ('expired',     jobq.enqueue('t', queue => 'a')),
    ('long_lease',  jobq.enqueue('t', queue => 'b')),
    ('long_timeout', jobq.enqueue('t', queue => 'c', timeout => '1 hour')),
    ('queued',      jobq.enqueue('t', queue => 'd')),
    ('retry_pending', jobq.enqueue('t', queue => 'e'));
CREATE TEMP TABLE c AS
SELECT * FROM jobq.claim_job('w', ARRAY['a'], 1, '30 seconds')
UNION ALL SELECT * FROM jobq.claim_job('w', ARRAY['b'], 1, '10 minutes')
UNION ALL SELECT * FROM jobq.claim_job('w', ARRAY['c'], 1, '10 minutes')
UNION ALL SELECT * FROM jobq.claim_job('w', ARRAY['e'], 1, '30 seconds');
SELECT is(jobq.fail_job((SELECT id FROM c WHERE queue = 'e'), (SELECT lease_token FROM c WHERE queue = 'e'), 'x', retry_in => '1 day'),
          'retry_pending', 'setup: one job waits for its retry');

CREATE TEMP TABLE snapshot AS SELECT * FROM jobq.jobs WHERE id <> (SELECT id FROM named WHERE name = 'expired');

SELECT results_eq(
    $$ SELECT n.name FROM jobq._rescue(1000, now() + interval '5 minutes') r JOIN named n ON n.id = r.job_id $$,
    $$ VALUES ('expired') $$,
    'the sweep takes only the job whose lease expired');
SELECT is_empty(
    $$ SELECT * FROM jobq.jobs WHERE id <> (SELECT id FROM named WHERE name = 'expired') EXCEPT SELECT * FROM snapshot $$,
    'jobs with a valid lease, a distant deadline, or no lease at all are left exactly as they were');

SELECT * FROM finish();
ROLLBACK;
