-- jobq.fan_out runs with work_mem 32MB: its keys' positions are joined by hash and its sorts stay
-- in memory (100,000 stores: first run 2.5 -> 2.2 s, repeated 1.9 -> 1.4 s at the default 4MB;
-- docs/benchmarks.md). The setting is the call's own: a statement trigger on jobq.jobs (this test's
-- alone, rolled back) reads it while the fan-out inserts, whatever the session's, and the session's
-- is left as it was.
BEGIN;
SELECT plan(4);

SELECT jobq_test.reset();
SELECT jobq_test.stores('aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb');
SELECT FROM jobq.define_task('pgtap-fan-mem', scope => 'store');

CREATE TEMP TABLE seen (work_mem text);
GRANT INSERT ON seen TO PUBLIC;
CREATE FUNCTION pg_temp.note_work_mem() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO seen VALUES (current_setting('work_mem'));
    RETURN NULL;
END
$$;
CREATE TRIGGER pgtap_note_work_mem AFTER INSERT ON jobq.jobs FOR EACH STATEMENT EXECUTE FUNCTION pg_temp.note_work_mem();

SET LOCAL work_mem = '64kB';
SET LOCAL ROLE worker_runtime;
SELECT is(jobq.fan_out('pgtap-fan-mem', '{}'::jsonb), 2, 'a fan-out in a session with work_mem 64kB enqueues one job a store');
RESET ROLE;
SELECT ok((SELECT count(*) > 0 FROM seen), 'setup: the trigger saw the fan-out''s insert');
SELECT is((SELECT array_agg(DISTINCT work_mem) FROM seen), ARRAY['32MB'], 'the fan-out''s statements ran with work_mem 32MB');
SELECT is(current_setting('work_mem'), '64kB', 'and the session''s work_mem is as it was after the call');

SELECT * FROM finish();
ROLLBACK;
