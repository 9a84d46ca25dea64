-- The trace context of a producer is the session settings jobq.traceparent and jobq.tracestate
-- (set_config(..., true) in the enqueue's transaction): every insert path captures it (enqueue,
-- its keyed path, enqueue_many), the job keeps it, and so does its history row.
BEGIN;
SELECT plan(6);

SELECT jobq_test.reset();
SELECT jobq.define_task('pgtap-x', app_enqueue => true);
SELECT set_config('jobq.traceparent', '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', true);
SELECT set_config('jobq.tracestate', 'congo=t61rcWkgMzE,rojo=00f067aa0ba902b7', true);
CREATE TEMP TABLE ids AS
SELECT jobq.enqueue('pgtap-x', queue => 'pgtap_q') AS id
UNION ALL SELECT jobq.enqueue('pgtap-x', queue => 'pgtap_q', job_key => 'k1')
UNION ALL SELECT jobq.enqueue_many('[{"task": "pgtap-x", "queue": "pgtap_q"}, {"task": "pgtap-x", "queue": "pgtap_q", "job_key": "k2"}]');

SELECT is((SELECT count(*)::integer FROM jobq.jobs WHERE id IN (SELECT id FROM ids)
             AND traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'
             AND tracestate = 'congo=t61rcWkgMzE,rojo=00f067aa0ba902b7'), 4,
          'enqueue, a keyed enqueue and enqueue_many (keyless and keyed) keep the traceparent and tracestate');

SET LOCAL ROLE jobq_app;
SELECT set_config('jobq.traceparent', '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00', true);
SELECT set_config('jobq.tracestate', '', true);
CREATE TEMP TABLE app_job AS SELECT jobq.enqueue('pgtap-x', queue => 'pgtap_q') AS id;
RESET ROLE;
SELECT results_eq($$ SELECT traceparent, tracestate FROM jobq.jobs WHERE id = (SELECT id FROM app_job) $$,
                  $$ VALUES ('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00'::text, NULL::text) $$,
                  'an application''s enqueue captures it too (an empty tracestate is none)');

SELECT set_config('jobq.traceparent', '', true);
CREATE TEMP TABLE plain AS SELECT jobq.enqueue('pgtap-x', queue => 'pgtap_q') AS id;
SELECT results_eq($$ SELECT traceparent, tracestate FROM jobq.jobs WHERE id = (SELECT id FROM plain) $$,
                  $$ VALUES (NULL::text, NULL::text) $$, 'without a traceparent the job has none');

-- The job finishes: its history row keeps the context.
UPDATE jobq.jobs SET run_at = now() - interval '1 hour' WHERE id = (SELECT min(id) FROM ids);
CREATE TEMP TABLE c AS SELECT id, lease_token, traceparent FROM jobq.claim_job('pgtap-w', ARRAY['pgtap_q'], 1);
SELECT is((SELECT traceparent FROM c), '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', 'the claim returns the traceparent');
SELECT jobq.complete_job((SELECT id FROM c), (SELECT lease_token FROM c));
SELECT results_eq($$ SELECT traceparent, tracestate FROM jobq.job_history WHERE id = (SELECT id FROM c) $$,
                  $$ VALUES ('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'::text, 'congo=t61rcWkgMzE,rojo=00f067aa0ba902b7'::text) $$,
                  'the history row keeps the trace context');
SELECT is((SELECT jobq.cancel_job((SELECT id FROM plain))), 'canceled', 'a canceled job moves to history too');

SELECT * FROM finish();
ROLLBACK;
