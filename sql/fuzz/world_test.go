package fuzz_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/jobqdev/jobq/internal/dbtest"
)

// The two tenants of every fuzzed database: callers act in store A; store B is the other tenant
// whose control job must keep flowing.
const (
	storeA = "0000000a-0000-4000-8000-00000000000a"
	storeB = "0000000b-0000-4000-8000-00000000000b"
)

// controlWorker claims the control jobs; the generators never produce its id, so no fuzzed call
// drains or detaches it.
const controlWorker = "fuzz-control-worker"

// controlQueues are the queues the control claim sweeps: the fuzzed calls enqueue into them too,
// so a job that stops claiming for its queue stops the control job.
var controlQueues = []string{"default", "fuzz-q"}

// callTimeout is every fuzzed statement's statement_timeout: a call running longer is a loop that
// does not terminate, and a failure.
const callTimeout = 2 * time.Second

// caller is one way of calling the engine: a role, and the store its transaction acts for.
type caller struct {
	Name  string // app@A, app, worker, worker@A, operator
	Role  string // the jobq role whose EXECUTE rights it has
	Store string // app.current_store_id set (SET LOCAL) in the call's transaction; "" for none
}

// callers are the contexts every function is called in, each with EXECUTE rights of its role.
var callers = []caller{
	{Name: "app@A", Role: "jobq_app", Store: storeA},
	{Name: "app", Role: "jobq_app"},
	{Name: "worker", Role: "worker_runtime"},
	{Name: "worker@A", Role: "worker_runtime", Store: storeA},
	{Name: "operator", Role: "jobq_operator"},
}

// logins are the test's login roles, members of jobq_app and jobq_operator as an application's
// and an operator's logins are; worker_runtime logs in as itself. AppB is the other tenant's
// application login, which only the health check uses: the fuzzed calls may bind App to stores
// (jobq.bind_store), never AppB.
type logins struct {
	App, Operator, AppB string
}

// createLogins makes the login roles (cluster-wide, so named after the test's database) and drops
// them when t ends.
func createLogins(t *testing.T, adminURL string, suffix string) logins {
	t.Helper()
	ctx := context.Background()
	l := logins{App: "fuzz_app_" + suffix, Operator: "fuzz_op_" + suffix, AppB: "fuzz_appb_" + suffix}
	conn, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		t.Fatalf("connect as the superuser: %v", err)
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, fmt.Sprintf(`CREATE ROLE %s LOGIN IN ROLE jobq_app; CREATE ROLE %s LOGIN IN ROLE jobq_operator;
		CREATE ROLE %s LOGIN IN ROLE jobq_app`,
		pgx.Identifier{l.App}.Sanitize(), pgx.Identifier{l.Operator}.Sanitize(), pgx.Identifier{l.AppB}.Sanitize()))
	if err != nil {
		t.Fatalf("create the login roles: %v", err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), adminURL)
		if err != nil {
			t.Errorf("drop the login roles: %v", err)
			return
		}
		defer c.Close(context.Background())
		if _, err := c.Exec(context.Background(), fmt.Sprintf(`DROP ROLE IF EXISTS %s, %s, %s`,
			pgx.Identifier{l.App}.Sanitize(), pgx.Identifier{l.Operator}.Sanitize(), pgx.Identifier{l.AppB}.Sanitize())); err != nil {
			t.Errorf("drop the login roles: %v", err)
		}
	})
	return l
}

// world is one fresh database with its fixtures and a connection per caller.
type world struct {
	db     *dbtest.DB
	logins logins
	admin  *pgx.Conn // superuser: fixtures, fingerprints and pools only, never a fuzzed call
	conns  map[string]*pgx.Conn
	fpSQL  string // the fingerprint statement, built from the catalog's tables
	closed []*pgx.Conn
}

// newWorld clones a migrated database, adds stores A and B, tasks, a schedule and jobs in every
// state for the fuzzed calls to aim at, and connects each caller.
func newWorld(t *testing.T, l logins) (*world, error) {
	t.Helper()
	ctx := context.Background()
	w := &world{db: dbtest.New(t), logins: l, conns: map[string]*pgx.Conn{}}
	var err error
	if w.admin, err = pgx.Connect(ctx, w.db.URL("postgres")); err != nil {
		return nil, err
	}
	t.Cleanup(w.close)
	if _, err := w.admin.Exec(ctx, fixtureSQL); err != nil {
		return nil, fmt.Errorf("fixtures: %w", err)
	}
	if err := w.buildFingerprint(ctx); err != nil {
		return nil, err
	}
	for _, c := range callers {
		if _, err := w.conn(ctx, c); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// close closes the world's connections (its database is dropped when the test ends); a second
// call does nothing.
func (w *world) close() {
	for _, c := range w.conns {
		_ = c.Close(context.Background())
	}
	for _, c := range w.closed {
		_ = c.Close(context.Background())
	}
	if w.admin != nil {
		_ = w.admin.Close(context.Background())
	}
}

// conn returns the connection of caller c, opening it (again, after a connection was lost) as
// the caller's login with the per-call statement_timeout.
func (w *world) conn(ctx context.Context, c caller) (*pgx.Conn, error) {
	if conn := w.conns[c.Name]; conn != nil && !conn.IsClosed() {
		return conn, nil
	}
	login := map[string]string{"jobq_app": w.logins.App, "jobq_operator": w.logins.Operator, "worker_runtime": "worker_runtime"}[c.Role]
	if c.Name == healthAppB {
		login = w.logins.AppB
	}
	cfg, err := pgx.ParseConfig(w.db.URL(login))
	if err != nil {
		return nil, err
	}
	cfg.RuntimeParams["statement_timeout"] = fmt.Sprint(callTimeout.Milliseconds())
	cfg.RuntimeParams["client_min_messages"] = "error"
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect as %s: %w", login, err)
	}
	if old := w.conns[c.Name]; old != nil {
		w.closed = append(w.closed, old)
	}
	w.conns[c.Name] = conn
	return conn, nil
}

// call runs sql with args as caller c: in one implicit transaction that first sets
// app.current_store_id locally when c acts for a store, as a tenant transaction does. It returns
// the rows' values, or the error.
func (w *world) call(ctx context.Context, c caller, sql string, args ...any) ([][]any, error) {
	conn, err := w.conn(ctx, c)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout+5*time.Second)
	defer cancel()
	b := &pgx.Batch{}
	if c.Store != "" {
		b.Queue(`SELECT pg_catalog.set_config('app.current_store_id', $1, true)`, c.Store)
	}
	b.Queue(sql, args...)
	br := conn.SendBatch(ctx, b)
	defer br.Close()
	if c.Store != "" {
		if _, err := br.Exec(); err != nil {
			return nil, err
		}
	}
	rows, err := br.Query()
	if err != nil {
		return nil, err
	}
	var out [][]any
	for rows.Next() {
		v, err := rows.Values()
		if err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, v)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, br.Close()
}

// fixtureSQL makes stores A and B, the tasks the generators name, a schedule whose slot keys are
// predictable, jobs in every state for each of system, store A and store B: waiting (keyed,
// due and future), dead, succeeded and canceled, and batches (open for each, settled for A). It runs as the superuser, taking each role in
// turn as the real callers would.
var fixtureSQL = fmt.Sprintf(`
INSERT INTO public.store (id, name) VALUES ('%[1]s', 'fuzz store A'), ('%[2]s', 'fuzz store B');
SET ROLE worker_runtime;
SELECT jobq.define_task('fuzz-sys');
SELECT jobq.define_task('fuzz-sys-typed', payload_schema => '{"n": "integer", "at?": "timestamp"}');
SELECT jobq.define_task('fuzz-calendar', payload_schema => '{"n": "integer", "at?": "timestamp", "d?": "date"}');
SELECT jobq.define_task('fuzz-store', scope => 'store');
SELECT jobq.define_task('fuzz-store-typed', scope => 'store', payload_schema => '{"storeId": "uuid", "n?": "integer"}');
SELECT jobq.define_task('fuzz-control', scope => 'store');
SELECT jobq.schedule('fuzz-cron', '* * * * *', 'fuzz-sys');
SELECT jobq.enqueue('fuzz-sys', '{"fixture": "keyed"}', job_key => 'sys-key', run_at => now() + interval '1 hour');
SELECT jobq.enqueue('fuzz-sys', '{"fixture": "due"}', job_key => 'sys-due', queue => 'fuzz-q');
SELECT jobq.enqueue('fuzz-sys', '{"fixture": "dead"}', queue => 'fuzz-fixture', max_attempts => 1);
SELECT jobq.enqueue('fuzz-sys', '{"fixture": "done"}', queue => 'fuzz-fixture', job_key => 'sys-done');
SELECT jobq.enqueue('fuzz-sys', '{"fixture": "canceled"}', queue => 'fuzz-canceled');
SELECT jobq.create_batch(on_complete => '{"task": "fuzz-sys"}', description => 'fuzz system batch');
SET ROLE jobq_app;
SELECT set_config('app.current_store_id', '%[1]s', false);
SELECT jobq.batch_enqueue(jobq.create_batch(on_success => '{"task": "fuzz-store"}', description => 'fuzz A batch'),
                          '[{"task": "fuzz-store", "payload": {"fixture": "batch"}, "run_at": "2100-01-01T00:00:00Z"}]');
SELECT jobq.seal_batch(jobq.create_batch(description => 'fuzz A settled batch'));
SELECT jobq.enqueue('fuzz-store', '{"fixture": "keyed"}', store_id => '%[1]s', job_key => 'a-key', run_at => now() + interval '1 hour');
SELECT jobq.enqueue('fuzz-store', '{"fixture": "due"}', store_id => '%[1]s');
SELECT jobq.enqueue('fuzz-store', '{"fixture": "dead"}', store_id => '%[1]s', queue => 'fuzz-fixture', max_attempts => 1);
SELECT jobq.enqueue('fuzz-store', '{"fixture": "canceled"}', store_id => '%[1]s', queue => 'fuzz-canceled');
SELECT set_config('app.current_store_id', '%[2]s', false);
SELECT jobq.create_batch(description => 'fuzz B batch');
SELECT jobq.enqueue('fuzz-store', '{"fixture": "keyed"}', store_id => '%[2]s', job_key => 'b-key', run_at => now() + interval '1 hour');
SELECT jobq.enqueue('fuzz-store', '{"fixture": "due"}', store_id => '%[2]s', queue => 'fuzz-q');
SELECT jobq.enqueue('fuzz-store', '{"fixture": "dead"}', store_id => '%[2]s', queue => 'fuzz-fixture', max_attempts => 1);
SELECT jobq.enqueue('fuzz-store', '{"fixture": "canceled"}', store_id => '%[2]s', queue => 'fuzz-canceled');
RESET app.current_store_id;
SET ROLE worker_runtime;
SELECT count(*) FROM (
    SELECT CASE WHEN c.payload->>'fixture' = 'done' THEN (SELECT count(*) FROM jobq.complete_jobs(ARRAY[c.id], ARRAY[c.lease_token]))
                ELSE (SELECT count(*) FROM jobq.fail_jobs(ARRAY[c.id], ARRAY[c.lease_token], ARRAY['fixture'], retryable => ARRAY[false])) END
    FROM jobq.claim_job('fuzz-fixture-worker', ARRAY['fuzz-fixture'], 100) AS c) AS finished;
SELECT jobq.register_worker('fuzz-worker-1', 'node', 1, ARRAY['default'], 1);
RESET ROLE;
SET ROLE jobq_operator;
SELECT jobq.cancel_job(j.id) FROM jobq.jobs j WHERE j.queue = 'fuzz-canceled';
RESET ROLE;
`, storeA, storeB)

// buildFingerprint writes the fingerprint statement: per table of schema jobq (read from the
// catalog, so a new table is covered) its row count and a sum of hashes of each row version's
// ctid and xmin, which changes whenever a row is inserted, updated or deleted; jobs and
// job_history are split by tenant class and by whether the row is new (id above the sequence's
// value before the call).
func (w *world) buildFingerprint(ctx context.Context) error {
	rows, err := w.admin.Query(ctx, `
		SELECT c.relname FROM pg_catalog.pg_class c
		WHERE c.relnamespace = 'jobq'::regnamespace AND c.relkind IN ('r', 'p')
		  AND c.relname NOT IN ('jobs', 'job_history', 'goose_db_version') AND NOT c.relispartition
		ORDER BY 1`)
	if err != nil {
		return err
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	var parts []string
	for _, t := range tables {
		parts = append(parts, fmt.Sprintf(
			`(SELECT '%[1]s:' || count(*) || ':' || coalesce(sum(pg_catalog.hashtext(r.ctid::text || '/' || r.xmin::text)), 0) FROM jobq.%[1]s r)`,
			pgx.Identifier{t}.Sanitize()))
	}
	w.fpSQL = fmt.Sprintf(`
		SELECT (SELECT s.last_value FROM jobq.jobs_id_seq s),
		       concat_ws(' ', %s),
		       coalesce((SELECT jsonb_agg(jsonb_build_array(u.t, u.cls, u.n, u.h, u.nn, u.nh)) FROM (
		           SELECT r.t, r.cls, count(*) AS n, coalesce(sum(pg_catalog.hashint8(r.id # r.x)), 0) AS h,
		                  count(*) FILTER (WHERE r.id > $3) AS nn, coalesce(sum(pg_catalog.hashint8(r.id # r.x)) FILTER (WHERE r.id > $3), 0) AS nh
		           FROM (SELECT 'jobs' AS t, j.id, j.xmin::text::bigint AS x,
		                        CASE WHEN j.store_id IS NULL THEN 'system' WHEN j.store_id = $1 THEN 'A' WHEN j.store_id = $2 THEN 'B' ELSE 'other' END AS cls
		                 FROM jobq.jobs j
		                 UNION ALL
		                 SELECT 'job_history', h.id, h.xmin::text::bigint,
		                        CASE WHEN h.store_id IS NULL THEN 'system' WHEN h.store_id = $1 THEN 'A' WHEN h.store_id = $2 THEN 'B' ELSE 'other' END
		                 FROM jobq.job_history h) AS r
		           GROUP BY r.t, r.cls) AS u), '[]')`, strings.Join(parts, ", "))
	return nil
}

// classAgg is one (table, tenant class) of jobs or job_history: all rows, and the rows new since
// the cutoff.
type classAgg struct{ N, Hash, NewN, NewHash int64 }

// fingerprint is what the tables held after a call: cheap to take, and different after any write.
type fingerprint struct {
	Seq     int64               // jobs_id_seq's last value: the next call's cutoff
	General string              // every other jobq table
	Classes map[string]classAgg // "jobs/A", "job_history/system", ...
}

// old is the class's aggregate without the rows new since the cutoff: the rows that existed
// before the call.
func (f fingerprint) old(key string) (n, hash int64) {
	a := f.Classes[key]
	return a.N - a.NewN, a.Hash - a.NewHash
}

// same reports whether two fingerprints show the same rows, and what differs when not.
func (f fingerprint) same(g fingerprint) (bool, string) {
	if f.General != g.General {
		return false, fmt.Sprintf("tables changed: %s -> %s", f.General, g.General)
	}
	for _, k := range unionKeys(f.Classes, g.Classes) {
		if f.Classes[k].N != g.Classes[k].N || f.Classes[k].Hash != g.Classes[k].Hash {
			return false, fmt.Sprintf("%s changed: %d rows -> %d rows", k, f.Classes[k].N, g.Classes[k].N)
		}
	}
	return true, ""
}

func unionKeys(a, b map[string]classAgg) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range []map[string]classAgg{a, b} {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	return out
}

// fingerprint takes the tables' fingerprint, counting as new the job rows with ids above cutoff.
func (w *world) fingerprint(ctx context.Context, cutoff int64) (fingerprint, error) {
	f := fingerprint{Classes: map[string]classAgg{}}
	var classes []byte
	if err := w.admin.QueryRow(ctx, w.fpSQL, storeA, storeB, cutoff).Scan(&f.Seq, &f.General, &classes); err != nil {
		return f, fmt.Errorf("fingerprint: %w", err)
	}
	var raw [][]any
	if err := json.Unmarshal(classes, &raw); err != nil {
		return f, err
	}
	for _, r := range raw {
		f.Classes[r[0].(string)+"/"+r[1].(string)] = classAgg{
			N: int64(r[2].(float64)), Hash: int64(r[3].(float64)), NewN: int64(r[4].(float64)), NewHash: int64(r[5].(float64)),
		}
	}
	return f, nil
}

// pools are ids, tokens, keys and names of real rows for the generators to aim at, by tenant
// class (system, A, B).
type pools struct {
	Live      map[string][]int64  `json:"live"`
	Dead      map[string][]int64  `json:"dead"`
	Done      map[string][]int64  `json:"done"`
	Keys      map[string][]string `json:"keys"`
	Running   []running           `json:"running"`
	Workers   []string            `json:"workers"`
	Schedules []string            `json:"schedules"`
	Batches   map[string][]int64  `json:"batches"`
	Epoch     int64               `json:"epoch"`
	MaxID     int64               `json:"max_id"`
}

// running is a job a worker holds, with its real lease token.
type running struct {
	ID     int64  `json:"id"`
	Token  string `json:"token"`
	Class  string `json:"class"`
	Worker string `json:"worker"`
}

const poolsSQL = `
WITH j AS (
    SELECT j.id, j.state, j.job_key, j.lease_token, j.locked_by,
           CASE WHEN j.store_id IS NULL THEN 'system' WHEN j.store_id = $1 THEN 'A' WHEN j.store_id = $2 THEN 'B' ELSE 'other' END AS cls,
           row_number() OVER (PARTITION BY j.store_id ORDER BY j.id DESC) AS recent,
           row_number() OVER (PARTITION BY j.store_id ORDER BY j.id) AS oldest
    FROM jobq.jobs j
), h AS (
    SELECT h.id, h.state = 'dead' AS dead,
           CASE WHEN h.store_id IS NULL THEN 'system' WHEN h.store_id = $1 THEN 'A' WHEN h.store_id = $2 THEN 'B' ELSE 'other' END AS cls,
           row_number() OVER (PARTITION BY h.store_id, h.state = 'dead' ORDER BY h.id DESC) AS recent,
           row_number() OVER (PARTITION BY h.store_id, h.state = 'dead' ORDER BY h.id) AS oldest
    FROM jobq.job_history h
)
SELECT jsonb_build_object(
    'live', coalesce((SELECT jsonb_object_agg(x.cls, x.ids) FROM (SELECT j.cls, jsonb_agg(j.id ORDER BY j.id) AS ids FROM j WHERE j.recent <= 12 OR j.oldest <= 4 GROUP BY j.cls) x), '{}'),
    'dead', coalesce((SELECT jsonb_object_agg(x.cls, x.ids) FROM (SELECT h.cls, jsonb_agg(h.id ORDER BY h.id) AS ids FROM h WHERE h.dead AND (h.recent <= 8 OR h.oldest <= 4) GROUP BY h.cls) x), '{}'),
    'done', coalesce((SELECT jsonb_object_agg(x.cls, x.ids) FROM (SELECT h.cls, jsonb_agg(h.id ORDER BY h.id) AS ids FROM h WHERE NOT h.dead AND (h.recent <= 8 OR h.oldest <= 4) GROUP BY h.cls) x), '{}'),
    'keys', coalesce((SELECT jsonb_object_agg(x.cls, x.keys) FROM (SELECT j.cls, jsonb_agg(j.job_key ORDER BY j.id) AS keys FROM j WHERE j.job_key IS NOT NULL AND (j.recent <= 30 OR j.oldest <= 10) GROUP BY j.cls) x), '{}'),
    'running', coalesce((SELECT jsonb_agg(jsonb_build_object('id', r.id, 'token', r.lease_token, 'class', r.cls, 'worker', r.locked_by) ORDER BY r.id)
                         FROM (SELECT * FROM j WHERE j.state = 'running' ORDER BY j.id DESC LIMIT 30) r), '[]'),
    'workers', coalesce((SELECT jsonb_agg(w.id ORDER BY w.id) FROM (SELECT w.id FROM jobq.workers w WHERE w.id <> $3 ORDER BY w.id LIMIT 20) w), '[]'),
    'schedules', coalesce((SELECT jsonb_agg(s.name ORDER BY s.name) FROM jobq.schedules s), '[]'),
    'batches', coalesce((SELECT jsonb_object_agg(x.cls, x.ids) FROM (
        SELECT CASE WHEN b.store_id IS NULL THEN 'system' WHEN b.store_id = $1 THEN 'A' WHEN b.store_id = $2 THEN 'B' ELSE 'other' END AS cls,
               jsonb_agg(b.id ORDER BY b.id) AS ids
        FROM (SELECT * FROM jobq.batches ORDER BY id LIMIT 50) b GROUP BY 1) x), '{}'),
    'epoch', (SELECT l.epoch FROM jobq.leader l),
    'max_id', (SELECT s.last_value FROM jobq.jobs_id_seq s))`

// refreshPools reads the pools again.
func (w *world) refreshPools(ctx context.Context) (*pools, error) {
	var raw []byte
	if err := w.admin.QueryRow(ctx, poolsSQL, storeA, storeB, controlWorker).Scan(&raw); err != nil {
		return nil, fmt.Errorf("pools: %w", err)
	}
	p := &pools{}
	return p, json.Unmarshal(raw, p)
}

// healthAppB names the health check's caller: store B's application, on its own login.
const healthAppB = "app@B"

// health checks that the queue still works for the other tenant: jobq.maintain() runs, a control
// job of store B enqueued by its application is claimed from the fuzzed queues and completed, and
// jobq.queue_lag() answers. It returns the step that failed.
func (w *world) health(ctx context.Context) error {
	appB := caller{Name: healthAppB, Role: "jobq_app", Store: storeB}
	worker := caller{Name: "worker", Role: "worker_runtime"}
	if _, err := w.call(ctx, worker, `SELECT jobq.maintain()`); err != nil {
		return fmt.Errorf("jobq.maintain() as worker_runtime: %w", err)
	}
	// The sweep finds a running job only through a claim's receipt (jobq.leases) of its worker
	// due no later than its lease end or deadline: no fuzzed call may leave one without.
	var uncovered []int64
	if err := w.admin.QueryRow(ctx, `
		SELECT coalesce(array_agg(j.id ORDER BY j.id), '{}') FROM jobq.jobs j
		WHERE j.state = 'running'
		  AND NOT EXISTS (SELECT 1 FROM jobq.leases l
		                  WHERE l.worker_id = j.locked_by AND j.id = ANY (l.job_ids)
		                    AND l.check_at <= least(j.lease_expires_at, j.deadline_at))`).Scan(&uncovered); err != nil {
		return fmt.Errorf("the claims' receipts: %w", err)
	}
	if len(uncovered) > 0 {
		return fmt.Errorf("running jobs %v have no claim receipt (jobq.leases) of their worker due by their lease end", uncovered)
	}
	rows, err := w.call(ctx, appB, `SELECT jobq.enqueue('fuzz-control', '{"control": true}', store_id => $1::uuid, queue => $2, priority => -32768)`,
		storeB, controlQueues[0])
	if err != nil {
		return fmt.Errorf("enqueue of the control job by store B's application: %w", err)
	}
	id := rows[0][0].(int64)
	claimed, err := w.call(ctx, worker, `SELECT c.id, c.lease_token::text FROM jobq.claim_job($1, $2::text[], 10000, interval '5 minutes') AS c`,
		controlWorker, controlQueues)
	if err != nil {
		return fmt.Errorf("claim_job(%q, %v) as worker_runtime: %w", controlWorker, controlQueues, err)
	}
	var token string
	for _, r := range claimed {
		if r[0].(int64) == id {
			token = r[1].(string)
		}
	}
	if token == "" {
		return fmt.Errorf("claim_job(%q, %v) as worker_runtime did not claim the control job %d of store B (claimed %d jobs)",
			controlWorker, controlQueues, id, len(claimed))
	}
	done, err := w.call(ctx, worker, `SELECT c.outcome FROM jobq.complete_jobs(ARRAY[$1::bigint], ARRAY[$2::uuid]) AS c`, id, token)
	if err != nil {
		return fmt.Errorf("complete_jobs of the control job %d as worker_runtime: %w", id, err)
	}
	if len(done) != 1 || done[0][0] != "succeeded" {
		return fmt.Errorf("complete_jobs of the control job %d as worker_runtime: outcome %v, want succeeded", id, done)
	}
	if _, err := w.call(ctx, worker, `SELECT * FROM jobq.queue_lag()`); err != nil {
		return fmt.Errorf("jobq.queue_lag() as worker_runtime: %w", err)
	}
	return nil
}

// pgError returns the PostgreSQL error in err, or nil.
func pgError(err error) *pgconn.PgError {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pg
	}
	return nil
}
