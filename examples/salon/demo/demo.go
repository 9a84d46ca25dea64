// Package demo is `salon demo`: the salon reference application end to end in one command. It
// starts a throwaway PostgreSQL cluster (or uses DATABASE_URL), installs jobq and the salon
// schema, adds stores with data, starts the salon worker as a child process, enqueues a burst of
// work the way the API and the cron table would, shows progress, and prints a summary of what
// the queue did and what landed in the business tables.
package demo

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/jobqdev/jobq/examples/salon"
	"github.com/jobqdev/jobq/examples/salon/smtpsink"
	"github.com/jobqdev/jobq/internal/localpg"
	"github.com/jobqdev/jobq/migrate"
)

const usage = `usage: salon demo [flags]

Without DATABASE_URL: starts a throwaway PostgreSQL cluster in a temporary folder (run by the OS
user postgres when started as root), creates database "salon", and removes it all at the end.
With DATABASE_URL (a superuser URL): uses that database; the worker and migrator connect with
JOBQ_WORKER_DATABASE_URL and JOBQ_MIGRATE_DATABASE_URL (or the old WORKER_DATABASE_URL and DATABASE_URL_MIGRATOR) when set, else as worker_runtime and jobq_migrator
on DATABASE_URL's host without a password. The demo writes stores and business rows there.

Then: bootstrap and migrations, stores with reservations, sales, customers, notes, sessions and
invitations, jobq's web dashboard on http://127.0.0.1:8080/ (another port when that one is taken;
on the throwaway cluster with a login salon_operator and a printed password to sign in with), the salon worker (a child process: salon worker), a burst of jobs (every
scheduler, invitation mails to a loopback SMTP server, one mail that the server keeps refusing
so that its job retries and dies, pings), progress every half second, and a summary. Ctrl-C
stops the worker gracefully and removes the throwaway cluster. On a terminal the dashboard stays up
after the summary until Ctrl-C.
`

// Options are the demo's flags.
type Options struct {
	Stores      int           // --stores: stores to create (default 5)
	Pings       int           // --pings: ping jobs in the burst (default 200)
	Concurrency int           // --concurrency: the worker's concurrency (default 10)
	Timeout     time.Duration // --timeout: longest wait for the burst to finish (default 2m)
}

// Main runs the demo and returns the exit status.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("salon demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage); fs.PrintDefaults() }
	var o Options
	fs.IntVar(&o.Stores, "stores", 5, "stores to create")
	fs.IntVar(&o.Pings, "pings", 200, "ping jobs in the burst")
	fs.IntVar(&o.Concurrency, "concurrency", 10, "the worker's concurrency")
	fs.DurationVar(&o.Timeout, "timeout", 2*time.Minute, "longest wait for the burst to finish")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 || o.Stores < 1 || o.Pings < 0 || o.Concurrency < 1 || o.Timeout <= 0 {
		fmt.Fprintln(stderr, "salon demo: takes no arguments; --stores and --concurrency must be at least 1, --timeout positive")
		return 2
	}
	if err := run(ctx, o, stdout); err != nil {
		if ctx.Err() != nil {
			fmt.Fprintln(stdout, "\nsalon demo: interrupted; everything it started is stopped and removed")
			return 130
		}
		fmt.Fprintln(stderr, "salon demo:", err)
		return 1
	}
	return 0
}

// urls are the connection URLs of the demo's database, one per role.
type urls struct {
	admin, migrator, worker, api, dashboard string
}

func run(ctx context.Context, o Options, out io.Writer) error {
	say := func(format string, args ...any) { fmt.Fprintf(out, format+"\n", args...) }
	var u urls
	throwaway := false
	if admin := os.Getenv("DATABASE_URL"); admin != "" {
		var err error
		if u, err = urlsFrom(admin); err != nil {
			return err
		}
		say("▶ using DATABASE_URL (%s)", redact(admin))
	} else {
		say("▶ starting a throwaway PostgreSQL cluster …")
		throwaway = true
		cluster, err := localpg.Start(context.WithoutCancel(ctx), localpg.Options{HBA: []string{dashboardHBA}})
		if err != nil {
			return fmt.Errorf("%w\n(install PostgreSQL 15 with `make deps`, or set DATABASE_URL)", err)
		}
		defer func() {
			if err := cluster.Remove(); err != nil {
				say("could not remove the throwaway cluster in %s: %v", cluster.Dir, err)
			} else {
				say("▶ throwaway cluster removed")
			}
		}()
		if err := createDatabase(ctx, cluster.URL("postgres", "postgres"), "salon"); err != nil {
			return err
		}
		u = urls{admin: cluster.URL("postgres", "salon"), migrator: cluster.URL("jobq_migrator", "salon"),
			worker: cluster.URL("worker_runtime", "salon"), api: cluster.URL("salon_api", "salon"),
			dashboard: cluster.URL("jobq_dashboard", "salon")}
		say("  PostgreSQL on 127.0.0.1:%d, database salon", cluster.Port)
	}

	start := time.Now()
	if err := install(ctx, u); err != nil {
		return err
	}
	say("▶ bootstrap and migrations applied (jobq, then the salon) in %s", since(start))

	admin, err := pgx.Connect(ctx, u.admin)
	if err != nil {
		return fmt.Errorf("connect as superuser: %w", err)
	}
	defer admin.Close(context.WithoutCancel(ctx))
	stores, err := seed(ctx, admin, o.Stores)
	if err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	say("▶ %d stores with reservations, sales, customers, notes, sessions and invitations", len(stores))
	var oldCustomers int
	if err := admin.QueryRow(ctx, `SELECT count(*) FROM public.customer WHERE deleted_at < now() - interval '90 days'`).Scan(&oldCustomers); err != nil {
		return err
	}

	dash, err := startDashboard(ctx, admin, u.dashboard, throwaway)
	if err != nil {
		return fmt.Errorf("dashboard: %w", err)
	}
	defer dash.stop()
	if dash.Password != "" {
		say("▶ dashboard on %s — read-only; sign in as %s, password %s, to retry, pause or drain", dash.URL, demoOperator, dash.Password)
	} else {
		say("▶ dashboard on %s (read-only)", dash.URL)
	}

	sink, err := smtpsink.Start()
	if err != nil {
		return fmt.Errorf("smtp sink: %w", err)
	}
	defer sink.Close()
	sink.RejectRecipient(bouncingAddress)
	say("▶ SMTP server on %s (it refuses %s with 451, every time)", sink.Addr(), bouncingAddress)

	w, err := startWorker(ctx, u.worker, sink.Addr(), o.Concurrency)
	if err != nil {
		return err
	}
	defer w.stop(out)
	say("▶ salon worker started (pid %d, as worker_runtime; log in %s)", w.cmd.Process.Pid, w.logPath)
	ready, err := w.waitReady(ctx, 30*time.Second)
	if err != nil {
		return err
	}
	say("  /readyz answered 200 after %s (seed limit: 10 s)", ready.Round(time.Millisecond))

	burstAt, err := burst(ctx, admin, u.api, stores, o.Pings)
	if err != nil {
		return fmt.Errorf("burst: %w", err)
	}
	say("▶ burst enqueued: 6 schedulers, %d invitation mails (1 bouncing), %d pings", len(stores)+1, o.Pings)

	if err := watch(ctx, admin, out, burstAt, o.Timeout, sink); err != nil {
		return err
	}
	pickup, err := idlePickup(ctx, admin, 20)
	if err != nil {
		return fmt.Errorf("pickup probe: %w", err)
	}
	shutdown := w.stop(out)
	say("▶ worker stopped gracefully in %s (seed limit: 30 s)", shutdown.Round(time.Millisecond))
	if err := summary(ctx, admin, out, burstAt, sink, limits{ready: ready, shutdown: shutdown, pickup: pickup, oldCustomers: oldCustomers}); err != nil {
		return err
	}
	if isTerminal(out) {
		// A person is watching: keep the dashboard up on the finished demo until Ctrl-C.
		say("▶ the dashboard stays up on %s; Ctrl-C stops it and removes everything", dash.URL)
		<-ctx.Done()
		say("")
	}
	return nil
}

// install applies jobq's and the salon's bootstrap (superuser) and migrations (migrator).
func install(ctx context.Context, u urls) error {
	conn, err := pgx.Connect(ctx, u.admin)
	if err != nil {
		return fmt.Errorf("connect as superuser: %w", err)
	}
	err = salon.Bootstrap(ctx, conn, migrate.BootstrapOptions{}, "")
	conn.Close(context.WithoutCancel(ctx))
	if err != nil {
		return err
	}
	_, _, err = salon.Migrate(ctx, u.migrator)
	return err
}

func createDatabase(ctx context.Context, url, name string) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	_, err = conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	return err
}

// urlsFrom derives the role URLs from a superuser URL: same host and database, the role's name,
// no password, unless JOBQ_WORKER_DATABASE_URL / JOBQ_MIGRATE_DATABASE_URL / SALON_API_URL (or the
// old WORKER_DATABASE_URL / DATABASE_URL_MIGRATOR) say otherwise.
func urlsFrom(admin string) (urls, error) {
	parsed, err := url.Parse(admin)
	if err != nil || parsed.Scheme == "" {
		return urls{}, fmt.Errorf("DATABASE_URL must be a postgres:// URL")
	}
	as := func(role string, variables ...string) string {
		for _, variable := range variables {
			if v := os.Getenv(variable); v != "" {
				return v
			}
		}
		c := *parsed
		c.User = url.User(role)
		return c.String()
	}
	return urls{admin: admin, migrator: as("jobq_migrator", "JOBQ_MIGRATE_DATABASE_URL", "DATABASE_URL_MIGRATOR"),
		worker: as("worker_runtime", "JOBQ_WORKER_DATABASE_URL", "WORKER_DATABASE_URL"), api: as("salon_api", "SALON_API_URL"),
		dashboard: as("jobq_dashboard", "JOBQ_DASHBOARD_DATABASE_URL")}, nil
}

func redact(s string) string {
	if p, err := url.Parse(s); err == nil && p.User != nil {
		if _, has := p.User.Password(); has {
			p.User = url.UserPassword(p.User.Username(), "xxxxx")
		}
		return p.String()
	}
	return s
}

func since(t time.Time) time.Duration { return time.Since(t).Round(time.Millisecond) }
