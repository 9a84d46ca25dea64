-- The rule of jobq.upkeep_advice, case by case: a table of few live rows that grew large is
-- rewritten (VACUUM FULL takes milliseconds there), a large table whose indexes grew gets them
-- rebuilt online, and everything else, including unknown sizes, is left alone.
BEGIN;
SELECT plan(9);

SELECT is(jobq._upkeep_action(100000000, 30000000, 3, 8388608, 10000), 'rewrite',
    'a table of 3 live rows in 100 MB is rewritten');
SELECT is(jobq._upkeep_action(4400000, 2000000, 40, 8388608, 10000), 'none',
    'a table below min_bytes is left alone whatever its rows');
SELECT is(jobq._upkeep_action(30000000, 10000000, 10000, 8388608, 10000), 'none',
    'a table of max_rows live rows at 3 kB a row is left alone');
SELECT is(jobq._upkeep_action(50000000, 10000000, 10000, 8388608, 10000), 'rewrite',
    'a table of max_rows live rows at 5 kB a row is rewritten');
SELECT is(jobq._upkeep_action(5000000000, 300000000, 1000000, 8388608, 10000), 'none',
    'a large table whose indexes take 300 bytes a live row is left alone');
SELECT is(jobq._upkeep_action(5000000000, 2000000000, 1000000, 8388608, 10000), 'reindex',
    'a large table whose indexes take 2 kB a live row gets its indexes rebuilt, never rewritten');
SELECT is(jobq._upkeep_action(NULL, NULL, NULL, 8388608, 10000), 'none', 'unknown sizes are left alone');
SELECT is(jobq._upkeep_action(100000000, 30000000, 3, 0, 0), 'reindex',
    'with max_rows 0 no table is rewritten: one of 3 live rows gets its indexes rebuilt instead');
SELECT is(jobq._upkeep_action(9223372036854775807, 9223372036854775807, 9223372036854775807, 8388608, 10000), 'none',
    'extreme sizes and row counts raise no overflow');

SELECT * FROM finish();
ROLLBACK;
