package main

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq/internal/localpg"
)

// testCtx is the context of one test: cancelled when the test ends or after a generous bound.
func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// runCLI runs the jobq command in-process and returns its exit code and output.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(testCtx(t), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// startCluster starts a throwaway cluster of the test's own: a cluster where bootstrap never ran,
// whose roles the test may create and change. It is removed when t ends.
func startCluster(t *testing.T) *localpg.Cluster {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := localpg.Start(ctx, localpg.Options{})
	require.NoError(t, err, "start a throwaway cluster")
	t.Cleanup(func() { assert.NoError(t, c.Remove(), "remove the throwaway cluster") })
	return c
}

// connect opens one connection, closed when t ends.
func connect(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(testCtx(t), url)
	require.NoError(t, err, "connect to %s", url)
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	return conn
}

// createDatabase creates an empty database on c as postgres.
func createDatabase(t *testing.T, c *localpg.Cluster, name string) {
	t.Helper()
	conn := connect(t, c.URL("postgres", "postgres"))
	_, err := conn.Exec(testCtx(t), "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	require.NoError(t, err)
}

// queryStrings runs a query returning one text column and collects it.
func queryStrings(t *testing.T, conn *pgx.Conn, sql string, args ...any) []string {
	t.Helper()
	rows, err := conn.Query(testCtx(t), sql, args...)
	require.NoError(t, err)
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	return out
}

// queryBool runs a query returning one boolean.
func queryBool(t *testing.T, conn *pgx.Conn, sql string, args ...any) bool {
	t.Helper()
	var b bool
	require.NoError(t, conn.QueryRow(testCtx(t), sql, args...).Scan(&b))
	return b
}

// dumpSchema returns pg_dump's schema-only dump of schema jobq (owners and privileges kept) of the
// database at url, a superuser URL, without what differs between two dumps of one schema: pg_dump's
// comment lines, the SET preamble, set_config, \restrict and \unrestrict, and blank-line runs.
// (migrate's TestSchemaSnapshot normalises the same way; here two dumps are compared, so only the
// consistency of this function matters.)
func dumpSchema(t *testing.T, url string) string {
	t.Helper()
	binDir, err := localpg.FindBinDir()
	require.NoError(t, err)
	cmd := exec.CommandContext(testCtx(t), filepath.Join(binDir, "pg_dump"), "--schema-only", "--schema=jobq", "--dbname="+url)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "pg_dump: %s", stderr.String())
	var out []string
	blank := true
	for _, line := range strings.Split(stdout.String(), "\n") {
		line = strings.TrimRight(line, " \t\r")
		switch {
		case line == "--", strings.HasPrefix(line, "-- "),
			strings.HasPrefix(line, "SET "), strings.HasPrefix(line, "SELECT pg_catalog.set_config("),
			strings.HasPrefix(line, `\restrict`), strings.HasPrefix(line, `\unrestrict`):
			continue
		case line == "":
			if blank {
				continue
			}
			blank = true
		default:
			blank = false
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}
