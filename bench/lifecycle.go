package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// The lifecycle floor: the statements jobq's lifecycle runs for a no-op job, in plain SQL
// through pgbench, built the way jobq works: on copies of jobq.jobs, jobq.job_history and
// jobq.leases made with LIKE … INCLUDING ALL (same columns, defaults, constraints and indexes; no row-level security,
// triggers or functions) and given their tables' storage parameters (fillfactor 40: LIKE does not
// copy them), under the planner settings jobq's claim pins (no sequential scan, no bitmap, generic
// plans), in jobq's batches. Transaction 1 picks lifecycleBatch due rows in the claim index's
// order (SELECT … FOR UPDATE SKIP LOCKED LIMIT n) and updates them by id = ANY, as jobq._claim
// does, setting state running, attempt + 1, locked_by, a fresh lease token (gen_random_uuid()),
// claimed_at, heartbeat_at, lease_expires_at, deadline_at and updated_at, and writes the claim's
// receipt (one row into the copy of jobq.leases, migration 00036); transaction 2 deletes
// those rows by id and lease token and inserts them into the history copy as succeeded, as
// jobq.complete_jobs does. It is what today's design costs without functions, checks, RLS or a
// runner: jobq's drain is judged against it (≥ 85 %), and a drain above it is a harness bug
// (the report says so). The raw claim+delete floor stays the outer bound.

// lifecycleBatch is the lifecycle floor's batch: about what jobq's runner claims and completes
// per call in the same drain (about 500 and 385, issue 33's measurement), where the raw floor
// takes floorBatch.
const lifecycleBatch = 500

// lifecycleClients are the pgbench client counts of the lifecycle floor.
var lifecycleClients = []int{1, 2, 4, 8}

func lifecycleClientList() string {
	var s []string
	for _, c := range lifecycleClients {
		s = append(s, strconv.Itoa(c))
	}
	return strings.Join(s, ", ")
}

// copyTable (re)creates table copyOf in schema bench as a copy of table: LIKE … INCLUDING ALL
// (columns, defaults, constraints, indexes) and the storage parameters (fillfactor), which
// LIKE leaves behind. jobq's tables have no foreign keys or triggers to copy.
func copyTable(ctx context.Context, conn *pgx.Conn, copyOf, table string) error {
	for _, q := range []string{
		"CREATE SCHEMA IF NOT EXISTS bench",
		"DROP TABLE IF EXISTS " + copyOf,
		"CREATE TABLE " + copyOf + " (LIKE " + table + " INCLUDING ALL)",
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			return fmt.Errorf("copy of %s: %s: %w", table, q, err)
		}
	}
	return copyStorage(ctx, conn, copyOf, table)
}

// copyStorage gives table copyOf the storage parameters of table (its fillfactor, …).
func copyStorage(ctx context.Context, conn *pgx.Conn, copyOf, table string) error {
	var opts string
	if err := conn.QueryRow(ctx, `SELECT coalesce(array_to_string(c.reloptions, ', '), '') FROM pg_class c WHERE c.oid = $1::regclass`, table).Scan(&opts); err != nil {
		return fmt.Errorf("storage parameters of %s: %w", table, err)
	}
	if opts != "" {
		if _, err := conn.Exec(ctx, "ALTER TABLE "+copyOf+" SET ("+opts+")"); err != nil {
			return fmt.Errorf("storage parameters of %s: %w", copyOf, err)
		}
	}
	return nil
}

// prepareLifecycleTables (re)creates bench.lf_jobs and bench.lf_history in database jobq as
// copies of jobq's tables (history: the partition a job finished now goes to), and returns the INSERT … SELECT list that turns a deleted row of
// bench.lf_jobs (alias done) into a history row, built from the catalog so that it follows the
// schema: every history column takes the job's column of the same name, except state
// ('succeeded'), finished_at (now()) and columns the job does not have (NULL).
func prepareLifecycleTables(ctx context.Context, conn *pgx.Conn) (string, error) {
	// History is partitioned by day (migration 00037): a job finished now lands in today's
	// partition, whose indexes (and not the parent's partial ones alone) the copy takes.
	var history string
	if err := conn.QueryRow(ctx, `SELECT coalesce(
		(SELECT p.part::text FROM jobq._history_partitions() p WHERE p.by_day AND now() >= p.lower AND now() < p.upper),
		'jobq.job_history_default')`).Scan(&history); err != nil {
		return "", fmt.Errorf("today's partition of history: %w", err)
	}
	for copyOf, table := range map[string]string{"bench.lf_jobs": "jobq.jobs", "bench.lf_history": history, "bench.lf_leases": "jobq.leases"} {
		if err := copyTable(ctx, conn, copyOf, table); err != nil {
			return "", err
		}
	}
	rows, err := conn.Query(ctx, `SELECT h.attname, j.attname IS NOT NULL
		FROM pg_attribute h
		LEFT JOIN pg_attribute j ON j.attrelid = 'bench.lf_jobs'::regclass AND j.attname = h.attname AND j.attnum > 0 AND NOT j.attisdropped
		WHERE h.attrelid = 'bench.lf_history'::regclass AND h.attnum > 0 AND NOT h.attisdropped
		ORDER BY h.attnum`)
	if err != nil {
		return "", fmt.Errorf("history columns: %w", err)
	}
	defer rows.Close()
	var cols, vals []string
	for rows.Next() {
		var name string
		var inJobs bool
		if err := rows.Scan(&name, &inJobs); err != nil {
			return "", fmt.Errorf("history columns: %w", err)
		}
		v := "NULL"
		switch {
		case name == "state":
			v = "'succeeded'"
		case name == "finished_at":
			v = "now()"
		case inJobs:
			v = "done." + pgx.Identifier{name}.Sanitize()
		}
		cols = append(cols, pgx.Identifier{name}.Sanitize())
		vals = append(vals, v)
	}
	if err := rows.Err(); err != nil {
		return "", fmt.Errorf("history columns: %w", err)
	}
	return "(" + strings.Join(cols, ", ") + ") SELECT " + strings.Join(vals, ", "), nil
}

// The lifecycle floor's statements, with placeholders that become pgbench variables in the
// script and parameters in the plan check (checkFloorPlans): {picked}, {ids} and {tokens} are
// arrays, {client} the pgbench client, {batch} the batch and {insert} the history insert list.
const (
	lifecyclePick = `SELECT coalesce(array_agg(p.id), '{}')::text AS picked
FROM (SELECT id FROM bench.lf_jobs
      WHERE ready AND state IN ('queued', 'retry_pending') AND queue = 'default' AND run_at <= now()
      ORDER BY priority, run_at, id
      LIMIT {batch}
      FOR UPDATE SKIP LOCKED) AS p`
	lifecycleLease = lifecycleClaimed + lifecycleReceipt + `
SELECT coalesce(array_agg(id ORDER BY id), '{}')::text AS ids,
       coalesce(array_agg(lease_token ORDER BY id), '{}')::text AS tokens
FROM claimed`
	// The lease by id, as jobq._claim's; the WAL bounds (bounds.go) run it on their own table.
	lifecycleClaimed = `WITH claimed AS (
    UPDATE bench.lf_jobs j
    SET state = 'running',
        attempt = j.attempt + 1,
        locked_by = 'floor-' || {client},
        lease_token = gen_random_uuid(),
        claimed_at = now(),
        heartbeat_at = now(),
        lease_expires_at = now() + interval '30 seconds',
        deadline_at = now() + j.timeout,
        updated_at = now()
    WHERE j.id = ANY ({picked})
    RETURNING j.*
)`
	// The claim's receipt (migration 00036).
	lifecycleReceipt = `, receipt AS (
    INSERT INTO bench.lf_leases (worker_id, job_ids, check_at)
    SELECT 'floor-' || {client}, array_agg(c.id), min(least(c.lease_expires_at, c.deadline_at))
    FROM claimed c HAVING count(*) > 0
)`
	// As jobq.complete_jobs: the rows by key, joined to the sorted pairs by hash.
	lifecycleComplete = `WITH done AS (
    DELETE FROM bench.lf_jobs j
    USING (SELECT c.id, c.token FROM unnest({ids}, {tokens}) AS c(id, token) ORDER BY c.id) AS c
    WHERE j.id = ANY ({ids}) AND j.id = c.id AND j.lease_token = c.token
      AND j.locked_by IS NOT NULL AND j.lease_expires_at IS NOT NULL
    RETURNING j.*
)
INSERT INTO bench.lf_history {insert} FROM done`
)

// The planner settings jobq's functions pin: the claim (jobq._claim) and the completion
// (jobq.complete_jobs, which also turns off nested loops); both plan generically.
var (
	claimSettings    = []string{"enable_seqscan = off", "enable_bitmapscan = off"}
	completeSettings = []string{"enable_seqscan = off", "enable_bitmapscan = off", "enable_nestloop = off"}
)

func setLocal(settings []string) string {
	var b strings.Builder
	for _, s := range settings {
		b.WriteString("SET LOCAL " + s + ";\n")
	}
	return b.String()
}

// lifecycleScript is the pgbench script: the claim (pick, then lease by id) in one
// transaction, the completion in another, each under jobq's planner settings.
func lifecycleScript(insert string) string {
	pg := strings.NewReplacer("{picked}", ":picked::bigint[]", "{ids}", ":ids::bigint[]", "{tokens}", ":tokens::uuid[]", "{client}", ":client_id",
		"{batch}", strconv.Itoa(lifecycleBatch), "{insert}", insert)
	return "SET plan_cache_mode = force_generic_plan;\n" +
		"BEGIN;\n" + setLocal(claimSettings) +
		pg.Replace(lifecyclePick) + " \\gset\n" +
		pg.Replace(lifecycleLease) + " \\gset\n" +
		"COMMIT;\n" +
		"BEGIN;\n" + setLocal(completeSettings) +
		pg.Replace(lifecycleComplete) + ";\n" +
		"COMMIT;\n"
}

// lifecyclePlans are the lifecycle floor's statements for the plan check.
func lifecyclePlans(insert string) []floorPlan {
	sq := strings.NewReplacer("{picked}", "$1::bigint[]", "{ids}", "$1::bigint[]", "{tokens}", "$2::uuid[]", "{client}", "'1'",
		"{batch}", strconv.Itoa(lifecycleBatch), "{insert}", insert)
	return []floorPlan{
		{"lifecycle floor: pick", claimSettings, sq.Replace(lifecyclePick), nil},
		{"lifecycle floor: lease", claimSettings, sq.Replace(lifecycleLease), []string{"'{1,2,3}'"}},
		{"lifecycle floor: complete", completeSettings, sq.Replace(lifecycleComplete),
			[]string{"'{1,2,3}'", "'{00000000-0000-0000-0000-000000000001,00000000-0000-0000-0000-000000000002,00000000-0000-0000-0000-000000000003}'"}},
	}
}

// drainLifecycleFloor fills the copy of jobq.jobs with n due jobs and drains it with pgbench at
// the given number of clients: n ÷ the wall time of pgbench.
func drainLifecycleFloor(ctx context.Context, env *environment, n, clients int) (float64, error) {
	if err := env.ensureJobq(ctx); err != nil {
		return 0, err
	}
	conn, err := pgx.Connect(ctx, env.cl.url("postgres", "jobq"))
	if err != nil {
		return 0, fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	insert, err := prepareLifecycleTables(ctx, conn)
	if err != nil {
		return 0, err
	}
	env.meter.filling(ctx)
	if _, err := conn.Exec(ctx, `INSERT INTO bench.lf_jobs (task, payload, max_attempts) SELECT 'ping', '{}'::jsonb, 25 FROM generate_series(1, $1)`, n); err != nil {
		return 0, fmt.Errorf("fill bench.lf_jobs: %w", err)
	}
	env.meter.filled(ctx)
	if err := settle(ctx, conn, "bench.lf_jobs"); err != nil {
		return 0, err
	}
	env.meter.draining(ctx)
	if err := checkFloorPlans(ctx, conn, lifecyclePlans(insert)); err != nil {
		return 0, err
	}
	script := filepath.Join(env.cacheDir, "lifecycle.sql")
	if err := os.WriteFile(script, []byte(lifecycleScript(insert)), 0o644); err != nil {
		return 0, fmt.Errorf("pgbench script: %w", err)
	}
	perClient := n/(lifecycleBatch*clients) + 10 // a few spare transactions: the last claims take fewer rows
	args := append(env.pgbenchConn(), "-n", "-M", "prepared", "-c", strconv.Itoa(clients), "-j", strconv.Itoa(clients),
		"-t", strconv.Itoa(perClient), "-f", script, "jobq")
	if _, err := runTool(ctx, nil, filepath.Join(env.pgBinDir, "pgbench"), args...); err != nil {
		return 0, err
	}
	env.meter.drained(ctx)
	// As jobq's drain is read: from the first claim to the last completion, the database's clock.
	var secs float64
	if err := conn.QueryRow(ctx, `SELECT extract(epoch FROM max(finished_at) - min(claimed_at))::float8 FROM bench.lf_history`).Scan(&secs); err != nil {
		return 0, fmt.Errorf("lifecycle floor drain time: %w", err)
	}
	if secs <= 0 {
		return 0, fmt.Errorf("lifecycle floor drain took %v s", secs)
	}
	var left, done int
	if err := conn.QueryRow(ctx, "SELECT (SELECT count(*) FROM bench.lf_jobs), (SELECT count(*) FROM bench.lf_history WHERE state = 'succeeded')").Scan(&left, &done); err != nil {
		return 0, fmt.Errorf("lifecycle floor rows: %w", err)
	}
	if left != 0 || done != n {
		return 0, fmt.Errorf("lifecycle floor left %d of %d rows and moved %d to history", left, n, done)
	}
	if _, err := conn.Exec(ctx, "DROP TABLE bench.lf_jobs, bench.lf_history, bench.lf_leases"); err != nil {
		return 0, fmt.Errorf("drop lifecycle floor tables: %w", err)
	}
	return float64(n) / secs, nil
}
