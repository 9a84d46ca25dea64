package demo

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/jobqdev/jobq/examples/salon/smtpsink"
)

// watch prints the queue's state every half second until no job is left in jobq.jobs (live or
// waiting to retry), or timeout passes. On a terminal the line is rewritten in place.
func watch(ctx context.Context, db *pgx.Conn, out io.Writer, since time.Time, timeout time.Duration, sink *smtpsink.Sink) error {
	inPlace := isTerminal(out)
	start := time.Now()
	for {
		var queued, running, retrying, succeeded, dead int
		err := db.QueryRow(ctx, `
			SELECT count(*) FILTER (WHERE state = 'queued'), count(*) FILTER (WHERE state = 'running'),
			       count(*) FILTER (WHERE state = 'retry_pending'),
			       (SELECT count(*) FROM jobq.job_history WHERE state = 'succeeded' AND created_at >= $1),
			       (SELECT count(*) FROM jobq.job_history WHERE state = 'dead' AND created_at >= $1)
			FROM jobq.jobs`, since).Scan(&queued, &running, &retrying, &succeeded, &dead)
		if err != nil {
			return err
		}
		line := fmt.Sprintf("  %5.1fs  queued %4d  running %3d  retrying %2d  succeeded %4d  dead %d  mails %d",
			time.Since(start).Seconds(), queued, running, retrying, succeeded, dead, len(sink.Messages()))
		if inPlace {
			fmt.Fprintf(out, "\r%s", line)
		} else {
			fmt.Fprintln(out, line)
		}
		if queued+running+retrying == 0 {
			if inPlace {
				fmt.Fprintln(out)
			}
			return nil
		}
		if time.Since(start) > timeout {
			return fmt.Errorf("jobs still live after %s", timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// summary prints what the queue did with the jobs created since, and what landed in the
// business tables.
// limits are the demo's measurements of the seed's non-functional limits.
type limits struct {
	ready, shutdown time.Duration
	pickup          []float64 // milliseconds, sorted
	oldCustomers    int       // customers deleted over 90 days ago, before the burst
}

// idlePickup enqueues n pings one at a time on the idle worker, each after the previous
// finished, and returns their pickup times (run_at → claimed_at, the database's clock) in
// milliseconds, sorted.
func idlePickup(ctx context.Context, db *pgx.Conn, n int) ([]float64, error) {
	var ms []float64
	for range n {
		var id int64
		if err := db.QueryRow(ctx, `SELECT jobq.enqueue('ping', '{}')`).Scan(&id); err != nil {
			return nil, err
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			var pick *float64
			err := db.QueryRow(ctx, `SELECT extract(epoch FROM claimed_at - run_at) * 1000 FROM jobq.job_history WHERE id = $1`, id).Scan(&pick)
			if err == nil && pick != nil {
				ms = append(ms, *pick)
				break
			}
			if err != nil && err != pgx.ErrNoRows {
				return nil, err
			}
			if time.Now().After(deadline) {
				return nil, fmt.Errorf("ping %d was not picked up within 10 s", id)
			}
			time.Sleep(2 * time.Millisecond)
		}
	}
	sort.Float64s(ms)
	return ms, nil
}

func summary(ctx context.Context, db *pgx.Conn, out io.Writer, since time.Time, sink *smtpsink.Sink, l limits) error {
	fmt.Fprintln(out, "\n── Jobs (jobq.job_history) ─────────────────────────────────────────────")
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "task\tstate\tjobs\tattempts\twait p50 ms\trun p50 ms\trun max ms\t")
	rows, err := db.Query(ctx, `
		SELECT task, state, count(*), sum(attempt),
		       percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM claimed_at - run_at)) * 1000,
		       percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM finished_at - claimed_at)) * 1000,
		       max(extract(epoch FROM finished_at - claimed_at)) * 1000
		FROM jobq.job_history WHERE created_at >= $1
		GROUP BY task, state ORDER BY task, state`, since)
	if err != nil {
		return err
	}
	for rows.Next() {
		var task, state string
		var n, attempts int64
		var wait, run, runMax *float64
		if err := rows.Scan(&task, &state, &n, &attempts, &wait, &run, &runMax); err != nil {
			return err
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\t%s\t\n", task, state, n, attempts, num(wait), num(run), num(runMax))
	}
	if err := rows.Err(); err != nil {
		return err
	}
	tw.Flush()

	var deadTask, deadError string
	var deadAttempts int
	err = db.QueryRow(ctx, `SELECT task, attempt, coalesce(error_code || ': ', '') || coalesce(last_error, '')
		FROM jobq.job_history WHERE state = 'dead' AND created_at >= $1 ORDER BY id LIMIT 1`, since).
		Scan(&deadTask, &deadAttempts, &deadError)
	if err == nil {
		fmt.Fprintf(out, "\nDead: %s after %d attempts: %s\n", deadTask, deadAttempts, firstLine(deadError))
	} else if err != pgx.ErrNoRows {
		return err
	}

	fmt.Fprintln(out, "\n── Business tables ─────────────────────────────────────────────────────")
	var expired, tentative, days, removedCustomers, keptDeleted, alive, notesLeft, notesDeleted, sessions, invitations, deliveries int
	var salesTotal int64
	err = db.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM public.tentative_reservation WHERE status = 'expired'),
		(SELECT count(*) FROM public.tentative_reservation WHERE status = 'tentative'),
		(SELECT count(*) FROM public.daily_sales),
		(SELECT coalesce(sum(total_yen), 0) FROM public.daily_sales),
		$1::int - (SELECT count(*) FROM public.customer WHERE deleted_at < now() - interval '90 days'),
		(SELECT count(*) FROM public.customer WHERE deleted_at IS NOT NULL),
		(SELECT count(*) FROM public.customer WHERE deleted_at IS NULL),
		(SELECT count(*) FROM public.customer_note),
		(SELECT count(*) FROM public.customer_note WHERE deleted_at IS NOT NULL),
		(SELECT count(*) FROM public.operator_session),
		(SELECT count(*) FROM public.operator_invitation),
		(SELECT count(*) FROM public.invitation_email_delivery WHERE sent_at IS NOT NULL)`, l.oldCustomers).
		Scan(&expired, &tentative, &days, &salesTotal, &removedCustomers, &keptDeleted, &alive, &notesLeft, &notesDeleted,
			&sessions, &invitations, &deliveries)
	if err != nil {
		return err
	}
	var dayList string
	_ = db.QueryRow(ctx, `SELECT coalesce(string_agg(DISTINCT sales_date::text, ', '), '') FROM public.daily_sales`).Scan(&dayList)
	fmt.Fprintf(out, "tentative reservations   %d expired, %d still held\n", expired, tentative)
	fmt.Fprintf(out, "daily sales              %d store-days (%s), ¥%d in all\n", days, dayList, salesTotal)
	fmt.Fprintf(out, "customers                %d removed for good (deleted > 90 days ago), %d recently deleted kept, %d active\n",
		removedCustomers, keptDeleted, alive)
	fmt.Fprintf(out, "customer notes           %d left (%d deleted within 7 days kept)\n", notesLeft, notesDeleted)
	fmt.Fprintf(out, "operator sessions        %d left (the expired ones removed)\n", sessions)
	fmt.Fprintf(out, "operator invitations     %d left (the expired ones removed)\n", invitations)
	msgs := sink.Messages()
	fmt.Fprintf(out, "invitation mails         %d delivered to the SMTP server, %d outbox rows marked sent, %d deliveries refused\n",
		len(msgs), deliveries, sink.Refused())

	fmt.Fprintln(out, "\n── Seed 000 non-functional limits ──────────────────────────────────────")
	var fanOut *float64
	if err := db.QueryRow(ctx, `
		SELECT extract(epoch FROM max(c.created_at) - s.claimed_at) * 1000
		FROM jobq.job_history s JOIN jobq.job_history c ON c.task = 'expire-tentative-for-store' AND c.created_at >= s.claimed_at
		WHERE s.task = 'expire-tentative-reservations' AND s.created_at >= $1
		GROUP BY s.id ORDER BY s.id LIMIT 1`, since).Scan(&fanOut); err != nil && err != pgx.ErrNoRows {
		return err
	}
	fmt.Fprintf(out, "pickup on an idle worker (%d pings)      p50 %.2f ms, max %.2f ms   (limit 5 s)\n",
		len(l.pickup), l.pickup[len(l.pickup)/2], l.pickup[len(l.pickup)-1])
	fmt.Fprintf(out, "fan-out to every store enqueued in       %s ms   (limit 1 min for 100 stores; try --stores 100)\n", num(fanOut))
	fmt.Fprintf(out, "worker ready after start                 %s   (limit 10 s)\n", l.ready.Round(time.Millisecond))
	fmt.Fprintf(out, "graceful shutdown                        %s   (limit 30 s)\n", l.shutdown.Round(time.Millisecond))
	return nil
}

func num(f *float64) string {
	if f == nil {
		return "-"
	}
	return fmt.Sprintf("%.1f", *f)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
