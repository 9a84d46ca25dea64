package docs_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq/internal/dbtest"
	"github.com/jobqdev/jobq/internal/localpg"
	"github.com/jobqdev/jobq/migrate"
)

// The pages this test reads: the README (in the repository root) and every page of docs/. The
// test runs in docs/, so the README is one folder up.
func pages(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob("*.md")
	require.NoError(t, err)
	require.NotEmpty(t, docs)
	sort.Strings(docs)
	return append([]string{"../README.md"}, docs...)
}

// block is one fenced code block of a page.
type block struct {
	page  string
	line  int    // of the opening fence, 1-based
	lang  string // the first word of the info string: sql, sh, go, text, ...
	attrs map[string]string
	body  string
}

func (b block) String() string { return fmt.Sprintf("%s:%d (```%s)", b.page, b.line, b.lang) }

var (
	fenceRE = regexp.MustCompile("^( *)```(.*)$")
	attrRE  = regexp.MustCompile(`([a-z-]+)(?:=("[^"]*"|\S+))?`)
)

// readBlocks returns the fenced blocks of a page in order. A fence may be indented (inside a list
// item): the block's lines lose that indentation. The info string is a language, then attributes
// (name=value, or name="a value").
func readBlocks(t *testing.T, page string) []block {
	t.Helper()
	f, err := os.Open(page)
	require.NoError(t, err)
	defer f.Close()
	var (
		out    []block
		cur    *block
		indent string
		lines  []string
	)
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		m := fenceRE.FindStringSubmatch(line)
		if cur == nil {
			if m == nil {
				continue
			}
			info := strings.Fields(m[2])
			cur = &block{page: filepath.Base(page), line: n, attrs: map[string]string{}}
			if len(info) > 0 {
				cur.lang = info[0]
				for _, a := range attrRE.FindAllStringSubmatch(strings.Join(info[1:], " "), -1) {
					cur.attrs[a[1]] = strings.Trim(a[2], `"`)
				}
			}
			indent, lines = m[1], nil
			continue
		}
		if m != nil && m[1] == indent && strings.TrimSpace(m[2]) == "" {
			cur.body = strings.Join(lines, "\n") + "\n"
			out = append(out, *cur)
			cur = nil
			continue
		}
		lines = append(lines, strings.TrimPrefix(line, indent))
	}
	require.NoError(t, sc.Err())
	require.Nil(t, cur, "%s: a code block opened at line %d is never closed", page, func() int {
		if cur != nil {
			return cur.line
		}
		return 0
	}())
	return out
}

// The languages a page may use. sql, sh/bash, python, js and ts blocks are run (ts after tsc
// --strict type-checked and compiled it); go blocks are built; text and unmarked blocks are output.
var knownLangs = map[string]bool{"sql": true, "sh": true, "bash": true, "go": true, "text": true, "": true, "python": true, "js": true, "ts": true, "toml": true}

// requireReason fails unless a no-run (or no-build) annotation gives its reason.
func requireReason(t *testing.T, b block, attr string) bool {
	t.Helper()
	v, ok := b.attrs[attr]
	if !ok {
		return false
	}
	require.NotEmpty(t, b.attrs["reason"], "%s: %s needs reason=\"why it cannot run here\"", b, attr)
	require.Empty(t, v, "%s: %s takes no value; give the reason as reason=\"...\"", b, attr)
	return true
}

// docsCluster is a private cluster for the snippets: they create login roles (cluster-wide), so
// they do not run on the sandbox that the other tests share. Its database "template" is
// bootstrapped and migrated once; every page gets its own copy.
type docsCluster struct {
	c       *localpg.Cluster
	mu      sync.Mutex
	counter int
}

func startDocsCluster(t *testing.T) *docsCluster {
	t.Helper()
	c := dbtest.StartCluster(t)
	dbtest.CreateDatabase(t, c, "template_docs")
	ctx := dbtest.Ctx(t)
	conn := dbtest.Connect(t, c.URL("postgres", "template_docs"))
	require.NoError(t, migrate.Bootstrap(ctx, conn, migrate.BootstrapOptions{}))
	require.NoError(t, conn.Close(ctx))
	m, err := migrate.Open(ctx, c.URL("jobq_migrator", "template_docs"))
	require.NoError(t, err)
	_, err = m.Up(ctx)
	require.NoError(t, err)
	require.NoError(t, m.Close())
	return &docsCluster{c: c}
}

// emptyDatabaseMark on a page gives it a database without the jobq schema: its own blocks
// install jobq, as a reader would.
const emptyDatabaseMark = "<!-- docs-test: empty database -->"

// newDatabase clones the migrated template into a fresh database and returns its name; with empty,
// the database is a new one where jobq is not installed (the cluster's roles exist).
func (d *docsCluster) newDatabase(t *testing.T, empty bool) string {
	t.Helper()
	d.mu.Lock() // one clone at a time: CREATE DATABASE needs the template alone
	defer d.mu.Unlock()
	d.counter++
	name := fmt.Sprintf("docs_%d", d.counter)
	conn := dbtest.Connect(t, d.c.URL("postgres", "postgres"))
	create := "CREATE DATABASE " + name + " TEMPLATE template_docs"
	if empty {
		create = "CREATE DATABASE " + name
	}
	_, err := conn.Exec(dbtest.Ctx(t), create)
	require.NoError(t, err)
	require.NoError(t, conn.Close(context.Background()))
	if empty {
		return name
	}
	// A clone does not inherit the database-level grants of bootstrap: apply bootstrap again.
	conn = dbtest.Connect(t, d.c.URL("postgres", name))
	require.NoError(t, migrate.Bootstrap(dbtest.Ctx(t), conn, migrate.BootstrapOptions{}))
	require.NoError(t, conn.Close(context.Background()))
	return name
}

// buildJobq builds cmd/jobq into a folder of the test's that the shell snippets find on PATH.
func buildJobq(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	out, err := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", filepath.Join(dir, "jobq"), "../cmd/jobq").CombinedOutput()
	require.NoError(t, err, "go build ./cmd/jobq:\n%s", out)
	return dir
}

// pageChecks are facts that hold after a page's blocks ran: they prove the blocks did what the
// page says, not merely that they raised no error.
var pageChecks = map[string][]struct{ query, want string }{
	"README.md": {
		// One job from the sql block, one from the python block, one from the js block.
		{`SELECT string_agg(job_key || '/' || (payload ->> 'userId'), ' ' ORDER BY job_key) FROM jobq.jobs WHERE task = 'send-welcome-email'`,
			"welcome:42/42 welcome:43/43 welcome:44/44"},
	},
	"clients.md": {
		{`SELECT count(*)::text FROM jobq.jobs WHERE store_id = '5b0c1a7e-0000-4000-8000-000000000001'`, "4"},
	},
	"sql-api.md": {
		{`SELECT (count(*) > 0)::text FROM jobq.job_history`, "true"},
	},
	"operations.md": {
		{`SELECT count(*)::text FROM jobq.audit_log WHERE action = 'leader_changed'`, "1"},
		{`SELECT count(*)::text FROM jobq.workers WHERE state = 'detached'`, "1"},
	},
	"scheduling.md": {
		{`SELECT count(*)::text FROM jobq.tasks WHERE name = 'send-daily-digest'`, "1"},
		{`SELECT count(*)::text FROM jobq.schedules`, "0"}, // declared, paused, then removed
	},
	"wake-up.md": {
		{`SELECT value FROM jobq.settings WHERE name = 'wakeup'`, "wal"},
	},
	"limits.md": {
		{`SELECT count(*)::text FROM jobq.jobs`, "0"}, // the refused enqueue wrote nothing
	},
	"tenancy-and-security.md": {
		{`SELECT count(*)::text FROM jobq.jobs WHERE task = 'expire-tentative-for-store'`, "2"},
	},
}

// TestDocSnippetsRun runs every ```sql, ```sh, ```python and ```js block of README.md and docs/*.md, in order, each
// page in its own fresh migrated database (or, for a page marked with emptyDatabaseMark, a database
// where jobq is not installed yet: its blocks install it). A sql block runs as the superuser postgres in one
// session per page (simple protocol, like psql: every statement must succeed), or as another
// login with as=<login>. A block marked expect-error=<SQLSTATE> must fail with that SQLSTATE. A
// block marked no-run must say why (reason="..."); every other sh block runs with bash -e, with
// jobq on PATH and JOBQ_BOOTSTRAP_DATABASE_URL, JOBQ_MIGRATE_DATABASE_URL, JOBQ_WORKER_DATABASE_URL
// (and their old names DATABASE_URL_ADMIN, DATABASE_URL_MIGRATOR, WORKER_DATABASE_URL) and PG* set to
// the page's database. A python block runs with /usr/bin/python3 (Debian's psycopg 3, and
// clients/python on PYTHONPATH), a js block as an ES module with node (pg and postgres from
// clients/typescript's node_modules, and the typed client as @jobq/client), a ts block the same
// after tsc --strict compiled it (a type error fails it), each with
// DATABASE_URL naming the page's database as the block's login (as=, default postgres). A
// missing python3, psycopg, node or npm package fails the test: it never skips a snippet.
func TestDocSnippetsRun(t *testing.T) {
	t.Parallel()
	cluster := startDocsCluster(t)
	binDir := buildJobq(t)
	repo, err := filepath.Abs("..")
	require.NoError(t, err)
	jsDir := t.TempDir()
	nodeModules := sync.OnceValues(func() (string, error) { return jsFolder(repo, jsDir) })

	for _, page := range pages(t) {
		t.Run(strings.TrimSuffix(filepath.Base(page), ".md"), func(t *testing.T) {
			blocks := readBlocks(t, page)
			text, err := os.ReadFile(page)
			require.NoError(t, err)
			empty := strings.Contains(string(text), emptyDatabaseMark)
			db := cluster.newDatabase(t, empty)
			if empty {
				var installed bool
				require.NoError(t, connAsNew(t, cluster, db).QueryRow(dbtest.Ctx(t),
					`SELECT EXISTS (SELECT FROM pg_namespace WHERE nspname = 'jobq')`).Scan(&installed))
				require.False(t, installed, "%s: an empty database has no jobq schema", page)
			}
			ctx := dbtest.Ctx(t)
			conns := map[string]*pgx.Conn{}
			connAs := func(login string) *pgx.Conn {
				if c, ok := conns[login]; ok {
					return c
				}
				c := dbtest.Connect(t, cluster.c.URL(login, db))
				conns[login] = c
				return c
			}
			workDir := shellWorkDir(t, repo)
			ran := 0
			for _, b := range blocks {
				require.True(t, knownLangs[b.lang], "%s: unknown language %q (a snippet is sql, sh, python, js or ts; output is text)", b, b.lang)
				switch b.lang {
				case "sql":
					if requireReason(t, b, "no-run") {
						continue
					}
					login := b.attrs["as"]
					if login == "" {
						login = "postgres"
					}
					err := connAs(login).PgConn().Exec(ctx, b.body).Close()
					if want, ok := b.attrs["expect-error"]; ok {
						var pgErr *pgconn.PgError
						require.True(t, errors.As(err, &pgErr), "%s should fail with SQLSTATE %s, got %v:\n%s", b, want, err, b.body)
						require.Equal(t, want, pgErr.Code, "%s fails with another SQLSTATE: %v", b, err)
					} else {
						require.NoError(t, err, "%s failed:\n%s", b, b.body)
					}
					ran++
				case "sh", "bash":
					if requireReason(t, b, "no-run") {
						continue
					}
					runShell(t, b, workDir, binDir, cluster.c, db)
					ran++
				case "python", "js", "ts":
					if requireReason(t, b, "no-run") {
						continue
					}
					login := b.attrs["as"]
					if login == "" {
						login = "postgres"
					}
					runClientSnippet(t, b, repo, cluster.c.URL(login, db), nodeModules)
					ran++
				}
			}
			t.Logf("%s: %d blocks, %d snippets run", page, len(blocks), ran)
			for _, c := range pageChecks[filepath.Base(page)] {
				var got string
				require.NoError(t, connAs("postgres").QueryRow(ctx, c.query).Scan(&got))
				require.Equal(t, c.want, got, "%s after its snippets: %s", page, c.query)
			}
		})
	}
	// Every page named in pageChecks exists: a renamed page does not silently lose its checks.
	names := map[string]bool{}
	for _, p := range pages(t) {
		names[filepath.Base(p)] = true
	}
	for p := range pageChecks {
		require.True(t, names[p], "pageChecks names %s, which is not a page", p)
	}
}

func connAsNew(t *testing.T, d *docsCluster, db string) *pgx.Conn {
	t.Helper()
	return dbtest.Connect(t, d.c.URL("postgres", db))
}

// shellWorkDir is the folder the shell snippets run in: links to the repository's top-level
// entries (so bootstrap/ and pgtap/ resolve), in a temporary folder (so what a snippet writes
// does not land in the repository).
func shellWorkDir(t *testing.T, repo string) string {
	t.Helper()
	dir := t.TempDir()
	entries, err := os.ReadDir(repo)
	require.NoError(t, err)
	for _, e := range entries {
		require.NoError(t, os.Symlink(filepath.Join(repo, e.Name()), filepath.Join(dir, e.Name())))
	}
	return dir
}

func runShell(t *testing.T, b block, dir, binDir string, c *localpg.Cluster, db string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-e", "-o", "pipefail", "-c", b.body)
	cmd.Dir = dir
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "PG") || strings.HasPrefix(name, "DATABASE_URL") || strings.HasPrefix(name, "WORKER_") || strings.HasPrefix(name, "JOBQ_WORKER_") ||
			name == "JOBQ_BOOTSTRAP_DATABASE_URL" || name == "JOBQ_MIGRATE_DATABASE_URL" || name == "PATH" {
			continue
		}
		env = append(env, kv)
	}
	host, port := hostPort(t, c.URL("postgres", db))
	cmd.Env = append(env,
		"PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"),
		"JOBQ_BOOTSTRAP_DATABASE_URL="+c.URL("postgres", db),
		"JOBQ_MIGRATE_DATABASE_URL="+c.URL("jobq_migrator", db),
		"JOBQ_WORKER_DATABASE_URL="+c.URL("worker_runtime", db),
		// The old names, as jobq sandbox exports them this release.
		"DATABASE_URL_ADMIN="+c.URL("postgres", db),
		"DATABASE_URL_MIGRATOR="+c.URL("jobq_migrator", db),
		"WORKER_DATABASE_URL="+c.URL("worker_runtime", db),
		"PGHOST="+host, "PGPORT="+port, "PGUSER=postgres", "PGDATABASE="+db,
	)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s failed:\n%s\noutput:\n%s", b, b.body, out)
}

// pythonPath is Debian's Python 3, where apt-get install python3-psycopg puts psycopg (a python3
// on PATH may be another one, such as a pyenv shim).
const pythonPath = "/usr/bin/python3"

// jsFolder makes dir a folder whose node_modules holds clients/typescript's packages (pg, postgres)
// and the typed client built as @jobq/client, so that a js snippet written there imports them by
// name.
func jsFolder(repo, dir string) (string, error) {
	if _, err := exec.LookPath("node"); err != nil {
		return "", fmt.Errorf("node is missing: the docs' js blocks run with Node.js 20 or later (%v)", err)
	}
	src := filepath.Join(repo, "clients", "typescript")
	if _, err := os.Stat(filepath.Join(src, "node_modules", "pg")); err != nil {
		return "", fmt.Errorf("clients/typescript/node_modules has no pg: run npm ci in clients/typescript (clients/test.sh does) (%v)", err)
	}
	mods := filepath.Join(dir, "node_modules")
	entries, err := os.ReadDir(filepath.Join(src, "node_modules"))
	if err != nil {
		return "", err
	}
	for _, e := range entries {
		if err := os.MkdirAll(mods, 0o755); err != nil {
			return "", err
		}
		if err := os.Symlink(filepath.Join(src, "node_modules", e.Name()), filepath.Join(mods, e.Name())); err != nil {
			return "", err
		}
	}
	client := filepath.Join(mods, "@jobq", "client")
	if err := os.MkdirAll(client, 0o755); err != nil {
		return "", err
	}
	pkg, err := os.ReadFile(filepath.Join(src, "package.json"))
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(client, "package.json"), pkg, 0o644); err != nil {
		return "", err
	}
	out, err := exec.Command("node", filepath.Join(src, "node_modules", "typescript", "bin", "tsc"),
		"-p", filepath.Join(src, "tsconfig.json"), "--outDir", filepath.Join(client, "dist")).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("building the typed client: %v\n%s", err, out)
	}
	return dir, nil
}

// runClientSnippet runs a python or js block with DATABASE_URL set to url; js blocks run in the
// folder nodeModules prepares.
func runClientSnippet(t *testing.T, b block, repo, url string, nodeModules func() (string, error)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var cmd *exec.Cmd
	switch b.lang {
	case "python":
		out, err := exec.Command(pythonPath, "-c", "import psycopg").CombinedOutput()
		require.NoError(t, err, "%s: the docs' python blocks need %s with psycopg 3 (apt-get install python3-psycopg):\n%s", b, pythonPath, out)
		cmd = exec.CommandContext(ctx, pythonPath, "-")
		cmd.Stdin = strings.NewReader(b.body)
		cmd.Env = append(os.Environ(), "PYTHONPATH="+filepath.Join(repo, "clients", "python"))
	case "js", "ts":
		dir, err := nodeModules()
		require.NoError(t, err, "%s", b)
		ext := map[string]string{"js": ".mjs", "ts": ".mts"}[b.lang]
		file, err := os.CreateTemp(dir, "snippet-*"+ext)
		require.NoError(t, err)
		t.Cleanup(func() { os.Remove(file.Name()) })
		_, err = file.WriteString(b.body)
		require.NoError(t, errors.Join(err, file.Close()))
		script := file.Name()
		if b.lang == "ts" {
			tsc := filepath.Join(repo, "clients", "typescript", "node_modules", "typescript", "bin", "tsc")
			out, err := exec.CommandContext(ctx, "node", tsc, "--strict", "--target", "ES2022", "--module", "NodeNext",
				"--moduleResolution", "NodeNext", "--skipLibCheck", "--pretty", "false", script).CombinedOutput()
			require.NoError(t, err, "%s does not compile:\n%s", b, out)
			script = strings.TrimSuffix(script, ".mts") + ".mjs"
			t.Cleanup(func() { os.Remove(script) })
		}
		cmd = exec.CommandContext(ctx, "node", script)
		cmd.Dir = dir
		cmd.Env = os.Environ()
	}
	cmd.Env = append(cmd.Env, "DATABASE_URL="+url)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s failed:\n%s\noutput:\n%s", b, b.body, out)
}

func hostPort(t *testing.T, url string) (string, string) {
	t.Helper()
	cfg, err := pgx.ParseConfig(url)
	require.NoError(t, err)
	return cfg.Host, fmt.Sprint(cfg.Port)
}

// TestDocGoExamplesBuild builds every ```go block that is a whole program (package main) as a
// program of this module: the docs' code must compile against the API as it is. A fragment must
// be marked no-build with a reason.
func TestDocGoExamplesBuild(t *testing.T) {
	t.Parallel()
	built := 0
	for _, page := range pages(t) {
		for _, b := range readBlocks(t, page) {
			if b.lang != "go" {
				continue
			}
			if requireReason(t, b, "no-build") {
				continue
			}
			require.True(t, strings.HasPrefix(b.body, "package main\n"), "%s: a Go example is a whole program (package main), or is marked no-build with a reason", b)
			built++
			t.Run(fmt.Sprintf("%s:%d", strings.TrimSuffix(b.page, ".md"), b.line), func(t *testing.T) {
				t.Parallel()
				dir, err := os.MkdirTemp(".", "_example") // "_": ./... patterns skip it
				require.NoError(t, err)
				t.Cleanup(func() { os.RemoveAll(dir) })
				require.NoError(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte(b.body), 0o644))
				cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", os.DevNull, "./"+filepath.Base(dir))
				out, err := cmd.CombinedOutput()
				require.NoError(t, err, "%s does not build:\n%s", b, out)
			})
		}
	}
	require.GreaterOrEqual(t, built, 2, "the Go runner and Scheduling pages hold whole Go programs")
}

// TestErrorTableMatchesCatalogue keeps the error table of docs/limits.md equal to
// jobq.error_codes.
func TestErrorTableMatchesCatalogue(t *testing.T) {
	t.Parallel()
	body, err := os.ReadFile("limits.md")
	require.NoError(t, err)
	table := regexp.MustCompile(`(?s)<!-- error-table:start -->\n(.*?)<!-- error-table:end -->`).FindStringSubmatch(string(body))
	require.NotNil(t, table, "docs/limits.md needs the error-table markers")

	db := dbtest.New(t)
	rows, err := db.Pool(t, "postgres", 1).Query(context.Background(),
		`SELECT code, sqlstate, meaning FROM jobq.error_codes ORDER BY sqlstate`)
	require.NoError(t, err)
	want := "| code | SQLSTATE | meaning |\n|---|---|---|\n"
	for rows.Next() {
		var code, state, meaning string
		require.NoError(t, rows.Scan(&code, &state, &meaning))
		want += fmt.Sprintf("| `%s` | `%s` | %s |\n", code, state, meaning)
	}
	require.NoError(t, rows.Err())
	require.Equal(t, want, table[1], "the error table of docs/limits.md differs from jobq.error_codes; regenerate it from the catalogue")
}

var (
	linkRE    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	headingRE = regexp.MustCompile(`^#{1,6} +(.+?) *#*$`)
)

// anchor is GitHub's anchor of a heading: lowercase, punctuation but - and _ dropped, spaces to -.
func anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127 && r != '…' && r != '—':
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors lists the anchors of a page's headings (outside code blocks).
func anchors(t *testing.T, page string) map[string]bool {
	t.Helper()
	body, err := os.ReadFile(page)
	require.NoError(t, err)
	out := map[string]bool{}
	inCode := false
	for _, line := range strings.Split(string(body), "\n") {
		if fenceRE.MatchString(line) {
			inCode = !inCode
			continue
		}
		if m := headingRE.FindStringSubmatch(line); m != nil && !inCode {
			a := anchor(m[1])
			for n := 1; out[a]; n++ { // GitHub numbers repeated headings
				a = fmt.Sprintf("%s-%d", anchor(m[1]), n)
			}
			out[a] = true
		}
	}
	return out
}

// TestDocLinksResolve checks every relative link of README.md, docs/*.md, ARCHITECTURE.md and
// BENCHMARKS.md (whose targets table links the profiles in docs/benchmarks.md): the file exists
// and, when the link names an #anchor of a Markdown page, that page has the heading.
func TestDocLinksResolve(t *testing.T) {
	t.Parallel()
	checked := 0
	for _, page := range append(pages(t), "../BENCHMARKS.md", "../ARCHITECTURE.md") {
		body, err := os.ReadFile(page)
		require.NoError(t, err)
		for _, m := range linkRE.FindAllStringSubmatch(string(body), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, frag, _ := strings.Cut(target, "#")
			path := page
			if file != "" {
				path = filepath.Join(filepath.Dir(page), file)
			}
			checked++
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s links to %s, which does not exist", page, target)
				continue
			}
			if frag != "" && (!strings.HasSuffix(path, ".md") || !anchors(t, path)[frag]) {
				t.Errorf("%s links to %s: %s has no heading with anchor #%s", page, target, path, frag)
			}
		}
	}
	require.Positive(t, checked)
}

// TestReadmeIsAFrontDoor keeps README.md short: the details live in docs/.
func TestReadmeIsAFrontDoor(t *testing.T) {
	t.Parallel()
	body, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	lines := strings.Count(string(body), "\n")
	require.LessOrEqual(t, lines, 200, "README.md has %d lines; move details to a page of docs/", lines)
}
