-- jobq.enqueue_many flags each job fair (jobq.jobs.fair) when its queue is fair, and not when its
-- queue is plain or has no jobq.queues row: on the keyless fast path (one insert for the batch),
-- and when a keyed element sends the batch through jobq._enqueue (its keyless rows inserted by
-- jobq._insert_specs, its keyed ones by jobq._enqueue_keyed).
BEGIN;
SELECT plan(3);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-x');
SELECT jobq.enqueue('pgtap-x', queue => q) FROM (VALUES ('pgtap_fair'), ('pgtap_plain')) AS v(q);
SELECT jobq.set_fair_claiming('pgtap_fair', true);
SELECT jobq.set_concurrency_limit('pgtap_plain', 5);

CREATE TEMP TABLE fast AS
SELECT id FROM jobq.enqueue_many('[{"task": "pgtap-x", "queue": "pgtap_fair"}, {"task": "pgtap-x", "queue": "pgtap_plain"},
                                   {"task": "pgtap-x", "queue": "pgtap_norow"}, {"task": "pgtap-x", "queue": "pgtap_fair"}]') AS e(id);
SELECT results_eq($$ SELECT j.queue, j.fair FROM fast f JOIN jobq.jobs j USING (id) ORDER BY j.id $$,
                  $$ VALUES ('pgtap_fair', true), ('pgtap_plain', false), ('pgtap_norow', false), ('pgtap_fair', true) $$,
                  'the keyless fast path flags the jobs of the fair queue fair, and only those');

CREATE TEMP TABLE mixed AS
SELECT id FROM jobq.enqueue_many('[{"task": "pgtap-x", "queue": "pgtap_fair"}, {"task": "pgtap-x", "queue": "pgtap_plain"},
                                   {"task": "pgtap-x", "queue": "pgtap_fair", "job_key": "kf"},
                                   {"task": "pgtap-x", "queue": "pgtap_plain", "job_key": "kp"},
                                   {"task": "pgtap-x", "queue": "pgtap_norow", "job_key": "kn"}]') AS e(id);
SELECT results_eq($$ SELECT j.queue, j.job_key, j.fair FROM mixed m JOIN jobq.jobs j USING (id) ORDER BY 1, 2 $$,
                  $$ VALUES ('pgtap_fair', 'kf', true), ('pgtap_fair', NULL, true), ('pgtap_norow', 'kn', false),
                            ('pgtap_plain', 'kp', false), ('pgtap_plain', NULL, false) $$,
                  'a batch with keys (jobq._enqueue): its keyless and its keyed jobs are flagged as their queues');
SELECT is((SELECT count(*) FROM jobq.jobs j LEFT JOIN jobq.queues q ON q.name = j.queue WHERE j.fair IS DISTINCT FROM coalesce(q.fair, false)),
          0::bigint, 'every job''s flag is its queue''s fair');

SELECT * FROM finish();
ROLLBACK;
