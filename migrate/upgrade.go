package migrate

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pressly/goose/v3"

	"github.com/jobqdev/jobq"
	jobqsql "github.com/jobqdev/jobq/sql"
)

// Source is what a Migrator installs: the goose migrations and the function files, each at the
// root of its file system (as package sql embeds them).
type Source struct {
	Migrations fs.FS
	Functions  fs.FS
}

// Embedded is the source this binary embeds.
func Embedded() Source {
	return Source{Migrations: jobqsql.Migrations, Functions: jobqsql.Functions}
}

// Options tune a Migrator. The zero value is what `jobq migrate` uses.
type Options struct {
	// Source replaces the embedded migrations and function files (nil: Embedded()). Tests use it
	// to install the sql/ of an earlier release.
	Source *Source
	// RequiredRoles replaces RequiredRoles in the bootstrap check (nil: RequiredRoles): the roles
	// of an earlier release's bootstrap, for tests that install that release.
	RequiredRoles []string
	// LockTimeout bounds each attempt of Up to take the locks of the jobq tables: zero means half
	// of the server's deadlock_timeout, and any value is capped there, so that in a lock cycle
	// with a live call the upgrade always gives up first (see lockStep).
	LockTimeout time.Duration
	// LockWait is how long Up goes on retrying, with backoff, when the locks are not granted
	// within LockTimeout (zero: DefaultLockWait). Past it Up fails with ErrLocksBusy, naming who
	// holds them, and has changed nothing.
	LockWait time.Duration
	// Logf, when set, is told of each attempt that gave way (for the CLI's stderr).
	Logf func(format string, args ...any)
}

// ErrLocksBusy is returned by Up when the locks of the jobq tables could not be taken within
// Options.LockWait: a long transaction holds one of them. Up changed nothing; run it again once
// that transaction ends (the error names its process).
var ErrLocksBusy = errors.New("the jobq tables stayed busy: the upgrade could not take their locks")

// lockOrder is the engine's order of the jobq tables, which Up locks in this order before any DDL.
// The three tables that claims, completions and failures write are locked as the engine locks
// them: jobs, then job_history, then job_attempts (complete_jobs: jobs -> job_history; fail_jobs,
// jobq._rescue, jobq._maintain: jobs -> job_history -> job_attempts; prune_history: job_history ->
// job_attempts). The small tables the hot paths read before jobs come first, in their order: the
// claim reads workers, then queues (jobq._claim); the enqueue tasks, then settings (jobq.enqueue,
// enqueue_many); a queue's setters queues, then tasks (jobq._lock_queue_row). Those written after
// jobs come between or after the three. No one order is every path's order (detach_worker reads
// settings before leader, jobq._maintain leader before workers; queue_states reads queues after
// jobs; _rescue reads continuations before jobs), so the order alone cannot exclude a cycle with a
// live call: the bound of lockStep does (see there), and the order makes the cycles, and so the
// retries, rare. Tables not listed (a later release's) are locked after these, in name order.
var lockOrder = []string{
	"goose_db_version", "function_files", "breaking_changes", "error_codes",
	"workers", "queues", "tasks", "settings", "leader", "claim_cursors", "schedule_runs",
	"jobs", "claim_starts", "job_history", "continuations", "audit_log", "job_attempts",
	"schedules", "store_bindings",
}

// step is one statement group of the upgrade's transaction: what it is (for errors and the
// dry-run's comments) and its SQL, sent as one simple-protocol batch.
type step struct {
	what string
	sql  string
	// version is the migration the step applies (0: not a migration).
	version int64
}

// upgrade is what Up applies: the plan, computed under the migration lock, before the transaction.
type upgrade struct {
	migrations []*goose.Source
	upSQL      map[int64]string
	files      []FunctionFile
	allFiles   []FunctionFile
	tables     []string // qualified, in lockOrder
	bound      time.Duration
}

func (u *upgrade) empty() bool { return len(u.migrations) == 0 && len(u.files) == 0 }

// lockStep takes the locks of every existing jobq table, in lockOrder, ACCESS EXCLUSIVE, before
// any DDL: every DDL statement of the upgrade then finds its table already locked and waits for no
// one, so the upgrade cannot deadlock with a live call after this point (and a claim or a
// completion waits, never fails). The statement as a whole is bounded by statement_timeout and each
// wait by lock_timeout, both below deadlock_timeout: a live call that waits for a lock this step
// took started waiting after the step began, so its deadlock check comes due deadlock_timeout
// later, after the bound has already cancelled the step (the upgrade rolls back and retries). And
// the calls queued behind the step's pending lock wait no longer than the bound. lock_timeout
// stays set for the rest of the transaction: an unforeseen wait fails the attempt, not a caller.
func (u *upgrade) lockStep() string {
	ms := u.bound.Milliseconds()
	var b strings.Builder
	fmt.Fprintf(&b, "SET LOCAL lock_timeout = '%dms';\n", ms)
	if len(u.tables) == 0 {
		b.WriteString("-- a new installation: no jobq table to lock yet\n")
		return b.String()
	}
	fmt.Fprintf(&b, "SET LOCAL statement_timeout = '%dms';\n", ms)
	fmt.Fprintf(&b, "LOCK TABLE %s IN ACCESS EXCLUSIVE MODE;\n", strings.Join(u.tables, ", "))
	b.WriteString("RESET statement_timeout;\n")
	return b.String()
}

const lockStepWhat = "the locks of the jobq tables, in the engine's order, bounded below deadlock_timeout"

// steps lists the transaction, BEGIN to COMMIT: exactly what `migrate up --dry-run` prints.
func (u *upgrade) steps() []step {
	st := []step{
		{what: "one transaction", sql: "BEGIN;"},
		{what: "the installers' lock; the schema and the version table when missing", sql: installPreamble},
		{what: lockStepWhat, sql: u.lockStep()},
	}
	for _, s := range u.migrations {
		st = append(st, step{
			what:    fmt.Sprintf("jobq migration %d (%s)", s.Version, s.Path),
			sql:     u.upSQL[s.Version] + fmt.Sprintf("INSERT INTO %s (version_id, is_applied) VALUES (%d, true);\n", VersionTable, s.Version),
			version: s.Version,
		})
	}
	if len(u.files) > 0 {
		st = append(st, step{what: "jobq function files (sql/functions/), after the migrations", sql: functionsPrologue})
		for _, f := range u.files {
			st = append(st, step{what: "jobq function file " + f.Name, sql: f.Body + "\n" + recordFunction(f)})
		}
		st = append(st, step{what: "forget the records of function files this release no longer has", sql: forgetRemovedFunctions(u.allFiles)})
	}
	return append(st, step{what: "the end of the transaction", sql: "COMMIT;"})
}

// plan reads what is pending (under the migration lock when Up calls it) and the tables to lock.
// It changes nothing.
func (m *Migrator) plan(ctx context.Context, q querier) (*upgrade, error) {
	u := &upgrade{upSQL: map[int64]string{}}
	var installed bool
	if err := q.QueryRowContext(ctx, `SELECT pg_catalog.to_regclass('jobq.goose_db_version') IS NOT NULL`).Scan(&installed); err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}
	applied := map[int64]bool{}
	var newest int64
	if installed {
		// goose's rule: a version is applied when its newest row says so.
		rows, err := q.QueryContext(ctx, `SELECT DISTINCT ON (v.version_id) v.version_id, v.is_applied
			FROM jobq.goose_db_version v ORDER BY v.version_id, v.id DESC`)
		if err != nil {
			return nil, fmt.Errorf("migrate: read %s: %w", VersionTable, err)
		}
		for rows.Next() {
			var v int64
			var ok bool
			if err := rows.Scan(&v, &ok); err != nil {
				rows.Close()
				return nil, fmt.Errorf("migrate: read %s: %w", VersionTable, err)
			}
			if ok && v > 0 {
				applied[v] = true
				newest = max(newest, v)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("migrate: read %s: %w", VersionTable, err)
		}
	}
	for _, s := range m.provider.ListSources() {
		if applied[s.Version] {
			continue
		}
		if s.Version < newest {
			return nil, fmt.Errorf("migrate: migration %d (%s) is pending below the newest applied one (%d): out of order, refused", s.Version, s.Path, newest)
		}
		body, err := fs.ReadFile(m.src.Migrations, s.Path)
		if err != nil {
			return nil, err
		}
		if strings.Contains(string(body), "-- +goose NO TRANSACTION") {
			return nil, fmt.Errorf("migrate: migration %d (%s) runs outside a transaction (goose NO TRANSACTION): the one-transaction upgrade cannot include it; apply it by hand first", s.Version, s.Path)
		}
		var b strings.Builder
		if err := writeUpSection(&b, string(body)); err != nil {
			return nil, err
		}
		u.migrations = append(u.migrations, s)
		u.upSQL[s.Version] = b.String()
	}
	var err error
	if u.allFiles, err = functionFilesIn(m.src.Functions); err != nil {
		return nil, err
	}
	if u.files, err = pendingFunctions(ctx, q, m.src.Functions, len(u.migrations) > 0); err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}
	rows, err := q.QueryContext(ctx, `SELECT pg_catalog.format('%I.%I', n.nspname, c.relname)
		FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = 'jobq' AND c.relkind IN ('r', 'p', 'v', 'm')
		ORDER BY pg_catalog.array_position($1::text[], c.relname::text) NULLS LAST, c.relname`, lockOrder)
	if err != nil {
		return nil, fmt.Errorf("migrate: list the jobq tables: %w", err)
	}
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			rows.Close()
			return nil, err
		}
		u.tables = append(u.tables, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if u.bound, err = m.lockBound(ctx, q); err != nil {
		return nil, err
	}
	return u, nil
}

// lockBound is Options.LockTimeout (default half of deadlock_timeout), capped at half of the
// server's deadlock_timeout and at least 10 ms.
func (m *Migrator) lockBound(ctx context.Context, q querier) (time.Duration, error) {
	var ms int64
	if err := q.QueryRowContext(ctx, `SELECT s.setting::bigint FROM pg_catalog.pg_settings s WHERE s.name = 'deadlock_timeout'`).Scan(&ms); err != nil {
		return 0, fmt.Errorf("migrate: read deadlock_timeout: %w", err)
	}
	ceiling := time.Duration(ms) * time.Millisecond / 2
	bound := m.opts.LockTimeout
	if bound <= 0 || bound > ceiling {
		bound = ceiling
	}
	return max(bound, 10*time.Millisecond), nil
}

// DefaultLockWait is Options.LockWait's default: 2 minutes.
const DefaultLockWait = 2 * time.Minute

// apply runs the upgrade's transaction on conn, again from the start while an attempt gives way
// to a lock (lock_timeout, the lock step's statement_timeout or a deadlock: the attempt rolled
// back and changed nothing), with exponential backoff and jitter, for at most Options.LockWait.
func (m *Migrator) apply(ctx context.Context, conn *sql.Conn, u *upgrade) ([]*goose.MigrationResult, error) {
	wait := m.opts.LockWait
	if wait <= 0 {
		wait = DefaultLockWait
	}
	deadline := time.Now().Add(wait)
	backoff := 50 * time.Millisecond
	for attempt := 1; ; attempt++ {
		res, err := m.attempt(ctx, conn, u)
		if err == nil {
			return res, nil
		}
		if !gaveWay(err) {
			return nil, err
		}
		if time.Now().Add(backoff).After(deadline) {
			return nil, fmt.Errorf("migrate: %w: %d attempts over %s, each waiting at most %s (half of deadlock_timeout at most); nothing was changed. Still held by: %s. Run jobq migrate up again once these transactions end",
				ErrLocksBusy, attempt, wait, u.bound, m.holders(ctx, u))
		}
		pause := backoff/2 + rand.N(backoff/2+1)
		if m.opts.Logf != nil {
			m.opts.Logf("jobq migrate: attempt %d gave way to live transactions (%v); nothing changed, trying again in %s", attempt, err, pause.Round(time.Millisecond))
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(pause):
		}
		backoff = min(backoff*2, 5*time.Second)
	}
}

// errGaveWay marks an attempt that failed on a lock: lock_timeout (55P03) anywhere, the lock
// step's statement_timeout (57014) or a deadlock (40P01), each of which rolled the attempt back.
// A statement_timeout elsewhere (one the DBA set for the migrator) is a plain failure: trying the
// same long step again would not help.
type errGaveWay struct{ err error }

func (e errGaveWay) Error() string { return e.err.Error() }
func (e errGaveWay) Unwrap() error { return e.err }

func gaveWay(err error) bool {
	var g errGaveWay
	return errors.As(err, &g)
}

func lockFailure(err error, lockStep bool) bool {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return false
	}
	return pgErr.Code == "55P03" || pgErr.Code == "40P01" || (lockStep && pgErr.Code == "57014")
}

// attempt runs the transaction once; on any error it rolls back.
func (m *Migrator) attempt(ctx context.Context, conn *sql.Conn, u *upgrade) (res []*goose.MigrationResult, err error) {
	steps := u.steps()
	defer func() {
		if err != nil {
			_, _ = conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		}
	}()
	for _, st := range steps {
		start := time.Now()
		if _, err := conn.ExecContext(ctx, st.sql); err != nil {
			if ctx.Err() == nil && lockFailure(err, st.what == lockStepWhat) {
				return nil, errGaveWay{err}
			}
			return nil, fmt.Errorf("migrate: %s: %w", st.what, jobq.FromDB(err))
		}
		if st.version != 0 {
			for _, s := range u.migrations {
				if s.Version == st.version {
					res = append(res, &goose.MigrationResult{Source: s, Duration: time.Since(start), Direction: "up"})
				}
			}
		}
	}
	return res, nil
}

// holders names the other sessions holding a lock on a jobq table, for ErrLocksBusy (best
// effort: jobq_migrator is a member of pg_read_all_stats by bootstrap, so it sees their queries).
func (m *Migrator) holders(ctx context.Context, u *upgrade) string {
	rows, err := m.db.QueryContext(ctx, `SELECT pg_catalog.format('pid %s (%s, %s for %s, holding %s on %s%s)',
			a.pid, a.usename, a.state, pg_catalog.date_trunc('second', pg_catalog.now() - a.xact_start),
			l.mode, l.relation::regclass, coalesce(': ' || pg_catalog.left(a.query, 80), ''))
		FROM pg_catalog.pg_locks l JOIN pg_catalog.pg_stat_activity a ON a.pid = l.pid
		WHERE l.granted AND l.locktype = 'relation' AND l.pid <> pg_catalog.pg_backend_pid()
		  AND l.relation::regclass::text = ANY ($1::text[])
		ORDER BY a.xact_start NULLS LAST LIMIT 5`, u.tables)
	if err != nil {
		return "(unknown: " + err.Error() + ")"
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if rows.Scan(&s) == nil {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return "no one now (the load was too dense; try again, or raise --lock-wait)"
	}
	return strings.Join(out, "; ")
}
