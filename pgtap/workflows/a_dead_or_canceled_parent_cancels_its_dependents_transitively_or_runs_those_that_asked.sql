-- When a parent ends for good (dead, canceled, deleted), its dependents with on_parent_failure
-- cancel are canceled (reason canceled, last_error naming the parent), and theirs transitively in
-- one statement; a dependent with on_parent_failure run is released as if the parent succeeded.
-- A parent already dead or canceled at enqueue applies the same at once.
BEGIN;
SELECT plan(10);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-wf');
CREATE TEMP TABLE ids (name text PRIMARY KEY, id bigint);
INSERT INTO ids VALUES ('root', jobq.enqueue('pgtap-wf'));
INSERT INTO ids VALUES ('child', jobq.enqueue('pgtap-wf', depends_on => ARRAY[(SELECT id FROM ids WHERE name = 'root')]));
INSERT INTO ids VALUES ('grandchild', jobq.enqueue('pgtap-wf', depends_on => ARRAY[(SELECT id FROM ids WHERE name = 'child')]));
INSERT INTO ids VALUES ('runner', jobq.enqueue('pgtap-wf', depends_on => ARRAY[(SELECT id FROM ids WHERE name = 'child')],
                                               on_parent_failure => 'run'));

-- The root dies: its last attempt fails.
UPDATE jobq.jobs SET max_attempts = 1 WHERE id = (SELECT id FROM ids WHERE name = 'root');
CREATE TEMP TABLE lease AS SELECT * FROM jobq.claim_job('w', ARRAY['default'], 1);
SELECT is((SELECT id FROM lease), (SELECT id FROM ids WHERE name = 'root'), 'only the root is claimable');
SELECT lives_ok(format('SELECT jobq.fail_job(%s, %L, %L)', (SELECT id FROM lease), (SELECT lease_token FROM lease), 'boom'), 'the root fails for good');

SELECT is((SELECT state FROM jobq.job_history WHERE id = (SELECT id FROM ids WHERE name = 'root')), 'dead', 'the root is dead');
SELECT results_eq(
    format('SELECT state, reason, last_error FROM jobq.job_history WHERE id = %s', (SELECT id FROM ids WHERE name = 'child')),
    format($$ VALUES ('canceled'::text, 'canceled'::text, 'canceled: its dependency %s ended dead'::text) $$, (SELECT id FROM ids WHERE name = 'root')),
    'its dependent is canceled, naming it');
SELECT results_eq(
    format('SELECT state, last_error FROM jobq.job_history WHERE id = %s', (SELECT id FROM ids WHERE name = 'grandchild')),
    format($$ VALUES ('canceled'::text, 'canceled: its dependency %s was canceled'::text) $$, (SELECT id FROM ids WHERE name = 'child')),
    'and that one''s dependent, transitively');
SELECT is((SELECT state FROM jobq.jobs WHERE id = (SELECT id FROM ids WHERE name = 'runner')), 'queued',
          'a dependent with on_parent_failure run is released');
SELECT is_empty('SELECT * FROM jobq.job_dependencies', 'no edge is left');

-- At enqueue: a parent already dead cancels at once; with run, the job is queued.
INSERT INTO ids VALUES ('late', jobq.enqueue('pgtap-wf', depends_on => ARRAY[(SELECT id FROM ids WHERE name = 'root')]));
SELECT results_eq(format('SELECT state, last_error FROM jobq.job_history WHERE id = %s', (SELECT id FROM ids WHERE name = 'late')),
    format($$ VALUES ('canceled'::text, 'canceled: its dependency %s ended dead'::text) $$, (SELECT id FROM ids WHERE name = 'root')),
    'a job enqueued on a dead parent is canceled at once, its id returned');
INSERT INTO ids VALUES ('late_run', jobq.enqueue('pgtap-wf', depends_on => ARRAY[(SELECT id FROM ids WHERE name = 'root')], on_parent_failure => 'run'));
SELECT is((SELECT state FROM jobq.jobs WHERE id = (SELECT id FROM ids WHERE name = 'late_run')), 'queued', 'with run it is queued');

-- delete_job of a live parent: its dependents are settled as for a cancel.
INSERT INTO ids VALUES ('p', jobq.enqueue('pgtap-wf', run_at => now() + interval '1 hour'));
INSERT INTO ids VALUES ('d', jobq.enqueue('pgtap-wf', depends_on => ARRAY[(SELECT id FROM ids WHERE name = 'p')]));
SELECT jobq.delete_job((SELECT id FROM ids WHERE name = 'p'));
SELECT results_eq(format('SELECT state, last_error FROM jobq.job_history WHERE id = %s', (SELECT id FROM ids WHERE name = 'd')),
    format($$ VALUES ('canceled'::text, 'canceled: its dependency %s ended deleted'::text) $$, (SELECT id FROM ids WHERE name = 'p')),
    'deleting a live parent cancels its dependent, naming it');

SELECT * FROM finish();
ROLLBACK;
