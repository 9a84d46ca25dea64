package runner_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq/runner"
)

const (
	storeA = "aaaaaaaa-0000-4000-8000-000000000001"
	storeB = "bbbbbbbb-0000-4000-8000-000000000002"
)

// tenantTable creates a store-scoped table under row-level security, as the application's own
// tables are: rows are visible only with app.current_store_id set to their store.
func tenantTable(t *testing.T, b *testBundle) {
	t.Helper()
	_, err := b.admin.Exec(context.Background(), `
		CREATE TABLE public.bookings (id serial PRIMARY KEY, store_id uuid NOT NULL, note text NOT NULL);
		ALTER TABLE public.bookings ENABLE ROW LEVEL SECURITY;
		CREATE POLICY tenant_isolation ON public.bookings
			USING (store_id = nullif(current_setting('app.current_store_id', true), '')::uuid);
		GRANT SELECT, INSERT ON public.bookings TO worker_runtime;
		GRANT USAGE ON SEQUENCE public.bookings_id_seq TO worker_runtime;
		INSERT INTO public.bookings (store_id, note) VALUES
			('`+storeA+`', 'a1'), ('`+storeA+`', 'a2'), ('`+storeB+`', 'b1');`)
	require.NoError(t, err)
}

func countBookings(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}) (int, error) {
	var n int
	err := q.QueryRow(ctx, `SELECT count(*) FROM public.bookings`).Scan(&n)
	return n, err
}

// GWT-13: a store-scoped handler sees only its store's rows.
func TestWithTenant(t *testing.T) {
	t.Parallel()
	b := setup(t)
	tenantTable(t, b)
	ctx := context.Background()

	t.Run("SeesOnlyItsStore", func(t *testing.T) {
		for store, want := range map[string]int{storeA: 2, storeB: 1} {
			err := runner.WithTenant(ctx, b.pool, store, func(ctx context.Context, tx pgx.Tx) error {
				n, err := countBookings(ctx, tx)
				require.Equal(t, want, n, store)
				return err
			})
			require.NoError(t, err)
		}
		n, err := countBookings(ctx, b.pool)
		require.NoError(t, err)
		require.Zero(t, n, "no store set, no rows")
	})
	t.Run("SettingEndsWithTheTransaction", func(t *testing.T) {
		conn, err := b.pool.Acquire(ctx)
		require.NoError(t, err)
		defer conn.Release()
		require.NoError(t, runner.WithTenant(ctx, conn, storeA, func(ctx context.Context, tx pgx.Tx) error { return nil }))
		var setting *string
		require.NoError(t, conn.QueryRow(ctx, `SELECT nullif(current_setting('app.current_store_id', true), '')`).Scan(&setting))
		require.Nil(t, setting, "set_config(..., true) is local to the transaction")
	})
	t.Run("ErrorRollsBack", func(t *testing.T) {
		boom := errors.New("boom")
		err := runner.WithTenant(ctx, b.pool, storeA, func(ctx context.Context, tx pgx.Tx) error {
			_, err := tx.Exec(ctx, `INSERT INTO public.bookings (store_id, note) VALUES ($1, 'rolled back')`, storeA)
			require.NoError(t, err)
			return boom
		})
		require.ErrorIs(t, err, boom)
		require.Equal(t, 0, b.count(t, `SELECT count(*) FROM public.bookings WHERE note = 'rolled back'`))
	})
	t.Run("CannotWriteAnotherStore", func(t *testing.T) {
		err := runner.WithTenant(ctx, b.pool, storeA, func(ctx context.Context, tx pgx.Tx) error {
			_, err := tx.Exec(ctx, `INSERT INTO public.bookings (store_id, note) VALUES ($1, 'sneaky')`, storeB)
			return err
		})
		require.ErrorContains(t, err, "row-level security")
	})
	t.Run("NeedsAStore", func(t *testing.T) {
		err := runner.WithTenant(ctx, b.pool, "", func(ctx context.Context, tx pgx.Tx) error { return nil })
		require.Error(t, err)
	})
}
