-- A trace context that does not parse is ignored, as the W3C receiver rules say, and never fails
-- an enqueue: a malformed traceparent (wrong version, upper case, short, all-zero ids), one of
-- 10 kB, and a tracestate of 10 kB, of control characters or beside no valid traceparent. The job
-- is enqueued without it (it starts a trace of its own).
BEGIN;
SELECT plan(10);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('pgtap-x');
CREATE TEMP TABLE bad (n serial, traceparent text, tracestate text, label text);
INSERT INTO bad (traceparent, tracestate, label) VALUES
    ('garbage', 'a=b', 'a word'),
    ('01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', NULL, 'another version'),
    ('00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01', NULL, 'upper case hex'),
    ('00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01', NULL, 'a short trace id'),
    ('00-00000000000000000000000000000000-00f067aa0ba902b7-01', NULL, 'an all-zero trace id'),
    ('00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01', NULL, 'an all-zero span id'),
    ('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' || repeat('x', 10240), NULL, '10 kB of traceparent'),
    (NULL, 'congo=t61rcWkgMzE', 'a tracestate without a traceparent');

CREATE TEMP TABLE enqueued AS
SELECT b.n, b.label, jobq.enqueue('pgtap-x', queue => 'pgtap_q') AS id
FROM bad b, LATERAL (SELECT set_config('jobq.traceparent', coalesce(b.traceparent, ''), true),
                            set_config('jobq.tracestate', coalesce(b.tracestate, ''), true)) s
ORDER BY b.n;
SELECT is((SELECT j.traceparent IS NULL AND j.tracestate IS NULL FROM jobq.jobs j WHERE j.id = e.id), true,
          format('%s: enqueued, without a trace context', e.label))
FROM enqueued e
ORDER BY e.n;

SELECT set_config('jobq.traceparent', '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', true);
SELECT set_config('jobq.tracestate', repeat('k=v,', 2560), true);
CREATE TEMP TABLE j1 AS SELECT jobq.enqueue('pgtap-x', queue => 'pgtap_q') AS id;
SELECT results_eq($$ SELECT traceparent, tracestate FROM jobq.jobs WHERE id = (SELECT id FROM j1) $$,
                  $$ VALUES ('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'::text, NULL::text) $$,
                  'a tracestate of 10 kB is dropped, the valid traceparent kept');
SELECT set_config('jobq.tracestate', E'k=v\n', true);
CREATE TEMP TABLE j2 AS SELECT jobq.enqueue('pgtap-x', queue => 'pgtap_q') AS id;
SELECT results_eq($$ SELECT traceparent, tracestate FROM jobq.jobs WHERE id = (SELECT id FROM j2) $$,
                  $$ VALUES ('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'::text, NULL::text) $$,
                  'a tracestate with a control character is dropped');

SELECT * FROM finish();
ROLLBACK;
