package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/jobqdev/jobq/dashboard"
)

type dashboardCmd struct {
	Listen        string        `name:"listen" env:"JOBQ_DASHBOARD_LISTEN" default:"127.0.0.1:8080" help:"address to serve on; the default answers this machine only (put a reverse proxy with TLS in front to serve others, docs/dashboard.md)"`
	DatabaseURL   string        `name:"database-url" env:"JOBQ_DASHBOARD_DATABASE_URL" secret:"" placeholder:"URL" help:"URL of the read-only login the pages are read as: jobq_dashboard or another member of jobq_viewer only (default $$JOBQ_DASHBOARD_DATABASE_URL, then libpq's PG* variables). People sign in to the same host and database with their own login and password."`
	NoSignIn      bool          `name:"no-sign-in" env:"JOBQ_DASHBOARD_NO_SIGN_IN" help:"disable signing in: the dashboard stays read-only for everyone"`
	RequireSignIn bool          `name:"require-sign-in" env:"JOBQ_DASHBOARD_REQUIRE_SIGN_IN" help:"show nothing to people who have not signed in"`
	SecureCookies bool          `name:"secure-cookies" env:"JOBQ_DASHBOARD_SECURE_COOKIES" help:"send cookies over HTTPS only: set it when people reach the dashboard over HTTPS"`
	TrustProxy    bool          `name:"trust-proxy" env:"JOBQ_DASHBOARD_TRUST_PROXY" help:"count sign-in failures by the client address a reverse proxy puts last in X-Forwarded-For"`
	BasePath      string        `name:"base-path" env:"JOBQ_DASHBOARD_BASE_PATH" placeholder:"PATH" help:"serve under this path (e.g. /jobq) behind a proxy that forwards it unchanged"`
	Refresh       time.Duration `name:"refresh" env:"JOBQ_DASHBOARD_REFRESH" help:"how often pages refresh themselves in the browser; 0 = the dashboard's default (dashboard.Options.Refresh)"`
	SessionIdle   time.Duration `name:"session-idle" env:"JOBQ_DASHBOARD_SESSION_IDLE" help:"end a session unused for this long; 0 = the dashboard's default (dashboard.Options.SessionIdle)"`
}

// Help is the long help of jobq dashboard.
func (c *dashboardCmd) Help() string {
	return `Serves the web dashboard: queues, jobs, dead jobs, workers, schedules, settings and the
audit log, refreshed live. Read-only until a person signs in with their own database login (a
member of jobq_operator, or a store's application login bound with jobq.bind_store to see one
store); their actions then run as that login and the audit log names it. See docs/dashboard.md.`
}

func (c *dashboardCmd) Run(e *env) error {
	ctx := e.ctx
	cfg, err := pgxpool.ParseConfig(c.DatabaseURL)
	if err != nil {
		return usageError{fmt.Sprintf("--database-url / JOBQ_DASHBOARD_DATABASE_URL: %v", err)}
	}
	cfg.ConnConfig.RuntimeParams["application_name"] = "jobq dashboard"
	cfg.ConnConfig.RuntimeParams["statement_timeout"] = "5s"
	cfg.ConnConfig.RuntimeParams["plan_cache_mode"] = "force_custom_plan"
	cfg.MaxConns = 4
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("connect: %w", explain(err))
	}
	defer pool.Close()
	opts := dashboard.Options{
		Reader: pool, BasePath: c.BasePath, SecureCookies: c.SecureCookies, TrustProxy: c.TrustProxy,
		RequireSignIn: c.RequireSignIn, Refresh: c.Refresh, SessionIdle: c.SessionIdle,
		Logger:  slog.New(slog.NewTextHandler(e.stderr, nil)),
		Version: dashboardVersion(),
	}
	if !c.NoSignIn {
		signIn, err := pgx.ParseConfig(c.DatabaseURL)
		if err != nil {
			return usageError{err.Error()}
		}
		opts.SignIn = signIn
	}
	d, err := dashboard.New(ctx, opts)
	if err != nil {
		return err
	}
	defer d.Close()
	var h http.Handler = d
	if opts.BasePath != "" {
		mux := http.NewServeMux()
		mux.Handle(opts.BasePath+"/", http.StripPrefix(opts.BasePath, d))
		h = mux
	}
	ln, err := net.Listen("tcp", c.Listen)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, WriteTimeout: 60 * time.Second}
	fmt.Fprintf(e.stdout, "jobq dashboard: http://%s%s/\n", ln.Addr(), opts.BasePath)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		shut, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(shut); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
}

// dashboardVersion is the module version and short commit shown in the dashboard's footer.
func dashboardVersion() string {
	v := buildVersion()
	if len(v.Commit) >= 7 {
		return v.Version + " " + v.Commit[:7]
	}
	return v.Version
}
