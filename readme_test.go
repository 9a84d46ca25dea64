package jobq_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq/internal/dbtest"
)

// readmeSection returns the text of README.md between the heading "## <title>" and the next
// "## " heading.
func readmeSection(t *testing.T, title string) string {
	t.Helper()
	body, err := os.ReadFile("README.md")
	require.NoError(t, err)
	text := string(body)
	start := strings.Index(text, "\n## "+title+"\n")
	require.NotEqual(t, -1, start, "README has no section %q", title)
	rest := text[start+len(title)+5:]
	if end := strings.Index(rest, "\n## "); end >= 0 {
		rest = rest[:end]
	}
	return rest
}

// TestReadmeSQLExamplesRun runs every ```sql block of the README's "SQL API" section, in order,
// as the superuser of a fresh migrated database: the examples must run as written in psql.
func TestReadmeSQLExamplesRun(t *testing.T) {
	t.Parallel()
	section := readmeSection(t, "SQL API")
	blocks := regexp.MustCompile("(?s)```sql\n(.*?)```").FindAllStringSubmatch(section, -1)
	require.GreaterOrEqual(t, len(blocks), 5, "the SQL API section should hold its examples")

	db := dbtest.New(t)
	pool := db.Pool(t, "postgres", 1)
	ctx := context.Background()
	conn, err := pool.Acquire(ctx)
	require.NoError(t, err)
	defer conn.Release()
	for i, b := range blocks {
		// Simple protocol, like psql: every statement of the block runs, each must succeed.
		err := conn.Conn().PgConn().Exec(ctx, b[1]).Close()
		require.NoError(t, err, "README SQL example %d failed:\n%s", i+1, b[1])
	}
	var history int
	require.NoError(t, conn.QueryRow(ctx, `SELECT count(*) FROM jobq.job_history`).Scan(&history))
	require.Positive(t, history, "the examples should have finished some jobs")
}

// TestReadmeSchedulingExamplesRun runs every ```sql block of the README's "Scheduling" section, in
// order, as the superuser of a fresh migrated database, but the pg_cron one (pg_cron is not
// installed here).
func TestReadmeSchedulingExamplesRun(t *testing.T) {
	t.Parallel()
	section := readmeSection(t, "Scheduling")
	blocks := regexp.MustCompile("(?s)```sql\n(.*?)```").FindAllStringSubmatch(section, -1)
	require.GreaterOrEqual(t, len(blocks), 5, "the Scheduling section should hold its examples")

	db := dbtest.New(t)
	pool := db.Pool(t, "postgres", 1)
	ctx := context.Background()
	conn, err := pool.Acquire(ctx)
	require.NoError(t, err)
	defer conn.Release()
	ran := 0
	for i, b := range blocks {
		if strings.Contains(b[1], "cron.schedule(") {
			continue
		}
		err := conn.Conn().PgConn().Exec(ctx, b[1]).Close()
		require.NoError(t, err, "README Scheduling example %d failed:\n%s", i+1, b[1])
		ran++
	}
	require.Equal(t, len(blocks)-1, ran, "only the pg_cron block is skipped")
	var leaders, detached int
	require.NoError(t, conn.QueryRow(ctx, `SELECT count(*) FROM jobq.audit_log WHERE action = 'leader_changed'`).Scan(&leaders))
	require.NoError(t, conn.QueryRow(ctx, `SELECT count(*) FROM jobq.workers WHERE state = 'detached'`).Scan(&detached))
	require.Equal(t, 1, leaders)
	require.Equal(t, 1, detached)
}

// TestReadmeErrorTableMatchesCatalogue keeps the README's error table equal to jobq.error_codes.
func TestReadmeErrorTableMatchesCatalogue(t *testing.T) {
	t.Parallel()
	body, err := os.ReadFile("README.md")
	require.NoError(t, err)
	table := regexp.MustCompile(`(?s)<!-- error-table:start -->\n(.*?)<!-- error-table:end -->`).FindStringSubmatch(string(body))
	require.NotNil(t, table, "README needs the error-table markers")

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
	require.Equal(t, want, table[1], "README error table differs from jobq.error_codes; regenerate it from the catalogue")
}

// TestReadmeGoExampleBuilds builds the README's Go examples (the Go API section's and the
// Scheduling section's) as programs of this module: the front door's code must compile against
// the API as it is.
func TestReadmeGoExampleBuilds(t *testing.T) {
	t.Parallel()
	for _, title := range []string{"Go API", "Scheduling"} {
		t.Run(strings.ReplaceAll(title, " ", ""), func(t *testing.T) {
			t.Parallel()
			section := readmeSection(t, title)
			block := regexp.MustCompile("(?s)```go\n(.*?)```").FindStringSubmatch(section)
			require.NotNil(t, block, "the %s section should hold a Go example", title)

			dir, err := os.MkdirTemp(".", "_readme") // "_": ./... patterns skip it
			require.NoError(t, err)
			t.Cleanup(func() { os.RemoveAll(dir) })
			require.NoError(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte(block[1]), 0o644))
			cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", os.DevNull, "./"+filepath.Base(dir))
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "the README's %s Go example does not build:\n%s", title, out)
		})
	}
}
