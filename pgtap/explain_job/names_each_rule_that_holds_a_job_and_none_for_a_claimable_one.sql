-- jobq.explain_job names every rule that holds a job now, one row each, and none when a claim of
-- its queue may take it: a job not yet due (scheduled) or waiting for its retry (backoff), its
-- queue paused, its queue, store or partition at its concurrency limit, its queue or store at its
-- rate limit, no live worker serving its task in its queue; a running job is running, a finished
-- one finished. (TestExplainJobAgreesWithTheClaim checks the same rules against the claim over
-- random states.)
BEGIN;
SELECT plan(13);

SELECT jobq_test.reset();
SELECT jobq_test.tasks('t', 'other');
SELECT FROM jobq.define_task('ts', 'store');
SELECT FROM jobq.register_worker('w', 'node', 1, ARRAY['free', 'paused', 'full', 'stores', 'parts', 'rated', 'storerated', 'gone'], 10, '', ARRAY['t', 'ts']);
CREATE TEMP TABLE named (name text, id bigint);
INSERT INTO named VALUES
    ('free', jobq.enqueue('t', queue => 'free')),
    ('scheduled', jobq.enqueue('t', queue => 'free', run_at => now() + interval '1 hour')),
    ('paused', jobq.enqueue('t', queue => 'paused')),
    ('full_running', jobq.enqueue('t', queue => 'full')),
    ('full', jobq.enqueue('t', queue => 'full')),
    ('store_running', jobq.enqueue('ts', queue => 'stores', store_id => '00000000-0000-0000-0000-00000000000a')),
    ('store', jobq.enqueue('ts', queue => 'stores', store_id => '00000000-0000-0000-0000-00000000000a')),
    ('other_store', jobq.enqueue('ts', queue => 'stores', store_id => '00000000-0000-0000-0000-00000000000b')),
    ('part_running', jobq.enqueue('t', '{"k": 1}', queue => 'parts')),
    ('part', jobq.enqueue('t', '{"k": 1}', queue => 'parts')),
    ('other_part', jobq.enqueue('t', '{"k": 2}', queue => 'parts')),
    ('rated', jobq.enqueue('t', queue => 'rated')),
    ('storerated', jobq.enqueue('ts', queue => 'storerated', store_id => '00000000-0000-0000-0000-00000000000a')),
    ('unserved_task', jobq.enqueue('other', queue => 'free')),
    ('unserved_queue', jobq.enqueue('t', queue => 'nobody')),
    ('retry', jobq.enqueue('t', queue => 'gone')),
    ('done', jobq.enqueue('t', queue => 'gone'));
SELECT FROM jobq.pause_queue('paused');
SELECT FROM jobq.set_concurrency_limit('full', 1);
SELECT FROM jobq.set_store_concurrency_limit('stores', 1);
SELECT FROM jobq.set_partition_concurrency_limit('parts', 'k', 1);
SELECT FROM jobq.set_rate_limit('rated', 1, '1 hour');
SELECT FROM jobq.set_store_rate_limit('storerated', 1, '1 hour');
-- Running jobs that fill the limits (claimed while their queues were limited: counted), and
-- starts that fill the rate windows.
UPDATE jobq.jobs SET state = 'running', counted = true, attempt = 1, locked_by = 'w-else', lease_token = gen_random_uuid(), claimed_at = now(),
                     heartbeat_at = now(), lease_expires_at = now() + interval '1 minute'
WHERE id IN (SELECT id FROM named WHERE name IN ('full_running', 'store_running', 'part_running'));
INSERT INTO jobq.claim_starts (queue, store_id, started_at) VALUES
    ('rated', NULL, now() - interval '1 minute'),
    ('storerated', '00000000-0000-0000-0000-00000000000a', now() - interval '1 minute');
-- One job waits for its retry, one finished.
CREATE TEMP TABLE gone AS SELECT c.id, c.lease_token FROM jobq.claim_job('w', ARRAY['gone'], 2) AS c;
SELECT count(jobq.fail_job(g.id, g.lease_token, 'boom', retry_in => interval '1 hour')) FROM gone g
WHERE g.id = (SELECT id FROM named WHERE name = 'retry');
SELECT count(jobq.complete_job(g.id, g.lease_token)) FROM gone g WHERE g.id = (SELECT id FROM named WHERE name = 'done');

CREATE FUNCTION pg_temp.rules(p_name text) RETURNS text[] LANGUAGE sql AS $$
    SELECT coalesce(array_agg(e.rule ORDER BY e.rule), '{}') FROM jobq.explain_job((SELECT id FROM named WHERE name = p_name)) AS e
$$;

SELECT is(pg_temp.rules('free'), '{}', 'a due job of a served task in a free queue: nothing holds it');
SELECT is(pg_temp.rules('scheduled'), '{scheduled}', 'a job due in an hour: scheduled');
SELECT is(pg_temp.rules('retry'), '{backoff}', 'a job whose attempt failed, retried in an hour: backoff');
SELECT is(pg_temp.rules('paused'), '{queue_paused}', 'a job of a paused queue: queue_paused');
SELECT is(pg_temp.rules('full'), '{queue_limit}', 'a job of a queue running its max_running: queue_limit');
SELECT is(pg_temp.rules('store') || pg_temp.rules('other_store'), '{store_limit}', 'a store at its limit holds its job, not another store''s');
SELECT is(pg_temp.rules('part') || pg_temp.rules('other_part'), '{partition_limit}', 'a partition at its limit holds its job, not another partition''s');
SELECT is(pg_temp.rules('rated'), '{rate_limit}', 'a queue that started its max_started in the window: rate_limit');
SELECT is(pg_temp.rules('storerated'), '{store_rate_limit}', 'a store that started its max_started_per_store in the window: store_rate_limit');
SELECT is(pg_temp.rules('unserved_task') || pg_temp.rules('unserved_queue'), '{not_served,not_served}',
    'a task no live worker serves, and a queue no live worker serves: not_served');
SELECT is(pg_temp.rules('full_running'), '{running}', 'a running job: running, and nothing else');
SELECT is(pg_temp.rules('done'), '{finished}', 'a finished job: finished');
SELECT matches((SELECT detail FROM jobq.explain_job((SELECT id FROM named WHERE name = 'full'))),
    '^queue full runs 1 jobs, its limit \(max_running 1\)$', 'each rule says what holds the job, with the figures');

SELECT * FROM finish();
ROLLBACK;
