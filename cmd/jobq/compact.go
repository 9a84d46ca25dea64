package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// jobq compact: runs, as the tables' owner, what jobq.upkeep_advice advises (docs/operations.md,
// "After a long transaction"). The decision is the SQL function's; this command only executes the
// statements it returns, which cannot run inside a function.

type compactCmd struct {
	DatabaseURL    string        `name:"database-url" env:"JOBQ_OWNER_DATABASE_URL" placeholder:"URL" help:"URL of the tables' owner, jobq_migrator (default $$JOBQ_OWNER_DATABASE_URL, then $$DATABASE_URL_MIGRATOR, then libpq's PG* variables)"`
	Every          time.Duration `name:"every" help:"run a round every DURATION until stopped (default 0: one round)"`
	DryRun         bool          `name:"dry-run" help:"print the advice and run nothing"`
	MinSizeMB      int64         `name:"min-size-mb" default:"8" help:"leave alone any table (or its indexes) smaller than this many MiB"`
	MaxRows        int           `name:"max-rows" default:"10000" help:"rewrite only tables of at most this many live rows; larger ones get their indexes rebuilt online"`
	HeldAfter      time.Duration `name:"held-after" default:"10s" help:"wait while a snapshot older than this is open in the database"`
	LockTimeout    time.Duration `name:"lock-timeout" default:"100ms" help:"give up a statement (until the next round) when its table stays locked this long; others' statements wait at most this long behind it"`
	RewriteTimeout time.Duration `name:"rewrite-timeout" default:"5s" help:"cancel a rewrite (VACUUM FULL) that takes longer"`
	jsonFlag
}

// Help is the long help of jobq compact.
func (c *compactCmd) Help() string {
	return `usage: jobq compact [--every DURATION] [--dry-run] [--database-url URL]

After a transaction kept a snapshot open for minutes, jobq.jobs holds every job that ran
meanwhile; vacuum makes the space reusable but never shrinks the indexes. jobq compact asks
jobq.upkeep_advice() what to do and, as the tables' owner (jobq_migrator), does it: VACUUM (FULL)
for tables of few live rows (milliseconds under an ACCESS EXCLUSIVE lock, given up after
--lock-timeout), REINDEX TABLE CONCURRENTLY for large ones, DROP INDEX CONCURRENTLY for an index
a stopped rebuild left invalid. While a snapshot older than --held-after is open it waits.
Run it once, or keep it running with --every 30s next to the runners.
Exit status: 0 when every round ran (a statement given up on a lock counts as ran), 1 on an
error (a login that is not the owner, a database that cannot be reached), 2 on a usage error.`
}

// compactRow is one row of jobq.upkeep_advice, and in --json output what was done with it.
type compactRow struct {
	Table       string   `json:"table"`
	TotalBytes  int64    `json:"total_bytes"`
	IndexBytes  int64    `json:"index_bytes"`
	LiveRows    *int64   `json:"live_rows"`
	Action      string   `json:"action"`
	Statement   *string  `json:"statement"`
	Reason      *string  `json:"reason"`
	Result      string   `json:"result"`
	BytesAfter  *int64   `json:"bytes_after"`
	DurationSec *float64 `json:"duration_seconds"`
}

func (c *compactCmd) Run(e *env) error {
	if c.Every < 0 {
		return usageError{"--every must not be negative"}
	}
	if c.MinSizeMB < 0 || c.MaxRows < 0 || c.HeldAfter < 0 || c.LockTimeout <= 0 || c.RewriteTimeout <= 0 {
		return usageError{"--min-size-mb, --max-rows and --held-after must not be negative; --lock-timeout and --rewrite-timeout must be positive"}
	}
	// Beyond 1 TiB (upkeep_advice's bound) the shift to bytes would wrap round.
	if c.MinSizeMB > 1<<20 {
		return usageError{"--min-size-mb must be at most 1048576 (1 TiB)"}
	}
	dsn := firstEnv(c.DatabaseURL, "DATABASE_URL_MIGRATOR")
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return usageError{fmt.Sprintf("--database-url / JOBQ_OWNER_DATABASE_URL: %v", err)}
	}
	cfg.RuntimeParams["application_name"] = "jobq compact"
	for {
		err := c.round(e, cfg)
		if c.Every == 0 || errors.Is(err, errNotOwner) {
			return err
		}
		if err != nil {
			fmt.Fprintf(e.stderr, "jobq compact: %v\n", err)
		}
		select {
		case <-e.ctx.Done():
			return nil
		case <-time.After(c.Every):
		}
	}
}

// errNotOwner is a refused statement: the login is not the tables' owner, which another round
// will not change.
var errNotOwner = errors.New("jobq compact must run as the owner of jobq's tables (jobq_migrator: --database-url or JOBQ_OWNER_DATABASE_URL)")

// round connects, reads the advice, runs each statement and prints what it did.
func (c *compactCmd) round(e *env, cfg *pgx.ConnConfig) error {
	ctx := e.ctx
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("connect: %w", explain(err))
	}
	defer conn.Close(context.WithoutCancel(ctx))
	rows, err := conn.Query(ctx, `SELECT table_name, total_bytes, index_bytes, live_rows, action, statement, reason
		FROM jobq.upkeep_advice($1, $2, make_interval(secs => $3))`, c.MinSizeMB<<20, c.MaxRows, c.HeldAfter.Seconds())
	if err != nil {
		return explain(err)
	}
	advice, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (compactRow, error) {
		var a compactRow
		err := r.Scan(&a.Table, &a.TotalBytes, &a.IndexBytes, &a.LiveRows, &a.Action, &a.Statement, &a.Reason)
		return a, err
	})
	if err != nil {
		return explain(err)
	}
	var done []compactRow
	for _, a := range advice {
		if a.Action == "none" {
			continue
		}
		switch {
		case a.Statement == nil:
			a.Result = "waiting"
		case c.DryRun:
			a.Result = "dry run"
		default:
			if err := c.execute(ctx, conn, &a); err != nil {
				return err
			}
		}
		done = append(done, a)
	}
	if c.JSON {
		if done == nil {
			done = []compactRow{}
		}
		return writeJSON(e.stdout, done)
	}
	if len(done) == 0 {
		fmt.Fprintf(e.stdout, "%s nothing to do: %d tables within bounds\n", time.Now().UTC().Format(time.RFC3339), len(advice))
		return nil
	}
	table := make([][]string, 0, len(done))
	for _, a := range done {
		size := mib(a.TotalBytes)
		if a.BytesAfter != nil {
			size += " -> " + mib(*a.BytesAfter)
		}
		live := "-"
		if a.LiveRows != nil {
			live = strconv.FormatInt(*a.LiveRows, 10)
		}
		took := "-"
		if a.DurationSec != nil {
			took = strconv.FormatInt(int64(*a.DurationSec*1000), 10) + "ms"
		}
		table = append(table, []string{a.Table, a.Action, size, live, a.Result, took, orDash(a.Reason)})
	}
	return writeTable(e.stdout, []string{"TABLE", "ACTION", "SIZE", "LIVE ROWS", "RESULT", "TOOK", "WHY"}, table)
}

// execute runs one advised statement outside a transaction (the simple protocol: VACUUM and the
// CONCURRENTLY commands refuse a transaction block) under the lock timeout, and records the result.
// A statement given up on a lock or on the rewrite timeout is a result for the next round, not an
// error; a refused privilege is errNotOwner.
func (c *compactCmd) execute(ctx context.Context, conn *pgx.Conn, a *compactRow) error {
	settings := fmt.Sprintf("SET lock_timeout = %d; SET statement_timeout = 0", c.LockTimeout.Milliseconds())
	if a.Action == "rewrite" {
		settings = fmt.Sprintf("SET lock_timeout = %d; SET statement_timeout = %d", c.LockTimeout.Milliseconds(), c.RewriteTimeout.Milliseconds())
	}
	// VACUUM by another role only warns and skips the table, so ownership is checked first.
	var owner bool
	if err := conn.QueryRow(ctx, "SELECT pg_has_role(c.relowner, 'USAGE') FROM pg_class c WHERE c.oid = $1::regclass", a.Table).Scan(&owner); err != nil {
		return explain(err)
	}
	if !owner {
		return fmt.Errorf("%w: the login %s does not own %s", errNotOwner, conn.Config().User, a.Table)
	}
	if _, err := conn.Exec(ctx, settings, pgx.QueryExecModeSimpleProtocol); err != nil {
		return explain(err)
	}
	start := time.Now()
	_, err := conn.Exec(ctx, *a.Statement, pgx.QueryExecModeSimpleProtocol)
	took := time.Since(start).Seconds()
	a.DurationSec = &took
	var pg *pgconn.PgError
	switch {
	case err == nil:
		a.Result = "done"
	case errors.As(err, &pg) && pg.Code == "55P03":
		a.Result = "given up: the table stayed locked; next round"
	case errors.As(err, &pg) && pg.Code == "57014" && ctx.Err() == nil:
		a.Result = "given up: took longer than --rewrite-timeout; next round"
	case errors.As(err, &pg) && pg.Code == "42501":
		return fmt.Errorf("%w: %s", errNotOwner, pg.Message)
	default:
		return fmt.Errorf("%s: %w", *a.Statement, explain(err))
	}
	var after int64
	if err := conn.QueryRow(ctx, "SELECT pg_total_relation_size($1::regclass)", a.Table).Scan(&after); err != nil {
		return explain(err)
	}
	a.BytesAfter = &after
	return nil
}

// mib is a size in MiB with one decimal.
func mib(b int64) string {
	return strconv.FormatFloat(float64(b)/(1<<20), 'f', 1, 64) + " MiB"
}
