package runner_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
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

// reservationTable creates public.reservation as an application would: store-scoped rows under
// forced row-level security keyed on jobq.current_store_id(), readable and writable by
// worker_runtime, with rows of stores A and B.
func reservationTable(t *testing.T, b *testBundle) {
	t.Helper()
	_, err := b.admin.Exec(context.Background(), `
		CREATE TABLE public.reservation (id serial PRIMARY KEY, store_id uuid NOT NULL, state text NOT NULL);
		ALTER TABLE public.reservation ENABLE ROW LEVEL SECURITY;
		ALTER TABLE public.reservation FORCE ROW LEVEL SECURITY;
		CREATE POLICY reservation_store ON public.reservation USING (store_id = jobq.current_store_id());
		GRANT SELECT, UPDATE, INSERT, DELETE ON public.reservation TO worker_runtime;
		GRANT USAGE ON SEQUENCE public.reservation_id_seq TO worker_runtime;
		INSERT INTO public.reservation (store_id, state) VALUES
			('`+storeA+`', 'tentative'), ('`+storeA+`', 'tentative'),
			('`+storeB+`', 'tentative'), ('`+storeB+`', 'confirmed');`)
	require.NoError(t, err)
}

// reservations returns store's reservation states in id order, read as the superuser.
func (b *testBundle) reservations(t *testing.T, store string) []string {
	t.Helper()
	rows, err := b.admin.Query(context.Background(), `SELECT state FROM public.reservation WHERE store_id = $1 ORDER BY id`, store)
	require.NoError(t, err)
	states, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	return states
}

// GWT-13: a store task's handler that changes "every row" changes only its store's rows; it
// cannot write a row of another store, and another store's rows stay as they were.
func TestGWT13StoreTaskIsConfinedToItsStore(t *testing.T) {
	t.Parallel()
	b := setup(t)
	reservationTable(t, b)
	ctx := context.Background()
	expire := runner.NewStoreTask[ExpireTentativeForStore]("expire-tentative-for-store", jobq.EnqueueOptions{MaxAttempts: 1})

	type seen struct {
		updated        int64 // rows of the unfiltered UPDATE
		updatedOther   int64 // rows of an UPDATE aimed at store B
		deletedOther   int64 // rows of a DELETE aimed at store B
		insertOtherErr error // an INSERT of a row of store B
	}
	results := make(chan seen, 1)
	r, err := runner.New(b.config())
	require.NoError(t, err)
	runner.HandleStore(r, expire, func(ctx context.Context, tx pgx.Tx, job *runner.Job[ExpireTentativeForStore]) error {
		var s seen
		tag, err := tx.Exec(ctx, `UPDATE public.reservation SET state = 'expired'`) // every row it can see
		if err != nil {
			return err
		}
		s.updated = tag.RowsAffected()
		if _, err := tx.Exec(ctx, `INSERT INTO public.reservation (store_id, state) VALUES ($1, 'created')`, job.Store()); err != nil {
			return err
		}
		// In a savepoint, so the refusal does not end the handler's transaction.
		s.insertOtherErr = pgx.BeginFunc(ctx, tx, func(sp pgx.Tx) error {
			_, err := sp.Exec(ctx, `INSERT INTO public.reservation (store_id, state) VALUES ($1, 'sneaked-in')`, storeB)
			return err
		})
		if tag, err = tx.Exec(ctx, `UPDATE public.reservation SET state = 'hijacked' WHERE store_id = $1`, storeB); err != nil {
			return err
		}
		s.updatedOther = tag.RowsAffected()
		if tag, err = tx.Exec(ctx, `DELETE FROM public.reservation WHERE store_id = $1`, storeB); err != nil {
			return err
		}
		s.deletedOther = tag.RowsAffected()
		results <- s
		return nil
	})
	start(t, r)

	var id int64
	require.NoError(t, r.WithTenant(ctx, storeA, func(ctx context.Context, tx pgx.Tx) error {
		id, err = expire.Enqueue(ctx, tx, storeA, ExpireTentativeForStore{}, nil)
		return err
	}))
	s := <-results
	require.Equal(t, "succeeded", b.waitState(t, id, "succeeded").State)

	require.Equal(t, int64(2), s.updated, "the unfiltered UPDATE reached store A's two rows only")
	require.ErrorContains(t, s.insertOtherErr, `new row violates row-level security policy for table "reservation"`)
	require.Zero(t, s.updatedOther, "store B's rows are invisible to the handler")
	require.Zero(t, s.deletedOther, "store B's rows are invisible to the handler")
	require.Equal(t, []string{"expired", "expired", "created"}, b.reservations(t, storeA))
	require.Equal(t, []string{"tentative", "confirmed"}, b.reservations(t, storeB), "store B's rows are untouched")

	t.Run("EmptyStoreIsRefused", func(t *testing.T) {
		called := false
		err := r.WithTenant(ctx, "", func(ctx context.Context, tx pgx.Tx) error { called = true; return nil })
		require.ErrorContains(t, err, "WithTenant needs a store id")
		require.False(t, called, "fn ran without a store")
	})
}

// A system task's handler runs with no store: the engine refuses its enqueue of a store's job
// (JOB.TENANT_MISMATCH) unless it enqueues inside WithTenant for that store.
func TestSystemTaskEnqueuesStoreJobsOnlyInItsTenant(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.define(t, "plan-expiries")
	expire := runner.NewStoreTask[ExpireTentativeForStore]("expire-tentative-for-store",
		jobq.EnqueueOptions{Queue: "handled-elsewhere"})

	type seen struct {
		outside, outsideTyped, otherStore error
		inside                            error
		insideID                          int64
	}
	results := make(chan seen, 1)
	cfg := b.config()
	cfg.Tasks = []jobq.TaskDefinition{expire.Definition()} // enqueued here, handled elsewhere
	r, err := runner.New(cfg)
	require.NoError(t, err)
	r.HandleFunc("plan-expiries", func(ctx context.Context, job *jobq.Job) error {
		var s seen
		_, s.outside = r.Client().Enqueue(ctx, expire.Name(), ExpireTentativeForStore{},
			jobq.EnqueueOptions{StoreID: storeA, Queue: "handled-elsewhere"})
		_, s.outsideTyped = expire.Enqueue(ctx, r.Pool(), storeA, ExpireTentativeForStore{}, nil)
		s.inside = r.WithTenant(ctx, storeA, func(ctx context.Context, tx pgx.Tx) error {
			var err error
			s.insideID, err = expire.Enqueue(ctx, tx, storeA, ExpireTentativeForStore{}, nil)
			return err
		})
		s.otherStore = r.WithTenant(ctx, storeA, func(ctx context.Context, tx pgx.Tx) error {
			_, err := expire.Enqueue(ctx, tx, storeB, ExpireTentativeForStore{}, nil)
			return err
		})
		results <- s
		return nil
	})
	start(t, r)

	id := b.enqueue(t, "plan-expiries", nil, jobq.EnqueueOptions{})
	s := <-results
	b.waitState(t, id, "succeeded")
	require.ErrorIs(t, s.outside, jobq.ErrTenantMismatch)
	require.ErrorContains(t, s.outside, "store "+storeA+" is not this session's store (app.current_store_id = unset)")
	require.ErrorIs(t, s.outsideTyped, jobq.ErrTenantMismatch)
	require.NoError(t, s.inside)
	require.ErrorIs(t, s.otherStore, jobq.ErrTenantMismatch)
	require.ErrorContains(t, s.otherStore, "store "+storeB+" is not this session's store (app.current_store_id = "+storeA+")")
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM jobq.jobs WHERE task = 'expire-tentative-for-store'`), "only store A's job")
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM jobq.jobs WHERE id = $1 AND store_id = $2 AND queue = 'handled-elsewhere'`,
		s.insideID, storeA))
}
