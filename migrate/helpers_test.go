package migrate_test

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq/internal/localpg"
	"github.com/jobqdev/jobq/migrate"
)

// testCtx is the context of one test: cancelled when the test ends or after a generous bound.
func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// startCluster starts a throwaway cluster of the test's own, for tests that change cluster-wide
// state (roles) or need a cluster where bootstrap never ran. It is removed when t ends.
func startCluster(t *testing.T) *localpg.Cluster {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := localpg.Start(ctx, localpg.Options{})
	require.NoError(t, err, "start a throwaway cluster")
	t.Cleanup(func() { assert.NoError(t, c.Remove(), "remove the throwaway cluster") })
	return c
}

// createDatabase creates an empty database on c as postgres.
func createDatabase(t *testing.T, c *localpg.Cluster, name string) {
	t.Helper()
	conn := connect(t, c.URL("postgres", "postgres"))
	_, err := conn.Exec(testCtx(t), "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	require.NoError(t, err)
	require.NoError(t, conn.Close(context.Background()))
}

// connect opens one connection, closed when t ends.
func connect(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(testCtx(t), url)
	require.NoError(t, err, "connect to %s", url)
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	return conn
}

// bootstrapDatabase creates an empty database on c and applies bootstrap to it as postgres.
func bootstrapDatabase(t *testing.T, c *localpg.Cluster, name string) {
	t.Helper()
	createDatabase(t, c, name)
	conn := connect(t, c.URL("postgres", name))
	require.NoError(t, migrate.Bootstrap(testCtx(t), conn, migrate.BootstrapOptions{}))
	require.NoError(t, conn.Close(context.Background()))
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

// snapshotPath is the committed schema snapshot that TestSchemaSnapshot keeps in step.
const snapshotPath = "testdata/schema.snapshot.sql"

// dumpSchema returns pg_dump's schema-only dump of schema jobq of the database at url (a superuser
// URL), normalised by normaliseDump. Owners and privileges are kept: they are part of the contract.
func dumpSchema(t *testing.T, url string) string {
	t.Helper()
	binDir, err := localpg.FindBinDir()
	require.NoError(t, err)
	cmd := exec.CommandContext(testCtx(t), filepath.Join(binDir, "pg_dump"), "--schema-only", "--schema=jobq", "--dbname="+url)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "pg_dump: %s", stderr.String())
	return normaliseDump(stdout.String())
}

// normaliseDump drops what differs between two dumps of the same schema: pg_dump's comment lines
// (the header with the versions, and the "-- Name: ...; Type: ...; Owner: ..." captions), the SET
// preamble and set_config lines, the \restrict and \unrestrict lines (whose key is random), and
// runs of blank lines.
func normaliseDump(dump string) string {
	var out []string
	blank := true // drop blank lines at the start too
	for _, line := range strings.Split(strings.ReplaceAll(dump, "\r\n", "\n"), "\n") {
		line = strings.TrimRight(line, " \t")
		switch {
		case line == "--",
			strings.HasPrefix(line, "-- Name: "),
			strings.HasPrefix(line, "-- Data for Name: "),
			strings.HasPrefix(line, "-- TOC entry "),
			strings.HasPrefix(line, "-- Dependencies: "),
			strings.HasPrefix(line, "-- Dumped from database version"),
			strings.HasPrefix(line, "-- Dumped by pg_dump version"),
			strings.HasPrefix(line, "-- PostgreSQL database dump"),
			strings.HasPrefix(line, "SET "),
			strings.HasPrefix(line, "SELECT pg_catalog.set_config("),
			strings.HasPrefix(line, `\restrict `), line == `\restrict`,
			strings.HasPrefix(line, `\unrestrict `), line == `\unrestrict`:
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
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return strings.Join(out, "\n") + "\n"
}

// diffLines describes how got differs from want: the differing middle (common leading and trailing
// lines removed) with three lines of context, "-" for want and "+" for got, capped in length.
func diffLines(want, got string) string {
	w := strings.Split(want, "\n")
	g := strings.Split(got, "\n")
	pre := 0
	for pre < len(w) && pre < len(g) && w[pre] == g[pre] {
		pre++
	}
	suf := 0
	for suf < len(w)-pre && suf < len(g)-pre && w[len(w)-1-suf] == g[len(g)-1-suf] {
		suf++
	}
	const around, maxLines = 3, 60
	var b strings.Builder
	from := max(pre-around, 0)
	fmt.Fprintf(&b, "@@ want line %d, got line %d @@\n", from+1, from+1)
	for _, l := range w[from:pre] {
		b.WriteString("  " + l + "\n")
	}
	write := func(prefix string, lines []string) {
		for i, l := range lines {
			if i == maxLines {
				fmt.Fprintf(&b, "%s... %d more lines\n", prefix, len(lines)-maxLines)
				return
			}
			b.WriteString(prefix + " " + l + "\n")
		}
	}
	write("-", w[pre:len(w)-suf])
	write("+", g[pre:len(g)-suf])
	for _, l := range w[len(w)-suf : min(len(w)-suf+around, len(w))] {
		b.WriteString("  " + l + "\n")
	}
	return b.String()
}

// requireSameSchema fails t with a readable diff when the two normalised dumps differ.
func requireSameSchema(t *testing.T, want, got, what string) {
	t.Helper()
	if want != got {
		t.Fatalf("%s: schema differs (- want, + got):\n%s", what, diffLines(want, got))
	}
}
