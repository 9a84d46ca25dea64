package main

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
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

// queryBool runs a query returning one boolean.
func queryBool(t *testing.T, conn *pgx.Conn, sql string, args ...any) bool {
	t.Helper()
	var b bool
	require.NoError(t, conn.QueryRow(testCtx(t), sql, args...).Scan(&b))
	return b
}
