package dbtest

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

	"github.com/jobqdev/jobq/internal/localpg"
)

// Ctx is the context of one test: cancelled when the test ends or after three minutes.
func Ctx(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// StartCluster starts a throwaway cluster of the test's own, for tests that change cluster-wide
// state (roles) or need a cluster where bootstrap never ran. It is removed when t ends.
func StartCluster(t testing.TB) *localpg.Cluster {
	t.Helper()
	return StartClusterWith(t, localpg.Options{})
}

// StartClusterWith is StartCluster with options (settings, pg_hba.conf lines).
func StartClusterWith(t testing.TB, opts localpg.Options) *localpg.Cluster {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := localpg.Start(ctx, opts)
	if err != nil {
		t.Fatalf("dbtest: start a throwaway cluster: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Remove(); err != nil {
			t.Errorf("dbtest: remove the throwaway cluster: %v", err)
		}
	})
	return c
}

// Connect opens one connection to url, closed when t ends.
func Connect(t testing.TB, url string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(Ctx(t), url)
	if err != nil {
		t.Fatalf("dbtest: connect to %s: %v", url, err)
	}
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	return conn
}

// CreateDatabase creates an empty database on c as postgres.
func CreateDatabase(t testing.TB, c *localpg.Cluster, name string) {
	t.Helper()
	conn := Connect(t, c.URL("postgres", "postgres"))
	if _, err := conn.Exec(Ctx(t), "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		t.Fatalf("dbtest: create database %s: %v", name, err)
	}
	_ = conn.Close(context.Background())
}

// QueryStrings runs a query returning one text column and collects it.
func QueryStrings(t testing.TB, conn *pgx.Conn, sql string, args ...any) []string {
	t.Helper()
	rows, err := conn.Query(Ctx(t), sql, args...)
	if err != nil {
		t.Fatalf("dbtest: %v", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatalf("dbtest: %v", err)
	}
	return out
}

// DumpSchema returns pg_dump's schema-only dump of schema jobq of the database at url (a
// superuser URL), normalised by NormaliseDump. Owners and privileges are kept: they are part of
// the contract. Partitions of jobq.job_history that depend on the day and the data are left out:
// the day partitions (job_history_pYYYYMMDD), whose names and bounds are the day's, made by the
// migration and by maintain, and job_history_before_00037, the history an upgrade kept (absent
// when history was empty; migrate's TestHistoryByDayMigrationKeepsTheHistoryBeforeIt checks it).
// The default partition, the partitioned table and its indexes are in.
func DumpSchema(t testing.TB, url string) string {
	t.Helper()
	binDir, err := localpg.FindBinDir()
	if err != nil {
		t.Fatalf("dbtest: %v", err)
	}
	cmd := exec.CommandContext(Ctx(t), filepath.Join(binDir, "pg_dump"), "--schema-only", "--schema=jobq",
		"--exclude-table=jobq.job_history_p*", "--exclude-table=jobq.job_history_before_00037", "--dbname="+url)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("dbtest: pg_dump: %v: %s", err, stderr.String())
	}
	return NormaliseDump(stdout.String())
}

// NormaliseDump drops what differs between two dumps of the same schema: pg_dump's comment lines
// (the header with the versions, and the "-- Name: ...; Type: ...; Owner: ..." captions), the SET
// preamble and set_config lines, the \restrict and \unrestrict lines (whose key is random), and
// runs of blank lines.
func NormaliseDump(dump string) string {
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

// DiffLines describes how got differs from want: the differing middle (common leading and trailing
// lines removed) with three lines of context, "-" for want and "+" for got, capped in length.
func DiffLines(want, got string) string {
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

// RequireSameSchema fails t with a readable diff when two normalised dumps differ.
func RequireSameSchema(t testing.TB, want, got, what string) {
	t.Helper()
	if want != got {
		t.Fatalf("%s: schema differs (- want, + got):\n%s", what, DiffLines(want, got))
	}
}
