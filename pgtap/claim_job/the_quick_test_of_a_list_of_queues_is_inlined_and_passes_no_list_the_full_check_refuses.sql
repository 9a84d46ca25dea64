-- jobq._claim_queues_ok is the one expression that lets the usual list of queues (the runner's)
-- skip jobq._check_claim_queues, a function call, in claim_job, claim_passed_over and the
-- doorbell functions. It is inlined (a SQL function that is not is planned at every call, and
-- an immutable one whose body is only stable never is), and it never passes a list the full
-- check refuses: a list it does not pass goes to the full check, which may still pass it.
BEGIN;
SELECT plan(7);

SELECT jobq_test.reset();
INSERT INTO jobq.queues (name) VALUES ('quick_test');

SELECT unalike(jobq_test.verbose_plan($$ SELECT jobq._claim_queues_ok(ARRAY[q.name]) FROM jobq.queues q $$),
               '%_claim_queues_ok%', 'a call of jobq._claim_queues_ok is planned as its body, not as a call');

CREATE TEMP TABLE lists (label text, list text[]);
INSERT INTO lists VALUES
    ('one queue', ARRAY['default']),
    ('NULL', NULL),
    ('empty', '{}'),
    ('two-dimensional', ARRAY[['a'], ['b']]),
    ('a NULL name', ARRAY['a', NULL]),
    ('1000 empty names', array_fill(''::text, ARRAY[1000])),
    ('1001 empty names', array_fill(''::text, ARRAY[1001])),
    ('one name of 200 characters', ARRAY[repeat('q', 200)]),
    ('one name of 201 characters', ARRAY[repeat('q', 201)]),
    ('two names of 100 characters', ARRAY[repeat('a', 100), repeat('b', 100)]),
    ('names of 150 and 60 characters', ARRAY[repeat('a', 150), repeat('b', 60)]),
    ('a list from index 0', '[0:1]={a,b}'::text[]);

SELECT is((SELECT array_agg(label ORDER BY label) FROM lists WHERE jobq._claim_queues_ok(list)),
          ARRAY['1000 empty names', 'a list from index 0', 'one name of 200 characters', 'one queue', 'two names of 100 characters'],
          'it passes the lists of at most 1000 names, none NULL, of at most 200 characters together');
SELECT is((SELECT count(*) FROM lists WHERE jobq._claim_queues_ok(list) IS NULL), 0::bigint, 'it is never NULL');
SELECT is_empty($$ SELECT label FROM lists
                   WHERE jobq._claim_queues_ok(list)
                     AND jobq_test.error_of(format('SELECT jobq._check_claim_queues(%L::text[])', list)) <> 'no error' $$,
                'the full check refuses none of the lists it passes');
SELECT is((SELECT label FROM lists
           WHERE NOT jobq._claim_queues_ok(list)
             AND jobq_test.error_of(format('SELECT jobq._check_claim_queues(%L::text[])', list)) = 'no error'),
          'names of 150 and 60 characters', 'of those it does not pass, the full check passes only the long list of short names');
SELECT is(jobq_test.error_of($$ SELECT * FROM jobq.claim_job('w', array_fill(''::text, ARRAY[1001])) $$),
          jobq_test.error_of($$ SELECT jobq._check_claim_queues(array_fill(''::text, ARRAY[1001])) $$),
          'claim_job refuses 1001 empty names with the full check''s error');
SELECT is(jobq_test.error_of($$ SELECT jobq.claim_passed_over(ARRAY['a', NULL], NULL, NULL, NULL) $$),
          jobq_test.error_of($$ SELECT jobq._check_claim_queues(ARRAY['a', NULL]) $$),
          'claim_passed_over refuses a NULL name with the full check''s error');

SELECT * FROM finish();
ROLLBACK;
