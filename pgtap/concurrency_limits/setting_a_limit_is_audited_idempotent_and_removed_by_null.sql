-- Each setter changes one limit, audits the change (action set_concurrency_limit: queue, scope,
-- from, to, actor session_user) and answers true; setting the same value again answers false and
-- writes nothing; NULL removes the limit (audited), and the queue's waiting jobs are claimed.
BEGIN;
SELECT plan(9);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-x');
SELECT jobq.enqueue('pgtap-x', queue => 'pgtap_q') FROM generate_series(1, 4);

SELECT is(jobq.set_concurrency_limit('pgtap_q', 1), true, 'a new limit answers true');
SELECT is(jobq.set_concurrency_limit('pgtap_q', 1), false, 'the same limit again answers false');
SELECT is(jobq.set_store_concurrency_limit('pgtap_q', 3), true, 'the per-store limit is set beside it');
SELECT is(jobq.set_partition_concurrency_limit('pgtap_q', 'customerId', 2), true, 'and the per-partition limit');
SELECT results_eq(
    $$ SELECT actor = session_user, detail FROM jobq.audit_log WHERE action = 'set_concurrency_limit' ORDER BY id $$,
    $$ VALUES (true, '{"queue": "pgtap_q", "scope": "queue", "from": {"max_running": null}, "to": {"max_running": 1}}'::jsonb),
              (true, '{"queue": "pgtap_q", "scope": "store", "from": {"max_running": null}, "to": {"max_running": 3}}'::jsonb),
              (true, '{"queue": "pgtap_q", "scope": "partition", "from": {"max_running": null, "partition_key": null}, "to": {"max_running": 2, "partition_key": "customerId"}}'::jsonb) $$,
    'each change is audited once, with the value before and after; the repeat is not');
SELECT is((SELECT count(*) FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_q'], 10)), 1::bigint, 'the queue limit holds');

SELECT is(jobq.set_concurrency_limit('pgtap_q', NULL), true, 'NULL removes the queue limit');
SELECT is((SELECT count(*) FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_q'], 10)), 2::bigint,
          'the waiting jobs are claimed at once up to the per-store limit of 3, which still holds (system jobs are one store; one runs)');
SELECT jobq.set_store_concurrency_limit('pgtap_q', NULL);
SELECT jobq.set_partition_concurrency_limit('pgtap_q', NULL, NULL);
SELECT results_eq($$ SELECT max_running, max_running_per_store, partition_key, max_running_per_partition, limited, paused FROM jobq.queues WHERE name = 'pgtap_q' $$,
                  $$ VALUES (NULL::integer, NULL::integer, NULL::text, NULL::integer, false, false) $$,
                  'with every limit removed the queue is not limited (nor paused)');

SELECT * FROM finish();
ROLLBACK;
