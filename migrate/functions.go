package migrate

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	jobqsql "github.com/jobqdev/jobq/sql"
)

// FunctionFile is one file of sql/functions/: its name, its content and the sha256 of the
// content, which jobq.function_files records once the file is applied.
type FunctionFile struct {
	Name     string
	Checksum string
	Body     string
}

// FunctionFiles returns the embedded function files in the order Up applies them (name order).
func FunctionFiles() ([]FunctionFile, error) { return functionFilesIn(jobqsql.Functions) }

// functionFilesIn returns the function files at the root of fsys, in name order.
func functionFilesIn(fsys fs.FS) ([]FunctionFile, error) {
	names, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	files := make([]FunctionFile, 0, len(names))
	for _, n := range names {
		b, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(b)
		files = append(files, FunctionFile{Name: n, Checksum: hex.EncodeToString(sum[:]), Body: string(b)})
	}
	return files, nil
}

// querier is what reading the recorded checksums needs: a *sql.DB, *sql.Conn or *sql.Tx.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// appliedChecksums returns jobq.function_files as name → checksum; empty when the table does not
// exist yet (before migration 4, or on a database without jobq).
func appliedChecksums(ctx context.Context, q querier) (map[string]string, error) {
	var exists bool
	if err := q.QueryRowContext(ctx, `SELECT pg_catalog.to_regclass('jobq.function_files') IS NOT NULL`).Scan(&exists); err != nil {
		return nil, err
	}
	got := map[string]string{}
	if !exists {
		return got, nil
	}
	rows, err := q.QueryContext(ctx, `SELECT f.name, f.checksum FROM jobq.function_files f`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var name, sum string
		if err := rows.Scan(&name, &sum); err != nil {
			return nil, err
		}
		got[name] = sum
	}
	return got, rows.Err()
}

// pendingFunctions returns the files of fsys whose content differs from what jobq.function_files
// records (all of them when all is true), in apply order.
func pendingFunctions(ctx context.Context, q querier, fsys fs.FS, all bool) ([]FunctionFile, error) {
	files, err := functionFilesIn(fsys)
	if err != nil {
		return nil, err
	}
	if all {
		return files, nil
	}
	applied, err := appliedChecksums(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("read jobq.function_files: %w", err)
	}
	var pending []FunctionFile
	for i, f := range files {
		// The grants file goes with any other: a function another file created or recreated
		// has PUBLIC's default EXECUTE, or none of its grants, until the grants are applied.
		if applied[f.Name] != f.Checksum || (f.Name == GrantsFile && len(pending) > 0 && i == len(files)-1) {
			pending = append(pending, f)
		}
	}
	return pending, nil
}

// GrantsFile is the function file that declares and applies every function's EXECUTE grants
// (sql/functions/99_grants.sql). It sorts last, and is applied whenever another file is.
const GrantsFile = "99_grants.sql"

// functionsPrologue starts the application of function files: bodies are checked when called,
// not when created (as pg_dump restores them), so a file may name a function of a later file.
const functionsPrologue = `SET LOCAL check_function_bodies = off;`

// recordFunction is the statement that records one applied file (its name and checksum are
// quoted into it, so that `migrate up --dry-run` prints the very statement Up runs).
func recordFunction(f FunctionFile) string {
	return fmt.Sprintf("INSERT INTO jobq.function_files AS f (name, checksum) VALUES (%s, %s)\n"+
		"    ON CONFLICT (name) DO UPDATE SET checksum = EXCLUDED.checksum, applied_at = now();", quote(f.Name), quote(f.Checksum))
}

// forgetRemovedFunctions is the statement that removes the records of files the source no longer
// holds (the objects such a file made are dropped by a later file that says so).
func forgetRemovedFunctions(all []FunctionFile) string {
	names := make([]string, 0, len(all))
	for _, f := range all {
		names = append(names, quote(f.Name))
	}
	return fmt.Sprintf("DELETE FROM jobq.function_files f WHERE f.name <> ALL (ARRAY[%s]::text[]);", strings.Join(names, ", "))
}

// quote is a SQL string literal of s (standard_conforming_strings, as PostgreSQL has it on).
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
