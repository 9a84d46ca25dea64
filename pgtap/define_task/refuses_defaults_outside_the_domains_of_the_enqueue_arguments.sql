-- A task's defaults stand for enqueue arguments and have their domains: max_attempts 1..1000
-- (JQ104), timeout in (0, 7 days] and backoff in (0, 30 days] (JQ105 not positive, JQ107 above),
-- a queue of at most 200 characters and a description of at most 2000 (JQ106). A refused
-- declaration writes nothing; one at the limits is accepted.
BEGIN;
SELECT plan(9);

SELECT jobq_test.reset();

SELECT throws_ok($$ SELECT jobq.define_task('pgtap-bounds-a', max_attempts => 1001) $$, 'JQ104', NULL, 'max_attempts 1001 is refused');
SELECT throws_ok($$ SELECT jobq.define_task('pgtap-bounds-a', timeout => '1000000 years') $$, 'JQ107',
    'JOB.OUT_OF_RANGE: timeout 1000000 years is above the limit of 7 days', 'a timeout of a million years is refused, naming timeout');
SELECT throws_ok($$ SELECT jobq.define_task('pgtap-bounds-a', backoff_base => '31 days') $$, 'JQ107', NULL, 'a backoff_base above 30 days is refused');
SELECT throws_ok($$ SELECT jobq.define_task('pgtap-bounds-a', backoff_max => '-1 second') $$, 'JQ105', NULL, 'a negative backoff_max is refused');
SELECT throws_ok($$ SELECT jobq.define_task('pgtap-bounds-a', queue => repeat('q', 201)) $$, 'JQ106', NULL, 'a 201-character queue is refused');
SELECT throws_ok($$ SELECT jobq.define_task('pgtap-bounds-a', description => repeat('d', 2001)) $$, 'JQ106', NULL,
    'a 2001-character description is refused');
SELECT is((SELECT count(*) FROM jobq.tasks WHERE name = 'pgtap-bounds-a'), 0::bigint, 'no refused declaration was written');
SELECT lives_ok($$ SELECT jobq.define_task('pgtap-bounds-b', max_attempts => 1000, timeout => '7 days', backoff_base => '30 days',
                                           backoff_max => '30 days', queue => repeat('q', 200), description => repeat('d', 2000)) $$,
    'defaults at every limit are accepted');
SELECT is((SELECT timeout FROM jobq.tasks WHERE name = 'pgtap-bounds-b'), interval '7 days', 'and stored');

SELECT * FROM finish();
ROLLBACK;
