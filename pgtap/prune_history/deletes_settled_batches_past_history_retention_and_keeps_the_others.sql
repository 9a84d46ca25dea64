-- prune_history deletes a settled batch whose settle is older than history_retention, as it does
-- the history; a recently settled batch, a sealed one and an open one stay, whatever their age.
BEGIN;
SELECT plan(2);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t');
CREATE TEMP TABLE named (name text, id bigint);
INSERT INTO named VALUES ('old_settled', jobq.create_batch()), ('new_settled', jobq.create_batch()),
                         ('old_sealed', jobq.create_batch()), ('old_open', jobq.create_batch());
SELECT FROM jobq.batch_enqueue((SELECT id FROM named WHERE name = 'old_sealed'), '[{"task": "t"}]');
SELECT jobq.seal_batch(id) FROM named WHERE name <> 'old_open';
-- Backdate (superuser): 8 days ago; retention is 7 days.
UPDATE jobq.batches b SET created_at = now() - interval '8 days', sealed_at = b.sealed_at - interval '8 days',
                          settled_at = b.settled_at - interval '8 days'
FROM named n WHERE n.id = b.id AND n.name LIKE 'old%';

SELECT is(jobq.prune_history(), 0::bigint, 'prune_history returns the history rows it deleted (none)');
SELECT set_eq($$ SELECT n.name FROM jobq.batches b JOIN named n ON n.id = b.id $$,
              $$ VALUES ('new_settled'), ('old_sealed'), ('old_open') $$,
              'the batch settled more than history_retention ago is deleted; the others stay');

SELECT * FROM finish();
ROLLBACK;
