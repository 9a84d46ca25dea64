package runner

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

// The schema check, given only a database, passes on a migrated database, calls a missing
// schema or one whose version the binary does not know ErrSchemaMissing, and a database that
// does not answer ErrNotReady.
func TestSchemaCheck(t *testing.T) {
	t.Parallel()
	b := setupUnit(t)
	ctx := context.Background()
	check := schemaCheck{db: b.pool}
	require.NoError(t, check.checkDatabase(ctx))

	t.Run("NewerSchema", func(t *testing.T) {
		b.exec(t, `INSERT INTO jobq.goose_db_version (version_id, is_applied) VALUES (99999, true)`)
		defer b.exec(t, `DELETE FROM jobq.goose_db_version WHERE version_id = 99999`)
		require.NoError(t, check.checkDatabase(ctx), "a newer schema without a breaking change is compatible")
		b.exec(t, `INSERT INTO jobq.breaking_changes (version, description) VALUES (99999, 'test: breaks older runners')`)
		defer b.exec(t, `DELETE FROM jobq.breaking_changes WHERE version = 99999`)
		require.ErrorIs(t, check.checkDatabase(ctx), ErrSchemaMissing, "a newer breaking change is refused")
	})

	t.Run("NoSchema", func(t *testing.T) {
		empty := b.db.Name + "_empty"
		b.exec(t, `CREATE DATABASE `+pgx.Identifier{empty}.Sanitize())
		t.Cleanup(func() {
			_, _ = b.admin.Exec(context.Background(), `DROP DATABASE IF EXISTS `+pgx.Identifier{empty}.Sanitize()+` WITH (FORCE)`)
		})
		cfg, err := pgxpool.ParseConfig(b.db.URL("postgres"))
		require.NoError(t, err)
		cfg.ConnConfig.Database = empty
		pool, err := pgxpool.NewWithConfig(ctx, cfg)
		require.NoError(t, err)
		defer pool.Close()
		err = schemaCheck{db: pool}.checkDatabase(ctx)
		require.ErrorIs(t, err, ErrSchemaMissing)
		require.ErrorContains(t, err, "the jobq schema does not exist")
	})

	t.Run("DatabaseGone", func(t *testing.T) {
		gone := b.db.Pool(t, "worker_runtime", 1)
		gone.Close()
		require.ErrorIs(t, schemaCheck{db: gone}.checkDatabase(ctx), ErrNotReady)
	})
	require.NoError(t, check.checkDatabase(ctx))
}
