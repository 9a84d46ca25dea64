package runner_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq/runner"
)

func probe(t *testing.T, srv *httptest.Server, path string) (int, map[string]string) {
	t.Helper()
	resp, err := http.Get(srv.URL + path)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var body map[string]string
	require.NoError(t, json.Unmarshal(raw, &body), string(raw))
	return resp.StatusCode, body
}

func TestReadyz(t *testing.T) {
	t.Parallel()
	b := setup(t)
	r, err := runner.New(b.config())
	require.NoError(t, err)
	srv := httptest.NewServer(r.HTTPHandler())
	t.Cleanup(srv.Close)
	ctx := context.Background()

	t.Run("NotStarted", func(t *testing.T) {
		code, body := probe(t, srv, "/readyz")
		require.Equal(t, 503, code)
		require.Equal(t, "WORKER.NOT_READY", body["code"])
		code, _ = probe(t, srv, "/healthz")
		require.Equal(t, 200, code)
	})

	start(t, r)
	t.Run("Ready", func(t *testing.T) {
		code, body := probe(t, srv, "/readyz")
		require.Equal(t, 200, code, body)
	})
	t.Run("SchemaBehind", func(t *testing.T) {
		var latest int64
		require.NoError(t, b.admin.QueryRow(ctx, `
			UPDATE jobq.goose_db_version SET is_applied = false
			WHERE id = (SELECT max(id) FROM jobq.goose_db_version) RETURNING version_id`).Scan(&latest))
		code, body := probe(t, srv, "/readyz")
		require.Equal(t, 503, code)
		require.Equal(t, "WORKER.SCHEMA_MISSING", body["code"])
		require.Contains(t, body["error"], "behind")
		_, err := b.admin.Exec(ctx, `UPDATE jobq.goose_db_version SET is_applied = true WHERE version_id = $1`, latest)
		require.NoError(t, err)
		code, _ = probe(t, srv, "/readyz")
		require.Equal(t, 200, code)
	})
	// A rolling deploy: this runner is the old one, and a newer binary migrated the database.
	t.Run("NewerCompatibleSchemaKeepsTheOldRunnerReady", func(t *testing.T) {
		_, err := b.admin.Exec(ctx, `INSERT INTO jobq.goose_db_version (version_id, is_applied) VALUES (99999, true)`)
		require.NoError(t, err)
		code, body := probe(t, srv, "/readyz")
		require.Equal(t, 200, code, "a newer schema without a breaking change keeps the runner serving: %v", body)
		_, err = b.admin.Exec(ctx, `DELETE FROM jobq.goose_db_version WHERE version_id = 99999`)
		require.NoError(t, err)
	})
	t.Run("SchemaWithANewerBreakingChange", func(t *testing.T) {
		_, err := b.admin.Exec(ctx, `INSERT INTO jobq.goose_db_version (version_id, is_applied) VALUES (99999, true);
			INSERT INTO jobq.breaking_changes (version, description) VALUES (99999, 'test: a signature the runner calls changed')`)
		require.NoError(t, err)
		code, body := probe(t, srv, "/readyz")
		require.Equal(t, 503, code)
		require.Equal(t, "WORKER.SCHEMA_MISSING", body["code"])
		require.Contains(t, body["error"], "breaking change 99999")
		_, err = b.admin.Exec(ctx, `DELETE FROM jobq.breaking_changes WHERE version = 99999; DELETE FROM jobq.goose_db_version WHERE version_id = 99999`)
		require.NoError(t, err)
		code, _ = probe(t, srv, "/readyz")
		require.Equal(t, 200, code)
	})
	t.Run("SchemaDropped", func(t *testing.T) {
		// The running runner's own statements can deadlock with the DROP (40P01), which PostgreSQL
		// resolves by cancelling one side: the DROP is tried again, as an operator would.
		var err error
		for try := 0; try < 5; try++ {
			if _, err = b.admin.Exec(ctx, `DROP SCHEMA jobq CASCADE`); err == nil || !strings.Contains(err.Error(), "40P01") {
				break
			}
		}
		require.NoError(t, err)
		code, body := probe(t, srv, "/readyz")
		require.Equal(t, 503, code)
		require.Equal(t, "WORKER.SCHEMA_MISSING", body["code"])
		code, _ = probe(t, srv, "/healthz")
		require.Equal(t, 200, code)
	})
}

// A runner started before the schema exists waits, not ready, instead of failing.
func TestRunnerWaitsForTheSchema(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, err := b.admin.Exec(context.Background(), `DROP SCHEMA jobq CASCADE`)
	require.NoError(t, err)
	r, err := runner.New(b.config())
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	waitFor(t, waitCeiling, "waiting line", func() bool {
		return len(b.logs.lines("waiting for the database before claiming")) == 1
	})
	err = r.Ready(context.Background())
	require.ErrorIs(t, err, runner.ErrSchemaMissing)
	cancel()
	require.NoError(t, <-done, "stopping while waiting is clean")
}
