package migrate

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io/fs"
	"sort"

	"github.com/jobqdev/jobq"
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
func FunctionFiles() ([]FunctionFile, error) {
	names, err := fs.Glob(jobqsql.Functions, "*.sql")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	files := make([]FunctionFile, 0, len(names))
	for _, n := range names {
		b, err := fs.ReadFile(jobqsql.Functions, n)
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

// pendingFunctions returns the files whose content differs from what jobq.function_files
// records (all of them when all is true), in apply order.
func pendingFunctions(ctx context.Context, q querier, all bool) ([]FunctionFile, error) {
	files, err := FunctionFiles()
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
	for _, f := range files {
		if applied[f.Name] != f.Checksum {
			pending = append(pending, f)
		}
	}
	return pending, nil
}

// functionsPrologue starts the application of function files: bodies are checked when called,
// not when created (as pg_dump restores them), so a file may name a function of a later file.
const functionsPrologue = `SET LOCAL check_function_bodies = off;`

// recordFunction is the statement that records one applied file.
const recordFunction = `INSERT INTO jobq.function_files AS f (name, checksum) VALUES ($1, $2)
	ON CONFLICT (name) DO UPDATE SET checksum = EXCLUDED.checksum, applied_at = now()`

// applyFunctions applies files in one transaction on conn and records their checksums; records
// of files the binary no longer embeds are removed (the objects such a file made are dropped by a
// later file that says so). Nothing is applied when files is empty.
func applyFunctions(ctx context.Context, conn *sql.Conn, files []FunctionFile) error {
	if len(files) == 0 {
		return nil
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.ExecContext(ctx, functionsPrologue); err != nil {
		return err
	}
	for _, f := range files {
		if _, err := tx.ExecContext(ctx, f.Body); err != nil {
			return fmt.Errorf("apply sql/functions/%s: %w", f.Name, jobq.FromDB(err))
		}
		if _, err := tx.ExecContext(ctx, recordFunction, f.Name, f.Checksum); err != nil {
			return fmt.Errorf("record sql/functions/%s: %w", f.Name, err)
		}
	}
	all, err := FunctionFiles()
	if err != nil {
		return err
	}
	names := make([]string, 0, len(all))
	for _, f := range all {
		names = append(names, f.Name)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM jobq.function_files f WHERE f.name <> ALL ($1::text[])`, names); err != nil {
		return err
	}
	return tx.Commit()
}
