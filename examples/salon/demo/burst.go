package demo

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/examples/salon"
	"github.com/jobqdev/jobq/runner"
)

// bouncingAddress is the invitation the demo's SMTP server always refuses (451): its mail is
// recorded, and its delivery job (given the 3 attempts of the mail job) retries and dies.
const bouncingAddress = "bounce@salon.invalid"

// seed creates n stores and their business rows as the superuser (row-level security does not
// apply to it), with dates relative to the database's clock: reservations past and before their
// expiry, yesterday's sales (Tokyo), customers and notes soft-deleted long ago and recently,
// expired and live operator sessions, and an expired invitation per store. It returns the store
// ids.
func seed(ctx context.Context, db *pgx.Conn, n int) ([]string, error) {
	rows, err := db.Query(ctx, `
		INSERT INTO public.store (name) SELECT 'Salon ' || i FROM generate_series(1, $1) AS i RETURNING id::text`, n)
	if err != nil {
		return nil, err
	}
	stores, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, err
	}
	for _, stmt := range strings.Split(`
		INSERT INTO public.tentative_reservation (store_id, starts_at, expires_at)
		SELECT s.id, now() + i * interval '1 day', now() + (i - 4) * interval '10 minutes'
		FROM public.store s, generate_series(1, 6) AS i WHERE s.id = ANY($1::uuid[]);

		INSERT INTO public.sale (store_id, sold_at, amount_yen)
		SELECT s.id,
		       ((date_trunc('day', now() AT TIME ZONE 'Asia/Tokyo') - interval '1 day' + interval '9 hours' + i * interval '20 minutes')
		            AT TIME ZONE 'Asia/Tokyo'),
		       1000 + (i * 1370) % 9000
		FROM public.store s, generate_series(1, 30) AS i WHERE s.id = ANY($1::uuid[]);

		INSERT INTO public.customer (store_id, name, email, deleted_at)
		SELECT s.id, 'Customer ' || i, 'customer' || i || '@example.com',
		       CASE WHEN i <= 3 THEN now() - interval '120 days' WHEN i <= 5 THEN now() - interval '10 days' END
		FROM public.store s, generate_series(1, 10) AS i WHERE s.id = ANY($1::uuid[]);

		INSERT INTO public.customer_note (store_id, customer_id, body, deleted_at)
		SELECT c.store_id, c.id, 'note ' || i, CASE WHEN i = 1 THEN now() - interval '9 days' WHEN i = 2 THEN now() - interval '1 day' END
		FROM public.customer c, generate_series(1, 3) AS i WHERE c.deleted_at IS NULL AND c.store_id = ANY($1::uuid[]);

		INSERT INTO public.operator_session (store_id, operator_email, expires_at)
		SELECT s.id, 'operator' || i || '@example.com', now() + (i - 3.5) * interval '1 hour'
		FROM public.store s, generate_series(1, 4) AS i WHERE s.id = ANY($1::uuid[]);

		INSERT INTO public.operator_invitation (store_id, email, expires_at)
		SELECT s.id, 'late@example.com', now() - interval '1 day' FROM public.store s WHERE s.id = ANY($1::uuid[])`, ";") {
		if _, err := db.Exec(ctx, stmt, stores); err != nil {
			return nil, err
		}
	}
	return stores, nil
}

// burst enqueues the demo's work and returns the database time just before it. As the API
// (salon_api, one tenant transaction per store): an invitation row and its mail job together,
// so the job exists exactly when the invitation does, plus one invitation to bouncingAddress
// with 3 quick attempts. As an operator: every scheduler the cron table runs, and pings.
func burst(ctx context.Context, admin *pgx.Conn, apiURL string, stores []string, pings int) (time.Time, error) {
	var at time.Time
	if err := admin.QueryRow(ctx, "SELECT now()").Scan(&at); err != nil {
		return at, err
	}
	api, err := pgx.Connect(ctx, apiURL)
	if err != nil {
		return at, fmt.Errorf("connect as salon_api: %w", err)
	}
	defer api.Close(context.WithoutCancel(ctx))
	for i, store := range stores {
		if err := invite(ctx, api, store, fmt.Sprintf("new-operator-%d@example.com", i+1), nil); err != nil {
			return at, err
		}
	}
	bounce := &jobq.EnqueueOptions{MaxAttempts: 3, BackoffBase: 300 * time.Millisecond, BackoffMax: time.Second}
	if err := invite(ctx, api, stores[0], bouncingAddress, bounce); err != nil {
		return at, err
	}

	demo := salon.Cleanup{Reason: "demo"}
	enqueues := []func() (int64, error){
		func() (int64, error) {
			return salon.ExpireTentativeReservationsTask.Enqueue(ctx, admin, salon.ExpireTentativeReservations{Reason: "demo"}, nil)
		},
		func() (int64, error) {
			return salon.AggregateDailySalesTask.Enqueue(ctx, admin, salon.AggregateDailySales{Reason: "demo"}, nil)
		},
		func() (int64, error) { return salon.CleanupDeletedCustomersTask.Enqueue(ctx, admin, demo, nil) },
		func() (int64, error) { return salon.PurgeDeletedCustomerNotesTask.Enqueue(ctx, admin, demo, nil) },
		func() (int64, error) { return salon.CleanupExpiredOperatorSessionsTask.Enqueue(ctx, admin, demo, nil) },
		func() (int64, error) {
			return salon.CleanupExpiredOperatorInvitationsTask.Enqueue(ctx, admin, demo, nil)
		},
	}
	for _, enqueue := range enqueues {
		if _, err := enqueue(); err != nil {
			return at, err
		}
	}
	specs := make([]jobq.JobSpec, pings)
	for i := range specs {
		specs[i] = salon.PingTask.Spec(salon.Ping{}, nil)
	}
	if pings > 0 {
		if _, err := jobq.NewClient(admin).EnqueueMany(ctx, specs); err != nil {
			return at, err
		}
	}
	return at, nil
}

// invite does what the salon's API does when an owner invites an operator: in one tenant
// transaction, insert the invitation and enqueue its mail.
func invite(ctx context.Context, api *pgx.Conn, store, email string, opts *jobq.EnqueueOptions) error {
	return runner.WithTenant(ctx, api, store, func(ctx context.Context, tx pgx.Tx) error {
		var id string
		if err := tx.QueryRow(ctx, `INSERT INTO public.operator_invitation (email, expires_at)
			VALUES ($1, now() + interval '7 days') RETURNING id::text`, email).Scan(&id); err != nil {
			return err
		}
		o := jobq.EnqueueOptions{}
		if opts != nil {
			o = *opts
		}
		o.JobKey = salon.InvitationEmailKey(id)
		_, err := salon.SendOperatorInvitationEmailTask.Enqueue(ctx, tx, store,
			salon.SendOperatorInvitationEmail{InvitationID: id}, &o)
		return err
	})
}
