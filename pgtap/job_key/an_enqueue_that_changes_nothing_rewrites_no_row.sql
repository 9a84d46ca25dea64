-- A keyed enqueue that would change nothing leaves the waiting job's row as it is (same row
-- version), so a scheduler that fans out every few minutes rewrites nothing; a change still
-- updates the job, and replace still starts a failed job over.
BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-sync');

CREATE TEMP TABLE first AS
SELECT jobq.enqueue('pgtap-sync', '{"a": 1}', job_key => 'k-preserve', job_key_mode => 'preserve_run_at') AS p,
       jobq.enqueue('pgtap-sync', '{"a": 1}', job_key => 'k-replace', run_at => '2030-01-01') AS r;
CREATE TEMP TABLE before AS SELECT id, ctid::text AS version FROM jobq.jobs;

SELECT is(jobq.enqueue('pgtap-sync', '{"a": 1}', job_key => 'k-preserve', job_key_mode => 'preserve_run_at'),
          (SELECT p FROM first), 'an identical preserve_run_at enqueue returns the same job');
SELECT is(jobq.enqueue('pgtap-sync', '{"a": 1}', job_key => 'k-replace', run_at => '2030-01-01'),
          (SELECT r FROM first), 'an identical replace enqueue of a fresh job returns the same job');
SELECT set_eq($$ SELECT id, ctid::text AS version FROM jobq.jobs $$, $$ SELECT id, version FROM before $$,
              'neither rewrote its row (each row is still the same tuple: same ctid)');

SELECT jobq.enqueue('pgtap-sync', '{"a": 2}', job_key => 'k-preserve', job_key_mode => 'preserve_run_at');
SELECT is((SELECT payload FROM jobq.jobs WHERE id = (SELECT p FROM first)), '{"a": 2}'::jsonb,
          'a changed payload still updates the waiting job');

-- A failed job (retry_pending, attempt 1) is started over by an identical replace.
UPDATE jobq.jobs SET state = 'retry_pending', attempt = 1, last_error = 'x' WHERE id = (SELECT r FROM first);
SELECT jobq.enqueue('pgtap-sync', '{"a": 1}', job_key => 'k-replace', run_at => '2030-01-01');
SELECT results_eq($$ SELECT state, attempt, last_error FROM jobq.jobs WHERE id = (SELECT r FROM first) $$,
                  $$ VALUES ('queued'::text, 0, NULL::text) $$,
                  'an identical replace still starts a failed job over');
SELECT is((SELECT count(*) FROM jobq.jobs), 2::bigint, 'no second job was created');

SELECT * FROM finish();
ROLLBACK;
