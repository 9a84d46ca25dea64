-- A detached worker confirms its CONFIRMING jobs before the deadline: CONFIRMING ends, the lease
-- is renewed normally and the sweep leaves the job on that worker; the confirmation is fenced by
-- the lease token (another token, another worker: lease_lost), idempotent, and audited.
BEGIN;
SELECT plan(8);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-t');
SELECT FROM jobq.register_worker('pgtap-w1', 'node-a', 101, ARRAY['pgtap_q'], 8);
SELECT FROM generate_series(1, 2) AS g CROSS JOIN LATERAL jobq.enqueue('pgtap-t', jsonb_build_object('n', g), queue => 'pgtap_q') AS e;
CREATE TEMP TABLE w1_jobs AS SELECT * FROM jobq.claim_job('pgtap-w1', ARRAY['pgtap_q'], 2, '10 minutes');
SELECT jobq.detach_worker('pgtap-w1');

SELECT results_eq(
    format('SELECT job_id, outcome FROM jobq.confirm_continuation(%L, ARRAY[%s, %s], ARRAY[%L, %L]::uuid[], %L)', 'pgtap-w1',
           (SELECT min(id) FROM w1_jobs), (SELECT max(id) FROM w1_jobs),
           (SELECT lease_token FROM w1_jobs ORDER BY id LIMIT 1), gen_random_uuid(), '1 minute'),
    format('VALUES (%s::bigint, %L::text), (%s, %L)', (SELECT min(id) FROM w1_jobs), 'confirmed', (SELECT max(id) FROM w1_jobs), 'lease_lost'),
    'the first job is confirmed under its token; a wrong token is lease_lost');
SELECT is((SELECT lease_expires_at FROM jobq.jobs WHERE id = (SELECT min(id) FROM w1_jobs)), now() + interval '1 minute',
          'the confirmed job''s lease is renewed to now() + lease');
SELECT results_eq($$ SELECT job_id FROM jobq.continuations ORDER BY job_id $$, $$ SELECT max(id) FROM w1_jobs $$,
                  'only the unconfirmed job is still CONFIRMING');
SELECT is((SELECT count(*) FROM jobq._rescue(1000, now() + interval '2 seconds') WHERE job_id = (SELECT min(id) FROM w1_jobs)), 0::bigint,
          'after the deadline the sweep leaves the confirmed job alone');
SELECT is((SELECT state FROM jobq.jobs WHERE id = (SELECT min(id) FROM w1_jobs)), 'running', 'it runs on on w1');
SELECT results_eq(
    format('SELECT outcome FROM jobq.confirm_continuation(%L, ARRAY[%s], ARRAY[%L]::uuid[])', 'pgtap-w1',
           (SELECT min(id) FROM w1_jobs), (SELECT lease_token FROM w1_jobs ORDER BY id LIMIT 1)),
    $$ VALUES ('confirmed'::text) $$, 'confirming again (a lost answer repeated) is confirmed too');
SELECT results_eq(
    format('SELECT outcome FROM jobq.confirm_continuation(%L, ARRAY[%s], ARRAY[%L]::uuid[])', 'pgtap-w2',
           (SELECT min(id) FROM w1_jobs), (SELECT lease_token FROM w1_jobs ORDER BY id LIMIT 1)),
    $$ VALUES ('lease_lost'::text) $$, 'another worker cannot confirm it');
SELECT results_eq(
    $$ SELECT detail FROM jobq.audit_log WHERE action = 'continuation_confirmed' $$,
    format($$ VALUES (jsonb_build_object('worker_id', 'pgtap-w1', 'jobs', jsonb_build_array(%s))) $$, (SELECT min(id) FROM w1_jobs)),
    'the confirmation is audited once, with the job it let go on');

SELECT * FROM finish();
ROLLBACK;
