package migrate_test

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/dbtest"
	"github.com/jobqdev/jobq/internal/localpg"
	"github.com/jobqdev/jobq/migrate"
)

// earlierSchema is one line of testdata/upgrade-from.txt: a commit whose sql/ and bootstrap/ the
// upgrade test installs, and why it is listed.
type earlierSchema struct{ commit, why string }

func earlierSchemas(t *testing.T) []earlierSchema {
	t.Helper()
	f, err := os.Open("testdata/upgrade-from.txt")
	require.NoError(t, err)
	defer f.Close()
	var out []earlierSchema
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		commit, why, _ := strings.Cut(line, "#")
		out = append(out, earlierSchema{commit: strings.TrimSpace(commit), why: strings.TrimSpace(why)})
	}
	require.NoError(t, sc.Err())
	require.NotEmpty(t, out, "testdata/upgrade-from.txt lists no commit")
	return out
}

// treeAt returns sql/ and bootstrap/ of commit, read from the repository's history with git
// archive (a clone has the history; a shallow one lacks these commits and fails here, saying so).
func treeAt(t *testing.T, commit string) fstest.MapFS {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command("git", "archive", "--format=tar", commit, "sql/migrations", "sql/functions", "bootstrap")
	cmd.Dir = ".."
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("git archive %s (the upgrade test needs the repository's history, not a shallow clone): %v: %s", commit, err, stderr.String())
	}
	tree := fstest.MapFS{}
	tr := tar.NewReader(&stdout)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		if h.Typeflag != tar.TypeReg {
			continue
		}
		body, err := io.ReadAll(tr)
		require.NoError(t, err)
		tree[h.Name] = &fstest.MapFile{Data: body, Mode: 0o644}
	}
	return tree
}

func subFS(t *testing.T, fsys fs.FS, dir string) fs.FS {
	t.Helper()
	s, err := fs.Sub(fsys, dir)
	require.NoError(t, err)
	return s
}

// rolesOfBootstrap lists the roles of migrate.RequiredRoles that a bootstrap/001_roles.sql
// creates (its VALUES list of name and attributes).
func rolesOfBootstrap(roles001 string) []string {
	created := map[string]bool{}
	for _, m := range regexp.MustCompile(`\(\s*'(\w+)',\s*'(?:NO)?LOGIN`).FindAllStringSubmatch(roles001, -1) {
		created[m[1]] = true
	}
	var out []string
	for _, r := range migrate.RequiredRoles {
		if created[r] {
			out = append(out, r)
		}
	}
	return out
}

// liveLoad is an application enqueueing (three connections, and one that connects anew for each
// call) and two runners claiming and completing, each on a connection of its own, all as
// worker_runtime, while the test upgrades the schema under them.
type liveLoad struct {
	url         string
	enqueuers   int
	workers     int
	warm        sync.WaitGroup // each goroutine's first calls, before the upgrade
	settled     sync.WaitGroup // each goroutine's calls after the upgrade
	upgraded    atomic.Bool
	stop        chan struct{}
	mu          sync.Mutex
	failures    []string
	crossed     []string // calls in flight across the upgrade's commit that failed once, then succeeded
	enqueued    []int64
	completed   atomic.Int64
	callsDuring atomic.Int64
	upgrading   atomic.Bool
}

// callsPerPhase is how many calls each goroutine makes before the upgrade starts and after it
// ended (counted, not timed: the upgrade overlaps the load however slow the machine is).
const callsPerPhase = 40

func (l *liveLoad) fail(who string, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	phase := "before the upgrade"
	switch {
	case l.upgraded.Load():
		phase = "after the upgrade"
	case l.upgrading.Load():
		phase = "during the upgrade"
	}
	l.failures = append(l.failures, fmt.Sprintf("%s %s: %v", strings.TrimRight(who, "0123456789 "), phase, err))
}

// crossedCommit tells a failure that the one-transaction upgrade cannot rule out, and which a
// retry mends: the call started before the upgrade committed, inside a function of the old
// release whose values of a composite type were built before a migration changed that type, and
// handed one to a function of the new release after the commit, or (a new session) builds it only
// after the commit, from its old body (220669f's jobq.enqueue builds a jobq.job_spec of 12 fields;
// 00011 adds a 13th). PostgreSQL reports it as XX000 ("attribute number 13 exceeds number of
// columns 12") or 42846 ("cannot cast type record to jobq.job_spec"). A claim in flight across a
// migration that widens jobq.jobs (00024 and 00025 add columns) planned its old body's
// `SELECT * FROM jobq._claim(...)` for the old row type and gets the new one: 42804 ("structure of
// query does not match function result type"). The call wrote nothing (its statement failed) and
// the same call again succeeds: docs/upgrading.md tells applications to retry a call that fails
// so across an upgrade that changes a type, and the runner retries a failed claim.
func (l *liveLoad) crossedCommit(startedBeforeCommit bool, err error) bool {
	var pgErr *pgconn.PgError
	if !startedBeforeCommit || !l.upgrading.Load() || !errors.As(err, &pgErr) {
		return false
	}
	return pgErr.Code == "XX000" || pgErr.Code == "42846" || pgErr.Code == "42804"
}

// summary counts the failures by what failed and its message, for a short report.
func (l *liveLoad) summary() []string {
	counts := map[string]int{}
	var keys []string
	for _, f := range l.failures {
		if counts[f] == 0 {
			keys = append(keys, f)
		}
		counts[f]++
	}
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, fmt.Sprintf("%d x %s", counts[k], k))
	}
	return out
}

// phases counts a goroutine's calls and marks its warm-up and its calls after the upgrade done.
type phases struct {
	l             *liveLoad
	before, after int
}

func (p *phases) called() {
	if p.l.upgrading.Load() && !p.l.upgraded.Load() {
		p.l.callsDuring.Add(1)
	}
	if p.before < callsPerPhase {
		if p.before++; p.before == callsPerPhase {
			p.l.warm.Done()
		}
		return
	}
	if p.l.upgraded.Load() && p.after < callsPerPhase {
		if p.after++; p.after == callsPerPhase {
			p.l.settled.Done()
		}
	}
}

func (l *liveLoad) start(ctx context.Context, t *testing.T) (wait func()) {
	t.Helper()
	l.stop = make(chan struct{})
	var done sync.WaitGroup
	connect := func() *pgx.Conn {
		conn, err := pgx.Connect(ctx, l.url)
		require.NoError(t, err)
		return conn
	}
	l.warm.Add(l.enqueuers + l.workers)
	l.settled.Add(l.enqueuers + l.workers)
	for i := range l.enqueuers {
		conn := connect()
		done.Add(1)
		go func() {
			defer done.Done()
			defer conn.Close(context.WithoutCancel(ctx))
			p := &phases{l: l}
			for n := 0; ; n++ {
				select {
				case <-l.stop:
					return
				default:
				}
				var id int64
				beforeCommit := !l.upgraded.Load()
				enqueue := func() error {
					q := `SELECT jobq.enqueue($1, $2::jsonb)`
					payload := fmt.Sprintf(`{"enqueuer": %d, "n": %d}`, i, n)
					if i == 0 {
						// The first enqueuer opens a connection for every call, as an application
						// whose pool opens new ones: a new session compiles the functions afresh.
						c, err := pgx.Connect(ctx, l.url)
						if err != nil {
							return err
						}
						defer c.Close(context.WithoutCancel(ctx))
						return c.QueryRow(ctx, q, "upgrade-probe", payload).Scan(&id)
					}
					return conn.QueryRow(ctx, q, "upgrade-probe", payload).Scan(&id)
				}
				err := enqueue()
				if err != nil && l.crossedCommit(beforeCommit, err) {
					l.mu.Lock()
					l.crossed = append(l.crossed, fmt.Sprintf("enqueuer %d: %v", i, err))
					l.mu.Unlock()
					err = enqueue()
				}
				if err != nil {
					if ctx.Err() != nil {
						return
					}
					l.fail(fmt.Sprintf("enqueuer %d", i), err)
				} else {
					l.mu.Lock()
					l.enqueued = append(l.enqueued, id)
					l.mu.Unlock()
				}
				p.called()
			}
		}()
	}
	for i := range l.workers {
		conn := connect()
		done.Add(1)
		go func() {
			defer done.Done()
			defer conn.Close(context.WithoutCancel(ctx))
			p := &phases{l: l}
			worker := fmt.Sprintf("upgrade-test-%d", i)
			for {
				stopped := false
				select {
				case <-l.stop:
					stopped = true
				default:
				}
				// Explicit columns, as jobq.Client claims: claim_job returns jobq.jobs rows, which
				// a migration may widen.
				type lease struct {
					id    int64
					token [16]byte
				}
				beforeCommit := !l.upgraded.Load()
				claim := func() ([]lease, error) {
					rows, err := conn.Query(ctx, `SELECT c.id, c.lease_token FROM jobq.claim_job($1, ARRAY['default'], 10) AS c`, worker)
					if err != nil {
						return nil, err
					}
					return pgx.CollectRows(rows, func(r pgx.CollectableRow) (lease, error) {
						var x lease
						return x, r.Scan(&x.id, &x.token)
					})
				}
				leases, err := claim()
				if err != nil && l.crossedCommit(beforeCommit, err) {
					l.mu.Lock()
					l.crossed = append(l.crossed, fmt.Sprintf("worker %d claim: %v", i, err))
					l.mu.Unlock()
					leases, err = claim()
				}
				if err != nil {
					if ctx.Err() != nil {
						return
					}
					l.fail(fmt.Sprintf("worker %d claim", i), err)
					p.called()
					continue
				}
				p.called()
				if len(leases) == 0 && stopped {
					return
				}
				for _, le := range leases {
					if _, err := conn.Exec(ctx, `SELECT jobq.complete_job($1, $2)`, le.id, le.token); err != nil {
						if ctx.Err() != nil {
							return
						}
						l.fail(fmt.Sprintf("worker %d complete", i), err)
					} else {
						l.completed.Add(1)
					}
					p.called()
				}
			}
		}()
	}
	return done.Wait
}

// TestUpgradeUnderLoadFromEachEarlierSchema installs each earlier schema of
// testdata/upgrade-from.txt (its own migrations, function files and bootstrap, by today's migrate
// code) in a database of its own, then upgrades it to the working tree's schema while an
// application enqueues (on three connections, and on a new connection for each call) and two
// runners claim and complete, each on a connection of its own. Every call succeeds (none fails,
// none deadlocks; but the calls in flight across a type change, see crossedCommit), every job
// enqueued ends completed, and the schema equals a fresh installation's. The schemas share one
// cluster, in the file's order: the first one's bootstrap lacks a role of today's, and migrate up
// refuses it, naming the role and the step, and changes nothing, until today's bootstrap runs.
func TestUpgradeUnderLoadFromEachEarlierSchema(t *testing.T) {
	t.Parallel()
	cluster := dbtest.StartCluster(t)
	var fresh string
	freshSchema := func(t *testing.T) string {
		if fresh == "" {
			bootstrapDatabase(t, cluster, "fresh")
			m, err := migrate.Open(testCtx(t), cluster.URL("jobq_migrator", "fresh"))
			require.NoError(t, err)
			defer m.Close()
			_, err = m.Up(testCtx(t))
			require.NoError(t, err)
			fresh = dbtest.DumpSchema(t, cluster.URL("postgres", "fresh"))
		}
		return fresh
	}
	refused := 0
	for _, from := range earlierSchemas(t) {
		t.Run(from.commit, func(t *testing.T) {
			if upgradeUnderLoad(t, cluster, from, freshSchema) {
				refused++
			}
		})
	}
	require.Positive(t, refused, "the first schema's bootstrap lacks a role of today's: migrate up refused it")
}

// upgradeUnderLoad installs from in a database of its own on cluster and upgrades it under load;
// it reports whether migrate up first refused the cluster's bootstrap.
func upgradeUnderLoad(t *testing.T, cluster *localpg.Cluster, from earlierSchema, freshSchema func(*testing.T) string) (refused bool) {
	ctx := testCtx(t)
	tree := treeAt(t, from.commit)
	old := migrate.Source{Migrations: subFS(t, tree, "sql/migrations"), Functions: subFS(t, tree, "sql/functions")}

	name := "from_" + from.commit
	dbtest.CreateDatabase(t, cluster, name)
	adminURL, migratorURL := cluster.URL("postgres", name), cluster.URL("jobq_migrator", name)
	admin := dbtest.Connect(t, adminURL)

	// The earlier release as it was installed: its bootstrap, its migrations and function files.
	oldBootstrap := subFS(t, tree, "bootstrap")
	names, err := fs.Glob(oldBootstrap, "*.sql")
	require.NoError(t, err)
	slices.Sort(names)
	var roles001 string
	for _, n := range names {
		body, err := fs.ReadFile(oldBootstrap, n)
		require.NoError(t, err)
		if n == "001_roles.sql" {
			roles001 = string(body)
		}
		require.NoError(t, admin.PgConn().Exec(ctx, string(body)).Close(), "bootstrap/%s of %s", n, from.commit)
	}
	oldRoles := rolesOfBootstrap(roles001)
	m, err := migrate.OpenWith(ctx, migratorURL, migrate.Options{Source: &old, RequiredRoles: oldRoles})
	require.NoError(t, err)
	_, err = m.Up(ctx)
	require.NoError(t, err, "install %s", from.commit)
	require.NoError(t, m.Close())
	_, err = admin.Exec(ctx, `SELECT jobq.define_task('upgrade-probe')`)
	require.NoError(t, err)

	// Today's migrate up refuses a cluster whose bootstrap lacks a role it grants to, naming the
	// role and the step, and changes nothing.
	missing := dbtest.QueryStrings(t, admin, `SELECT r FROM unnest($1::text[]) AS r
		WHERE NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles p WHERE p.rolname = r) ORDER BY r`, migrate.RequiredRoles)
	if len(missing) > 0 {
		refused = true
		recorded := `SELECT v.version_id || ' ' || v.is_applied FROM jobq.goose_db_version v
			UNION ALL SELECT f.name || ' ' || f.checksum FROM jobq.function_files f ORDER BY 1`
		before := dbtest.QueryStrings(t, admin, recorded)
		_, err := migrate.Open(ctx, migratorURL)
		require.ErrorIs(t, err, jobq.ErrBootstrapMissing)
		for _, r := range missing {
			require.ErrorContains(t, err, "role "+r+" is missing")
		}
		require.ErrorContains(t, err, "run `jobq bootstrap` (bootstrap/001_roles.sql)")
		require.Equal(t, before, dbtest.QueryStrings(t, admin, recorded), "a refused migrate up applies nothing")
	}
	// Today's bootstrap, as docs/upgrading.md says: idempotent, on the live database.
	require.NoError(t, migrate.Bootstrap(ctx, admin, migrate.BootstrapOptions{}))

	load := &liveLoad{url: cluster.URL("worker_runtime", name), enqueuers: 4, workers: 2}
	wait := load.start(ctx, t)
	load.warm.Wait()

	m, err = migrate.OpenWith(ctx, migratorURL, migrate.Options{Logf: t.Logf})
	require.NoError(t, err)
	defer m.Close()
	load.upgrading.Store(true)
	started := time.Now()
	res, upErr := m.Up(ctx)
	took := time.Since(started)
	load.upgraded.Store(true)
	load.settled.Wait()
	close(load.stop)
	wait()

	t.Logf("from %s (%s): %d migrations and %d function files in %s; %d calls during the upgrade, %d jobs enqueued, %d completed, %d failed calls, %d calls in flight across the commit failed once and succeeded again %v",
		from.commit, from.why, len(res), len(m.FunctionsApplied()), took.Round(time.Millisecond), load.callsDuring.Load(),
		len(load.enqueued), load.completed.Load(), len(load.failures), len(load.crossed), load.crossed)
	require.NoError(t, upErr, "migrate up")
	require.Empty(t, load.summary(), "no call of the live load failed")
	require.LessOrEqual(t, len(load.crossed), load.enqueuers+load.workers, "at most the one call in flight of each connection crosses the commit")

	var left int64
	require.NoError(t, admin.QueryRow(ctx, `SELECT count(*) FROM jobq.jobs`).Scan(&left))
	require.Zero(t, left, "every job was claimed and completed")
	var succeeded int64
	require.NoError(t, admin.QueryRow(ctx, `SELECT count(*) FROM jobq.job_history h WHERE h.id = ANY ($1) AND h.state = 'succeeded'`,
		load.enqueued).Scan(&succeeded))
	require.Equal(t, int64(len(load.enqueued)), succeeded, "every job enqueued ended completed")

	_, err = migrate.CheckVersion(ctx, admin)
	require.NoError(t, err)

	// The schema equals a fresh installation's of the same tree (the same check as
	// TestSchemaSnapshot's, which keeps testdata/schema.snapshot.sql equal to that).
	dbtest.RequireSameSchema(t, freshSchema(t), dbtest.DumpSchema(t, adminURL), "upgraded from "+from.commit+" vs a fresh installation")
	return refused
}
