-- hold_doorbell, doorbell_quiet and release_doorbell take the list of queues claim_job takes:
-- every list claim_job refuses, each of them refuses with the same catalogued error, and a
-- refused hold_doorbell holds no doorbell.
BEGIN;
SELECT plan(5);

SELECT jobq_test.reset();

CREATE TEMP TABLE lists (label text, list text);
INSERT INTO lists VALUES
    ('NULL', 'NULL::text[]'),
    ('empty', '''{}''::text[]'),
    ('two-dimensional', 'ARRAY[[''a''], [''b'']]'),
    ('a NULL name', 'ARRAY[''a'', NULL]'),
    ('1001 empty names', 'array_fill(''''::text, ARRAY[1001])'),
    ('a name of 201 characters', 'ARRAY[repeat(''q'', 201)]'),
    ('names of 150 and 201 characters', 'ARRAY[repeat(''a'', 150), repeat(''b'', 201)]');

SELECT is_empty($$ SELECT label FROM lists
                   WHERE jobq_test.error_of(format('SELECT * FROM jobq.claim_job(''w'', %s)', list)) !~ '^JQ' $$,
                'claim_job refuses every list with a catalogued error');
SELECT is_empty($$ SELECT label FROM lists
                   WHERE jobq_test.error_of(format('SELECT jobq.hold_doorbell(%s)', list))
                         IS DISTINCT FROM jobq_test.error_of(format('SELECT * FROM jobq.claim_job(''w'', %s)', list)) $$,
                'hold_doorbell refuses each with claim_job''s error');
SELECT is_empty($$ SELECT label FROM lists
                   WHERE jobq_test.error_of(format('SELECT jobq.doorbell_quiet(%s)', list))
                         IS DISTINCT FROM jobq_test.error_of(format('SELECT * FROM jobq.claim_job(''w'', %s)', list)) $$,
                'doorbell_quiet refuses each with claim_job''s error');
SELECT is_empty($$ SELECT label FROM lists
                   WHERE jobq_test.error_of(format('SELECT jobq.release_doorbell(%s)', list))
                         IS DISTINCT FROM jobq_test.error_of(format('SELECT * FROM jobq.claim_job(''w'', %s)', list)) $$,
                'release_doorbell refuses each with claim_job''s error');
SELECT is((SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND classid = 1785790466),
          0::bigint, 'no refused hold_doorbell holds a doorbell');

SELECT * FROM finish();
ROLLBACK;
