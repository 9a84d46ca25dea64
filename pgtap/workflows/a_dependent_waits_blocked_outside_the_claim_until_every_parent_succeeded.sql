-- A job enqueued with depends_on waits in state blocked, outside the claim's indexes, until every
-- parent succeeded: a claim passes it over, explain_job names the parents still pending, and the
-- completion of the last parent queues it (the trigger on jobq.job_history). A parent that already
-- succeeded is satisfied at once. job_workflow lists the parents and dependents; _parents_of the parents.
BEGIN;
SELECT plan(14);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-wf');
CREATE TEMP TABLE ids (name text PRIMARY KEY, id bigint);
INSERT INTO ids VALUES ('p1', jobq.enqueue('pgtap-wf', queue => 'wf_parents')),
                       ('p2', jobq.enqueue('pgtap-wf', queue => 'wf_parents'));
INSERT INTO ids VALUES ('c', jobq.enqueue('pgtap-wf', queue => 'wf_child',
                                          depends_on => ARRAY[(SELECT id FROM ids WHERE name = 'p1'), (SELECT id FROM ids WHERE name = 'p2')]));

SELECT is((SELECT state FROM jobq.jobs WHERE id = (SELECT id FROM ids WHERE name = 'c')), 'blocked', 'the child is blocked');
SELECT is((SELECT depends_on FROM jobq.jobs WHERE id = (SELECT id FROM ids WHERE name = 'c')),
          ARRAY[(SELECT id FROM ids WHERE name = 'p1'), (SELECT id FROM ids WHERE name = 'p2')], 'it records its parents');
SELECT is((SELECT count(*) FROM jobq.job_dependencies WHERE child_id = (SELECT id FROM ids WHERE name = 'c')), 2::bigint, 'two edges wait');
SELECT is_empty($$ SELECT * FROM jobq.claim_job('w', ARRAY['wf_child'], 10) $$, 'a claim of its queue does not take it');
SELECT results_eq(format('SELECT rule, detail FROM jobq.explain_job(%s)', (SELECT id FROM ids WHERE name = 'c')),
    format($$ VALUES ('dependency'::text, 'waits for jobs %s, %s'::text) $$, (SELECT id FROM ids WHERE name = 'p1'), (SELECT id FROM ids WHERE name = 'p2')),
    'explain_job names the rule dependency and the parents pending');

CREATE TEMP TABLE leases AS SELECT * FROM jobq.claim_job('w', ARRAY['wf_parents'], 10);
SELECT is((SELECT count(*) FROM leases), 2::bigint, 'both parents claimed');
SELECT lives_ok(format('SELECT jobq.complete_job(%s, %L)', (SELECT id FROM ids WHERE name = 'p1'),
                       (SELECT lease_token FROM leases WHERE id = (SELECT id FROM ids WHERE name = 'p1'))), 'the first parent completes');
SELECT is((SELECT state FROM jobq.jobs WHERE id = (SELECT id FROM ids WHERE name = 'c')), 'blocked', 'the child still waits for the second');
SELECT lives_ok(format('SELECT jobq.complete_job(%s, %L)', (SELECT id FROM ids WHERE name = 'p2'),
                       (SELECT lease_token FROM leases WHERE id = (SELECT id FROM ids WHERE name = 'p2'))), 'the second parent completes');
SELECT is((SELECT state FROM jobq.jobs WHERE id = (SELECT id FROM ids WHERE name = 'c')), 'queued', 'the child is queued');
SELECT is((SELECT id FROM jobq.claim_job('w', ARRAY['wf_child'], 10)), (SELECT id FROM ids WHERE name = 'c'), 'and claimed');

-- A parent that already succeeded (in jobq.job_history) is satisfied at once.
INSERT INTO ids VALUES ('late', jobq.enqueue('pgtap-wf', queue => 'wf_child', depends_on => ARRAY[(SELECT id FROM ids WHERE name = 'p1')]));
SELECT is((SELECT state FROM jobq.jobs WHERE id = (SELECT id FROM ids WHERE name = 'late')), 'queued',
          'a job depending on a succeeded job is queued at once');
SELECT results_eq(format('SELECT relation, other_id, state FROM jobq.job_workflow(%s)', (SELECT id FROM ids WHERE name = 'p1')),
    format($$ VALUES ('dependent'::text, %s::bigint, 'running'::text), ('dependent', %s, 'queued') $$,
           (SELECT id FROM ids WHERE name = 'c'), (SELECT id FROM ids WHERE name = 'late')),
    'job_workflow lists a parent''s dependents with their states');

SELECT results_eq(format('SELECT * FROM jobq._parents_of(%s)', (SELECT id FROM ids WHERE name = 'c')),
    format('VALUES (%s::bigint), (%s)', (SELECT id FROM ids WHERE name = 'p1'), (SELECT id FROM ids WHERE name = 'p2')),
    '_parents_of lists the parents in id order (what parent_results reads)');

SELECT * FROM finish();
ROLLBACK;
