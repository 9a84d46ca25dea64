-- jobq.enqueue flags a job fair (jobq.jobs.fair, the predicate of jobs_fair_idx) when its queue is
-- fair, and not when its queue is plain or has no jobq.queues row: on the keyless fast path, the
-- keyed path (jobq._enqueue_keyed) and the path of a job with a dependency (jobq._enqueue).
BEGIN;
SELECT plan(7);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-x');
SELECT jobq.enqueue('pgtap-x', queue => q) FROM (VALUES ('pgtap_fair'), ('pgtap_plain')) AS v(q);
SELECT jobq.set_fair_claiming('pgtap_fair', true);
SELECT jobq.set_concurrency_limit('pgtap_plain', 5); -- a row of jobq.queues, fair false

CREATE TEMP TABLE got (path text, queue text, id bigint);
INSERT INTO got SELECT 'fast', q, jobq.enqueue('pgtap-x', queue => q) FROM (VALUES ('pgtap_fair'), ('pgtap_plain'), ('pgtap_norow')) AS v(q);
INSERT INTO got SELECT 'keyed', q, jobq.enqueue('pgtap-x', queue => q, job_key => 'k-' || q) FROM (VALUES ('pgtap_fair'), ('pgtap_plain')) AS v(q);
INSERT INTO got SELECT 'workflow', q, jobq.enqueue('pgtap-x', queue => q, depends_on => ARRAY[(SELECT min(id) FROM got)])
FROM (VALUES ('pgtap_fair'), ('pgtap_plain')) AS v(q);

SELECT is((SELECT j.fair FROM got g JOIN jobq.jobs j USING (id) WHERE g.path = 'fast' AND g.queue = 'pgtap_fair'), true,
          'the fast path flags a job of a fair queue fair');
SELECT is((SELECT j.fair FROM got g JOIN jobq.jobs j USING (id) WHERE g.path = 'fast' AND g.queue = 'pgtap_plain'), false,
          'the fast path does not flag a job of a plain queue');
SELECT is((SELECT j.fair FROM got g JOIN jobq.jobs j USING (id) WHERE g.path = 'fast' AND g.queue = 'pgtap_norow'), false,
          'nor a job of a queue without a row of jobq.queues');
SELECT is((SELECT j.fair FROM got g JOIN jobq.jobs j USING (id) WHERE g.path = 'keyed' AND g.queue = 'pgtap_fair'), true,
          'the keyed path flags a job of a fair queue fair');
SELECT is((SELECT j.fair FROM got g JOIN jobq.jobs j USING (id) WHERE g.path = 'keyed' AND g.queue = 'pgtap_plain'), false,
          'the keyed path does not flag a job of a plain queue');
SELECT results_eq($$ SELECT g.queue, j.state, j.fair FROM got g JOIN jobq.jobs j USING (id) WHERE g.path = 'workflow' ORDER BY 1 $$,
                  $$ VALUES ('pgtap_fair', 'blocked', true), ('pgtap_plain', 'blocked', false) $$,
                  'a job with a dependency (jobq._enqueue) is flagged as its queue: blocked, it keeps the flag for when it waits');
SELECT is((SELECT count(*) FROM jobq.jobs j LEFT JOIN jobq.queues q ON q.name = j.queue WHERE j.fair IS DISTINCT FROM coalesce(q.fair, false)),
          0::bigint, 'every job''s flag is its queue''s fair');

SELECT * FROM finish();
ROLLBACK;
