package salon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/runner"
)

// App is the salon's worker side: the handlers of the task catalogue. Register puts them on a
// runner; Schedules is the cron table that goes with them.
type App struct {
	// Mailer sends the invitation mails. Required when invitations are enqueued; nil makes
	// deliver-operator-invitation-email fail (and retry) with a clear error.
	Mailer Mailer
	// InvitationURL is the start of the link in an invitation mail; the invitation's token is
	// appended. Default: "https://salon.example/invitations/".
	InvitationURL string
	// Log receives one line per job with taskName, jobId, storeId and attempt (seed 000 §7.5).
	// Default: slog.Default().
	Log *slog.Logger
}

// Register registers every task of the catalogue on r, with its declaration; Run declares them
// in jobq.tasks before it claims.
func (a *App) Register(r *runner.Runner) {
	runner.Handle(r, PingTask, func(ctx context.Context, job *runner.Job[Ping]) error {
		a.log(job.Job).Info("pong")
		return nil
	})

	runner.Handle(r, ExpireTentativeReservationsTask, func(ctx context.Context, job *runner.Job[ExpireTentativeReservations]) error {
		return a.fanOut(ctx, r, job.Job, ExpireTentativeForStoreTask.Name(), map[string]any{}, ExpireTentativeKey)
	})
	runner.HandleStore(r, ExpireTentativeForStoreTask, func(ctx context.Context, tx pgx.Tx, job *runner.Job[ExpireTentativeForStore]) error {
		return a.exec(ctx, tx, job.Job, "expired tentative reservations", `
			UPDATE public.tentative_reservation SET status = 'expired', expired_at = now()
			WHERE store_id = public.app_current_store_id() AND status = 'tentative' AND expires_at <= now()`)
	})

	runner.Handle(r, AggregateDailySalesTask, func(ctx context.Context, job *runner.Job[AggregateDailySales]) error {
		day, err := targetDate(ctx, r.Pool(), job.Args)
		if err != nil {
			return err
		}
		return a.fanOut(ctx, r, job.Job, AggregateDailySalesForStoreTask.Name(), map[string]any{"targetDate": day}, AggregateDailySalesKey(day))
	})
	runner.HandleStore(r, AggregateDailySalesForStoreTask, func(ctx context.Context, tx pgx.Tx, job *runner.Job[AggregateDailySalesForStore]) error {
		if _, err := time.Parse(time.DateOnly, job.Args.TargetDate); err != nil {
			return runner.Permanent(fmt.Errorf("targetDate %q is not a date (YYYY-MM-DD)", job.Args.TargetDate))
		}
		return a.aggregate(ctx, tx, job)
	})

	a.retention(r, CleanupDeletedCustomersTask, CleanupDeletedCustomersForStoreTask, CustomerRetention, CleanupCustomersKey,
		"deleted customers", `DELETE FROM public.customer
			WHERE store_id = public.app_current_store_id() AND deleted_at < $1::timestamptz`)
	a.retention(r, PurgeDeletedCustomerNotesTask, PurgeDeletedCustomerNotesForStoreTask, CustomerNoteRetention, PurgeCustomerNotesKey,
		"purged customer notes", `DELETE FROM public.customer_note
			WHERE store_id = public.app_current_store_id() AND deleted_at < $1::timestamptz`)
	a.retention(r, CleanupExpiredOperatorSessionsTask, CleanupExpiredOperatorSessionsForStoreTask, 0, CleanupOperatorSessionsKey,
		"expired operator sessions", `DELETE FROM public.operator_session
			WHERE store_id = public.app_current_store_id() AND expires_at < $1::timestamptz`)
	a.retention(r, CleanupExpiredOperatorInvitationsTask, CleanupExpiredOperatorInvitationsForStoreTask, 0, CleanupOperatorInvitationsKey,
		"expired operator invitations", `DELETE FROM public.operator_invitation
			WHERE store_id = public.app_current_store_id() AND accepted_at IS NULL AND expires_at < $1::timestamptz`)

	runner.HandleStore(r, SendOperatorInvitationEmailTask, func(ctx context.Context, tx pgx.Tx, job *runner.Job[SendOperatorInvitationEmail]) error {
		return a.recordInvitation(ctx, tx, job)
	})
	// Registered through the task's untyped half (runner.Handle, not HandleStore): the handler
	// opens its own short tenant transactions and sends the mail between them, outside any.
	runner.Handle(r, DeliverOperatorInvitationEmailTask.Task, func(ctx context.Context, job *runner.Job[DeliverOperatorInvitationEmail]) error {
		return a.deliverInvitation(ctx, r, job)
	})
}

// retention registers a retention scheduler and its store task: the scheduler computes the
// cutoff once (its slot, or the database's now() when run by hand, less keep) and fans the
// store task out with it; the store task runs del with the cutoff as $1.
func (a *App) retention(r *runner.Runner, scheduler runner.Task[Cleanup], store runner.StoreTask[CleanupForStore],
	keep time.Duration, key func(string) string, what, del string) {
	runner.Handle(r, scheduler, func(ctx context.Context, job *runner.Job[Cleanup]) error {
		cutoff, err := cutoffISO(ctx, r.Pool(), job.Args.SlotAt, keep)
		if err != nil {
			return err
		}
		return a.fanOut(ctx, r, job.Job, store.Name(), map[string]any{"cutoffIso": cutoff}, key(cutoff))
	})
	runner.HandleStore(r, store, func(ctx context.Context, tx pgx.Tx, job *runner.Job[CleanupForStore]) error {
		if _, err := time.Parse(time.RFC3339Nano, job.Args.CutoffISO); err != nil {
			return runner.Permanent(fmt.Errorf("cutoffIso %q is not an RFC 3339 instant", job.Args.CutoffISO))
		}
		return a.exec(ctx, tx, job.Job, what, del, job.Args.CutoffISO)
	})
}

// fanOut enqueues task once per store (jobq.fan_out) under keyTemplate with preserve_run_at. It
// is all a scheduler does: it changes no business table.
func (a *App) fanOut(ctx context.Context, r *runner.Runner, job *jobq.Job, task string, payload map[string]any, keyTemplate string) error {
	n, err := r.Client().FanOut(ctx, task, payload, keyTemplate, jobq.JobKeyPreserveRunAt)
	if err != nil {
		return err
	}
	a.log(job).Info("fanned out", "childTask", task, "stores", n, "jobKey", keyTemplate)
	return nil
}

// exec runs one statement of a store task in its tenant transaction and logs the rows it
// changed.
func (a *App) exec(ctx context.Context, tx pgx.Tx, job *jobq.Job, what, sql string, args ...any) error {
	tag, err := tx.Exec(ctx, sql, args...)
	if err != nil {
		return err
	}
	a.log(job).Info(what, "rows", tag.RowsAffected())
	return nil
}

// aggregate writes the store's sales of the target day, a day of the store's own time zone,
// into daily_sales; running it again overwrites the row (the job is idempotent).
func (a *App) aggregate(ctx context.Context, tx pgx.Tx, job *runner.Job[AggregateDailySalesForStore]) error {
	var total, count int64
	err := tx.QueryRow(ctx, `
		INSERT INTO public.daily_sales AS d (store_id, sales_date, total_yen, sale_count, aggregated_at)
		SELECT st.id, $1::date, coalesce(sum(s.amount_yen), 0), count(s.id), now()
		FROM public.store AS st
		LEFT JOIN public.sale AS s
		       ON s.store_id = st.id
		      AND s.sold_at >= ($1::date)::timestamp AT TIME ZONE st.timezone
		      AND s.sold_at < ($1::date + 1)::timestamp AT TIME ZONE st.timezone
		WHERE st.id = public.app_current_store_id()
		GROUP BY st.id
		ON CONFLICT (store_id, sales_date) DO UPDATE
		    SET total_yen = EXCLUDED.total_yen, sale_count = EXCLUDED.sale_count, aggregated_at = EXCLUDED.aggregated_at
		RETURNING d.total_yen, d.sale_count`, job.Args.TargetDate).Scan(&total, &count)
	if errors.Is(err, pgx.ErrNoRows) {
		return runner.Permanent(fmt.Errorf("store %s is not visible in its own tenant transaction", job.Store()))
	}
	if err != nil {
		return err
	}
	a.log(job.Job).Info("aggregated daily sales", "targetDate", job.Args.TargetDate, "totalYen", total, "sales", count)
	return nil
}

// targetDate is the business day an aggregate-daily-sales job works on: its own targetDate, or
// the day before its slot's date in BusinessTimeZone (the database's now() when it has no slot).
func targetDate(ctx context.Context, db jobq.DB, p AggregateDailySales) (string, error) {
	if p.TargetDate != "" {
		if _, err := time.Parse(time.DateOnly, p.TargetDate); err != nil {
			return "", runner.Permanent(fmt.Errorf("targetDate %q is not a date (YYYY-MM-DD)", p.TargetDate))
		}
		return p.TargetDate, nil
	}
	var slot *time.Time
	if !p.SlotAt.IsZero() {
		slot = &p.SlotAt
	}
	var day string
	err := db.QueryRow(ctx, `SELECT to_char((coalesce($1::timestamptz, now()) AT TIME ZONE $2)::date - 1, 'YYYY-MM-DD')`,
		slot, BusinessTimeZone).Scan(&day)
	return day, err
}

// cutoffISO is the retention cutoff a scheduler hands to every store: its slot (or the
// database's now() when it has none) less keep, in UTC with milliseconds. Basing it on the slot
// makes a second run of the same slot produce the same job keys, so it adds nothing.
func cutoffISO(ctx context.Context, db jobq.DB, slotAt time.Time, keep time.Duration) (string, error) {
	var slot *time.Time
	if !slotAt.IsZero() {
		slot = &slotAt
	}
	var cutoff string
	err := db.QueryRow(ctx, `SELECT to_char((coalesce($1::timestamptz, now()) - $2::interval) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
		slot, keep).Scan(&cutoff)
	return cutoff, err
}

// log returns the logger with the fields every job line carries (seed 000 §7.5).
func (a *App) log(job *jobq.Job) *slog.Logger {
	l := a.Log
	if l == nil {
		l = slog.Default()
	}
	store := ""
	if job.StoreID != nil {
		store = *job.StoreID
	}
	return l.With("taskName", job.Task, "jobId", job.ID, "storeId", store, "attempt", job.Attempt)
}
