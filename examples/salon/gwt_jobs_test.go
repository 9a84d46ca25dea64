package salon_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/examples/salon"
	"github.com/jobqdev/jobq/runner"
)

// GWT-2, at run time. Leaving the store id out does not compile (gwt_compile_test.go); an
// empty one, passed on purpose, is refused by the typed enqueue with JOB.PAYLOAD_INVALID before
// it writes anything, and the engine refuses a job without a store from plain SQL
// (JOB.STORE_REQUIRED).
func TestGWT02EmptyStoreIDIsRefusedBeforeAnyWrite(t *testing.T) {
	t.Parallel()
	d := newSalonDB(t)
	d.runApp(t, nil, 1)
	ctx := context.Background()
	_, err := salon.AggregateDailySalesForStoreTask.Enqueue(ctx, d.admin, "", salon.AggregateDailySalesForStore{TargetDate: "2026-05-05"}, nil)
	require.ErrorIs(t, err, runner.ErrPayloadInvalid)
	_, err = d.admin.Exec(ctx, `SELECT jobq.enqueue('aggregate-daily-sales-for-store', '{"targetDate": "2026-05-05"}')`)
	var pgErr *pgconn.PgError
	require.ErrorAs(t, err, &pgErr)
	require.Contains(t, pgErr.Message, "JOB.STORE_REQUIRED")
	require.Zero(t, d.count(t, `SELECT count(*) FROM jobq.jobs`), "nothing was written")
}

// GWT-5. Given three stores, when expire-tentative-reservations runs, then it enqueues exactly
// three expire-tentative-for-store jobs, one per store, each with its storeId, the key
// expire_tentative:<storeId> in mode preserve_run_at and the task's 10 attempts.
func TestGWT05SchedulerFansOutOneJobPerStore(t *testing.T) {
	t.Parallel()
	d := newSalonDB(t)
	stores := d.stores(t, 3)
	d.runApp(t, nil, 4)
	_, err := salon.ExpireTentativeReservationsTask.Enqueue(context.Background(), d.admin, salon.ExpireTentativeReservations{Reason: "cron"}, nil)
	require.NoError(t, err)
	d.waitFinished(t, 10*time.Second, "expire-tentative-reservations", "expire-tentative-for-store")

	children := d.jobs(t, "expire-tentative-for-store")
	require.Len(t, children, 3)
	for i, j := range children {
		require.Equal(t, "succeeded", j.State)
		require.NotNil(t, j.StoreID)
		require.Contains(t, stores, *j.StoreID)
		require.Equal(t, *j.StoreID, j.Payload["storeId"], "the payload names the job's store")
		require.Equal(t, "expire_tentative:"+*j.StoreID, *j.JobKey)
		for _, other := range children[:i] {
			require.NotEqual(t, *other.StoreID, *j.StoreID, "one job per store")
		}
	}
	require.Equal(t, 3, d.count(t, `SELECT count(*) FROM jobq.job_history
		WHERE task = 'expire-tentative-for-store' AND job_key_mode = 'preserve_run_at' AND max_attempts = 10`))
	scheduler := d.jobs(t, "expire-tentative-reservations")
	require.Len(t, scheduler, 1)
	require.Equal(t, "succeeded", scheduler[0].State)
	require.Nil(t, scheduler[0].StoreID, "the scheduler is a system job")
}

// GWT-6. Given the store jobs of a first expire-tentative-reservations run still waiting, when
// the scheduler runs again, then no job is added and each waiting job keeps its run_at.
func TestGWT06SecondSchedulerRunAddsNoDuplicate(t *testing.T) {
	t.Parallel()
	d := newSalonDB(t)
	d.stores(t, 3)
	ctx := context.Background()
	d.declareTasks(t)
	// Both scheduler runs come first (priority -1), the store jobs after them (priority 0): with
	// one job at a time, the second run finds the first run's jobs waiting.
	for range 2 {
		_, err := salon.ExpireTentativeReservationsTask.Enqueue(ctx, d.admin, salon.ExpireTentativeReservations{Reason: "cron"},
			&jobq.EnqueueOptions{Priority: -1})
		require.NoError(t, err)
	}
	d.runApp(t, nil, 1)
	d.waitFinished(t, 10*time.Second, "expire-tentative-reservations")
	d.waitFinished(t, 10*time.Second, "expire-tentative-for-store")

	require.Len(t, d.jobs(t, "expire-tentative-reservations"), 2, "the scheduler ran twice")
	children := d.jobs(t, "expire-tentative-for-store")
	require.Len(t, children, 3, "still one job per store")
	merged := d.count(t, `SELECT count(*) FROM jobq.job_history WHERE task = 'expire-tentative-for-store' AND run_at < created_at + interval '1 second'`)
	require.Equal(t, 3, merged, "each kept its first run_at")
}

// GWT-7. Given aggregate-daily-sales on its cron 0 18 * * * (UTC), when its slot of
// 2026-05-05 18:00 UTC (= 2026-05-06 03:00 JST) is enqueued by the leader, then the store jobs
// it fans out carry targetDate 2026-05-05 (the key says so too) and aggregate exactly the sales
// of that Tokyo day.
func TestGWT07AggregateSlotAt03JSTAggregatesThePreviousDay(t *testing.T) {
	t.Parallel()
	d := newSalonDB(t)
	stores := d.stores(t, 2)
	ctx := context.Background()
	// Sales around the day: 23:59 JST of 4 May, 00:00 and 23:59 of 5 May, 00:00 of 6 May.
	d.exec(t, `INSERT INTO public.sale (store_id, sold_at, amount_yen)
		SELECT s::uuid, v.at, v.yen FROM unnest($1::text[]) s,
		(VALUES ('2026-05-04 23:59:00+09'::timestamptz, 1), ('2026-05-05 00:00:00+09', 10),
		        ('2026-05-05 23:59:59+09', 100), ('2026-05-06 00:00:00+09', 1000)) AS v(at, yen)`, stores)
	d.runApp(t, nil, 4)
	_, err := jobq.NewClient(d.admin).Schedule(ctx, salon.Schedules()[1])
	require.NoError(t, err)
	d.exec(t, `UPDATE jobq.schedules SET next_slot_at = '2026-05-05 18:00:00+00' WHERE name = 'aggregate-daily-sales'`)
	d.exec(t, `SELECT FROM jobq._enqueue_due_slots('2026-05-05 18:00:00.5+00')`)
	d.waitFinished(t, 10*time.Second, "aggregate-daily-sales", "aggregate-daily-sales-for-store")

	scheduler := d.jobs(t, "aggregate-daily-sales")
	require.Len(t, scheduler, 1)
	require.Equal(t, "2026-05-05T18:00:00Z", scheduler[0].Payload["slotAt"])
	children := d.jobs(t, "aggregate-daily-sales-for-store")
	require.Len(t, children, 2)
	for _, j := range children {
		require.Equal(t, "succeeded", j.State)
		require.Equal(t, "2026-05-05", j.Payload["targetDate"])
		require.Equal(t, "aggregate_daily_sales:"+*j.StoreID+":2026-05-05", *j.JobKey)
	}
	rows := queryStrings(t, d.admin, `SELECT store_id || ' ' || sales_date || ' ' || total_yen || ' ' || sale_count
		FROM public.daily_sales ORDER BY store_id`)
	require.Equal(t, []string{stores[0] + " 2026-05-05 110 2", stores[1] + " 2026-05-05 110 2"}, rows)
}

// GWT-8. Given customers soft-deleted 91 and 89 days ago, and one not deleted, in two stores,
// when cleanup-deleted-customers runs, then the ones deleted more than 90 days ago are gone
// for good (their notes with them) and the others stay.
func TestGWT08CleanupRemovesCustomersDeletedOver90DaysAgo(t *testing.T) {
	t.Parallel()
	d := newSalonDB(t)
	stores := d.stores(t, 2)
	d.exec(t, `INSERT INTO public.customer (store_id, name, deleted_at)
		SELECT s::uuid, v.name, now() - v.ago FROM unnest($1::text[]) s,
		(VALUES ('old', interval '91 days'), ('recent', interval '89 days'), ('active', NULL)) AS v(name, ago)`, stores)
	d.exec(t, `INSERT INTO public.customer_note (store_id, customer_id, body) SELECT store_id, id, 'note' FROM public.customer`)
	d.runApp(t, nil, 4)
	_, err := salon.CleanupDeletedCustomersTask.Enqueue(context.Background(), d.admin, salon.Cleanup{Reason: "cron"}, nil)
	require.NoError(t, err)
	d.waitFinished(t, 10*time.Second, "cleanup-deleted-customers", "cleanup-deleted-customers-for-store")

	require.Equal(t, []string{"active", "active", "recent", "recent"},
		queryStrings(t, d.admin, `SELECT name FROM public.customer ORDER BY name`))
	require.Equal(t, 4, d.count(t, `SELECT count(*) FROM public.customer_note`), "the removed customers' notes went with them")
	children := d.jobs(t, "cleanup-deleted-customers-for-store")
	require.Len(t, children, 2)
	cutoff, _ := children[0].Payload["cutoffIso"].(string)
	require.Equal(t, cutoff, children[1].Payload["cutoffIso"], "one cutoff, computed once, for every store")
	at, err := time.Parse(time.RFC3339Nano, cutoff)
	require.NoError(t, err)
	var dbNow time.Time
	require.NoError(t, d.admin.QueryRow(context.Background(), "SELECT now()").Scan(&dbNow))
	require.WithinDuration(t, dbNow.Add(-salon.CustomerRetention), at, time.Minute, "cutoff = now - 90 days")
	require.Equal(t, "cleanup_customers:"+*children[0].StoreID+":"+cutoff, *children[0].JobKey)
}

// GWT-9. Given a store task whose database work fails with a transient error (SQLSTATE 40001,
// serialization_failure), when it runs, then it is retried up to its configured attempts (5
// for cleanup-deleted-customers-for-store) and dies after the fifth; and a failure that clears
// after two attempts ends in success on the third.
func TestGWT09TransientDatabaseFailureIsRetriedUpToTheConfiguredAttempts(t *testing.T) {
	t.Parallel()
	d := newSalonDB(t)
	stores := d.stores(t, 2)
	always, twice := stores[0], stores[1]
	d.exec(t, `INSERT INTO public.customer (store_id, name, deleted_at) SELECT s::uuid, 'gone', '2025-12-01 00:00:00+00' FROM unnest($1::text[]) s`, stores)
	// A statement trigger fails the store's DELETE while its attempt counter (a sequence per
	// store: nextval survives the rollback of the failed attempt) is within the store's limit.
	d.exec(t, `CREATE TABLE public.fail_limit (store_id uuid PRIMARY KEY, failures int NOT NULL, counter regclass NOT NULL)`)
	d.exec(t, `CREATE SEQUENCE public.attempts_always`)
	d.exec(t, `CREATE SEQUENCE public.attempts_twice`)
	d.exec(t, `INSERT INTO public.fail_limit VALUES ($1, 1000, 'public.attempts_always'), ($2, 2, 'public.attempts_twice')`, always, twice)
	d.exec(t, `CREATE FUNCTION public.transient_failure() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
		SET search_path = pg_catalog, pg_temp AS $$
		DECLARE
			v_limit record;
		BEGIN
			SELECT * INTO v_limit FROM public.fail_limit WHERE store_id = public.app_current_store_id();
			IF nextval(v_limit.counter) <= v_limit.failures THEN
				RAISE EXCEPTION 'could not serialize access due to concurrent update (injected)' USING ERRCODE = 'serialization_failure';
			END IF;
			RETURN NULL;
		END $$`)
	d.exec(t, `CREATE TRIGGER transient_failure BEFORE DELETE ON public.customer FOR EACH STATEMENT EXECUTE FUNCTION public.transient_failure()`)
	d.runApp(t, nil, 4)

	ctx := context.Background()
	fast := &jobq.EnqueueOptions{BackoffBase: 10 * time.Millisecond, BackoffMax: 50 * time.Millisecond}
	ids := map[string]int64{}
	for _, store := range stores {
		id, err := salon.CleanupDeletedCustomersForStoreTask.Enqueue(ctx, d.admin, store,
			salon.CleanupForStore{CutoffISO: "2026-01-01T00:00:00.000Z"}, fast)
		require.NoError(t, err)
		ids[store] = id
	}
	d.waitFinished(t, 20*time.Second, "cleanup-deleted-customers-for-store")

	byID := map[int64]jobRow{}
	for _, j := range d.jobs(t, "cleanup-deleted-customers-for-store") {
		byID[j.ID] = j
	}
	dead := byID[ids[always]]
	require.Equal(t, "dead", dead.State)
	require.Equal(t, 5, dead.Attempt, "retried up to the task's 5 attempts, no more")
	require.Contains(t, *dead.LastErr, "40001")
	require.Equal(t, 5, d.count(t, `SELECT last_value FROM public.attempts_always`), "five attempts reached the database")
	ok := byID[ids[twice]]
	require.Equal(t, "succeeded", ok.State)
	require.Equal(t, 3, ok.Attempt, "two transient failures, then success")
	require.Equal(t, []string{always}, queryStrings(t, d.admin, `SELECT store_id::text FROM public.customer`),
		"the store whose failure cleared was cleaned up; the other kept its rows (every attempt rolled back)")
}

// GWT-13. Given two stores with rows in every salon table, when a store-scoped task's
// transaction (WithTenant, as worker_runtime) for the first store reads, changes and deletes
// "everything", then only the first store's rows are seen and touched, a row for the other store
// cannot be written, and a session without a store sees nothing at all.
func TestGWT13StoreTaskIsConfinedToItsStoreByRLS(t *testing.T) {
	t.Parallel()
	d := newSalonDB(t)
	stores := d.stores(t, 2)
	a, b := stores[0], stores[1]
	d.exec(t, `
		WITH c AS (INSERT INTO public.customer (store_id, name) SELECT s::uuid, 'c' FROM unnest($1::text[]) s RETURNING id, store_id),
		     n AS (INSERT INTO public.customer_note (store_id, customer_id, body) SELECT store_id, id, 'n' FROM c)
		INSERT INTO public.sale (store_id, sold_at, amount_yen) SELECT s::uuid, now(), 100 FROM unnest($1::text[]) s`, stores)
	d.exec(t, `INSERT INTO public.tentative_reservation (store_id, starts_at, expires_at) SELECT s::uuid, now(), now() - interval '1 minute' FROM unnest($1::text[]) s`, stores)
	d.exec(t, `INSERT INTO public.daily_sales (store_id, sales_date, total_yen, sale_count) SELECT s::uuid, '2026-05-05', 1, 1 FROM unnest($1::text[]) s`, stores)
	d.exec(t, `INSERT INTO public.operator_session (store_id, operator_email, expires_at) SELECT s::uuid, 'o@example.com', now() FROM unnest($1::text[]) s`, stores)
	d.exec(t, `WITH i AS (INSERT INTO public.operator_invitation (store_id, email, expires_at) SELECT s::uuid, 'i@example.com', now() FROM unnest($1::text[]) s RETURNING id, store_id)
		INSERT INTO public.invitation_email_delivery (invitation_id, store_id, message_id, job_id) SELECT id, store_id, 'm', 1 FROM i`, stores)
	tables := []string{"tentative_reservation", "sale", "daily_sales", "customer", "customer_note", "operator_session",
		"operator_invitation", "invitation_email_delivery"}
	ctx := context.Background()

	for _, table := range tables {
		var seen []string
		err := runner.WithTenant(ctx, d.worker, a, func(ctx context.Context, tx pgx.Tx) error {
			rows, err := tx.Query(ctx, `SELECT DISTINCT store_id::text FROM public.`+table)
			if err != nil {
				return err
			}
			seen, err = pgx.CollectRows(rows, pgx.RowTo[string])
			return err
		})
		require.NoError(t, err)
		require.Equal(t, []string{a}, seen, "%s: store A's transaction sees store A only", table)

		var n int
		require.NoError(t, d.worker.QueryRow(ctx, `SELECT count(*) FROM public.`+table).Scan(&n))
		require.Zero(t, n, "%s: worker_runtime without a store sees nothing", table)
	}

	// Changing and deleting "everything" in A's transaction touches A's rows only.
	err := runner.WithTenant(ctx, d.worker, a, func(ctx context.Context, tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE public.tentative_reservation SET status = 'expired', expired_at = now()`); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `DELETE FROM public.customer`)
		return err
	})
	require.NoError(t, err)
	require.Equal(t, []string{b}, queryStrings(t, d.admin, `SELECT store_id::text FROM public.tentative_reservation WHERE status = 'tentative'`))
	require.Equal(t, []string{b}, queryStrings(t, d.admin, `SELECT store_id::text FROM public.customer`))

	// Writing a row of B from A's transaction is refused by the policy's WITH CHECK.
	err = runner.WithTenant(ctx, d.worker, a, func(ctx context.Context, tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO public.sale (store_id, sold_at, amount_yen) VALUES ($1, now(), 1)`, b)
		return err
	})
	var pgErr *pgconn.PgError
	require.True(t, errors.As(err, &pgErr) && pgErr.Code == "42501", "row-level security refuses it: %v", err)
	require.True(t, strings.Contains(pgErr.Message, "row-level security"), pgErr.Message)

	// And through a real job: expire-tentative-for-store for B expires B's reservation only.
	d.exec(t, `UPDATE public.tentative_reservation SET status = 'tentative', expired_at = NULL`)
	d.runApp(t, nil, 2)
	err = runner.WithTenant(ctx, d.api, b, func(ctx context.Context, tx pgx.Tx) error {
		_, err := salon.ExpireTentativeForStoreTask.Enqueue(ctx, tx, b, salon.ExpireTentativeForStore{}, nil)
		return err
	})
	require.NoError(t, err)
	d.waitFinished(t, 10*time.Second, "expire-tentative-for-store")
	require.Equal(t, []string{b}, queryStrings(t, d.admin, `SELECT store_id::text FROM public.tentative_reservation WHERE status = 'expired'`))
}
