-- The live jobs counted in the background (issue 33: the dashboard's overview under 200 ms at a
-- million live jobs). Exact counts read every live row: at 1,000,000 live jobs one pass takes
-- 400-500 ms (docs/benchmarks.md, "The dashboard's overview"). Above a size (setting
-- stats_cached_above), jobq.stats, jobq.queue_list, `jobq stats` and the dashboard's overview read
-- the counts jobq.maintain last took instead, and say when they were taken
-- (jobq.stats_counted_at); below it every call counts live, exactly, as before.
--
--   jobq.live_counts        the live jobs by queue, task, state and whether they were due, with
--                           the oldest run_at of each group, as jobq.maintain counted them last;
--                           every store together (a tenant's own counts are always live).
--   jobq.live_counts_taken  one row: when that count was taken, how long it took, how many live
--                           jobs it found.
--   setting stats_cached_above    live jobs from which the stored counts are read.
--   setting stats_count_interval  the least time between two counts; each count also waits
--                           twenty times as long as the one before took, so counting costs at
--                           most a twentieth of one core.
--
-- The engine's alone (row security forced, a policy for jobq_migrator only, no grant): they hold
-- every store's counts, read only through jobq.stats and jobq.queue_list.

-- +goose Up
CREATE TABLE jobq.live_counts (
    queue  text NOT NULL,
    task   text NOT NULL,
    state  text NOT NULL,
    due    boolean NOT NULL,
    n      bigint NOT NULL CHECK (n > 0),
    oldest timestamptz,
    PRIMARY KEY (queue, task, state, due)
);
COMMENT ON TABLE jobq.live_counts IS
    'The live jobs (jobq.jobs) by queue, task, state and whether they were due (run_at <= the count''s time), with the oldest run_at of each group, every store together, as jobq.maintain counted them last (jobq._count_live_jobs). Read by jobq.stats in place of a count of every live job while the count found at least stats_cached_above jobs and is recent (jobq._live_counts_fresh). The engine''s alone.';
CREATE TABLE jobq.live_counts_taken (
    singleton  boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    counted_at timestamptz NOT NULL,
    took       interval NOT NULL CHECK (took BETWEEN interval '0' AND interval '1 hour'),
    total      bigint NOT NULL CHECK (total >= 0)
);
COMMENT ON TABLE jobq.live_counts_taken IS
    'One row: when jobq.live_counts was counted (the transaction time of the jobq.maintain that counted it; -infinity before the first count), how long the count took (0 to 1 hour: the wait before the next, twenty times as long, stays below a day) and how many live jobs it found. Its row lock keeps two counts from running at once.';
INSERT INTO jobq.live_counts_taken (counted_at, took, total) VALUES ('-infinity', interval '0', 0);

ALTER TABLE jobq.live_counts ENABLE ROW LEVEL SECURITY;
ALTER TABLE jobq.live_counts FORCE ROW LEVEL SECURITY;
ALTER TABLE jobq.live_counts_taken ENABLE ROW LEVEL SECURITY;
ALTER TABLE jobq.live_counts_taken FORCE ROW LEVEL SECURITY;

INSERT INTO jobq.settings (name, kind, value, description) VALUES
    ('stats_cached_above', 'integer', '100000',
     'Live jobs from which jobq.stats, jobq.queue_list, jobq stats and the dashboard''s overview read the counts jobq.maintain keeps (taken at most a few stats_count_interval before; jobq.stats_counted_at says when) instead of counting every live job at each call. Below it they count live, exactly.'),
    ('stats_count_interval', 'interval', '5 seconds',
     'The least time between two counts of the live jobs by jobq.maintain while they number at least half of stats_cached_above; each count also waits twenty times as long as the one before took.');

-- +goose Down
DELETE FROM jobq.settings WHERE name IN ('stats_cached_above', 'stats_count_interval');
-- The functions that read these tables are sql/functions/60_operator.sql's; the files of the
-- release before do not define them, so they go here (migrate down forgets them).
DROP FUNCTION IF EXISTS jobq.stats_counted_at(uuid);
DROP FUNCTION IF EXISTS jobq._live_counts_fresh(timestamp with time zone);
DROP FUNCTION IF EXISTS jobq._count_live_jobs(timestamp with time zone);
DROP FUNCTION IF EXISTS jobq._live_groups(text,boolean,uuid,timestamp with time zone);
DROP TABLE jobq.live_counts;
DROP TABLE jobq.live_counts_taken;
