-- backoff_delay = ceiling * (0.5 + random()/2): always within [ceiling/2, ceiling], and spread.
BEGIN;
SELECT plan(4);

CREATE TEMP TABLE samples AS
SELECT a, jobq.backoff_ceiling(a, '2 seconds', '1 hour') AS ceiling, jobq.backoff_delay(a, '2 seconds', '1 hour') AS delay
FROM generate_series(1, 15) AS a, generate_series(1, 2000) AS i;

SELECT is((SELECT count(*) FROM samples), 30000::bigint, 'setup: 2,000 samples for each of attempts 1..15');
SELECT is_empty(
    $$ SELECT a, delay, ceiling FROM samples WHERE delay < ceiling / 2 OR delay > ceiling $$,
    'every backoff_delay sample lies within [ceiling/2, ceiling]');
SELECT is_empty(
    $$ SELECT a FROM samples GROUP BY a, ceiling
       HAVING min(delay) > ceiling * 0.6 OR max(delay) < ceiling * 0.9 $$,
    'for every attempt the samples spread over the range (some below 0.6 and some above 0.9 of the ceiling)');
SELECT cmp_ok((SELECT count(DISTINCT delay) FROM samples WHERE a = 1), '>', 1000::bigint,
              'the jitter gives distinct delays, not a constant');

SELECT * FROM finish();
ROLLBACK;
