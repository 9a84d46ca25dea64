// Package dashboard serves jobq's web dashboard for operators: the queues, jobs, dead jobs,
// workers, schedules, settings and audit log of one database, refreshed live, with the operator's
// actions (retry, cancel, delete, pause, drain, detach, demote, run now, settings).
//
// It holds no queue logic. Every page is a read of jobq's tables and functions, and every action
// is one call of an operator function of the SQL engine (jobq.retry_job, jobq.pause_queue, …),
// made on the signed-in person's own database login so that jobq.audit_log names them and the
// database, not the dashboard, decides what they may do.
//
// Without signing in the dashboard is read-only: pages are read through Options.Reader, a pool
// whose login New requires to be unable to change anything (jobq_dashboard, a member of
// jobq_viewer only). Signing in opens a connection as the person's own login with their password
// (PostgreSQL checks it); the session keeps that one connection until it signs out or expires.
// See docs/dashboard.md.
package dashboard

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Options configure a Dashboard.
type Options struct {
	// Reader is the pool the pages of people who have not signed in are read through. Its login
	// must not be able to change the queue: New refuses a superuser, and a member of
	// jobq_operator, jobq_app, worker_runtime or jobq_migrator. Bootstrap's jobq_dashboard login is
	// meant for it. Required.
	Reader *pgxpool.Pool
	// SignIn is the connection configuration people sign in with: New copies it and replaces its
	// user and password with the ones typed into the sign-in form. nil disables signing in, and
	// the dashboard is read-only for everyone.
	SignIn *pgx.ConnConfig
	// BasePath is the path the dashboard is mounted under, without a trailing slash ("" = the
	// root). Mount it with http.StripPrefix(BasePath, dashboard).
	BasePath string
	// SecureCookies marks the session and CSRF cookies Secure (sent over HTTPS only). Default
	// false; set it whenever people reach the dashboard over HTTPS, directly or through a reverse
	// proxy.
	SecureCookies bool
	// TrustProxy takes the client address from the last hop of X-Forwarded-For (for the sign-in
	// rate limit) — set it only behind a reverse proxy that sets that header. Default false.
	TrustProxy bool
	// RequireSignIn hides every page from people who have not signed in. Default false: the
	// pages are readable without signing in, read-only.
	RequireSignIn bool
	// SessionIdle ends a session unused for this long; default 30 minutes.
	SessionIdle time.Duration
	// SessionMax ends a session this long after it signed in, used or not; default 12 hours.
	SessionMax time.Duration
	// Refresh is how often pages refresh themselves in the browser; default 5 seconds, 0 or less
	// keeps the default.
	Refresh time.Duration
	// SignInLimit is how many failed sign-ins a client address (and, separately, a login) may
	// make in SignInWindow before the next attempt is refused without being tried; defaults 5
	// per address and 10 per login in 15 minutes.
	SignInLimit  int
	SignInWindow time.Duration
	// Logger receives one line per action and per sign-in (never a password, session or CSRF
	// token); default slog.Default().
	Logger *slog.Logger
	// Version is shown in the page footer; default "".
	Version string
}

// Dashboard is an http.Handler serving the dashboard. Close it to end its sessions.
type Dashboard struct {
	opts     Options
	mux      *http.ServeMux
	sessions *sessions
	limiter  *limiter
	pages    *renderer
	log      *slog.Logger
	stop     context.CancelFunc
	done     sync.WaitGroup
}

// New checks the reader's login and returns a Dashboard. It starts a goroutine that ends idle
// sessions; Close stops it.
func New(ctx context.Context, opts Options) (*Dashboard, error) {
	if opts.Reader == nil {
		return nil, errors.New("dashboard: Options.Reader is required")
	}
	if opts.SessionIdle <= 0 {
		opts.SessionIdle = 30 * time.Minute
	}
	if opts.SessionMax <= 0 {
		opts.SessionMax = 12 * time.Hour
	}
	if opts.Refresh <= 0 {
		opts.Refresh = 5 * time.Second
	}
	if opts.SignInLimit <= 0 {
		opts.SignInLimit = 5
	}
	if opts.SignInWindow <= 0 {
		opts.SignInWindow = 15 * time.Minute
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	opts.BasePath = strings.TrimRight(opts.BasePath, "/")
	if err := checkReader(ctx, opts.Reader); err != nil {
		return nil, err
	}
	pages, err := newRenderer(opts)
	if err != nil {
		return nil, err
	}
	d := &Dashboard{
		opts:     opts,
		sessions: newSessions(opts.SessionIdle, opts.SessionMax),
		limiter:  newLimiter(opts.SignInLimit, 2*opts.SignInLimit, opts.SignInWindow),
		pages:    pages,
		log:      opts.Logger,
	}
	d.routes()
	sweepCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	d.stop = stop
	d.done.Add(1)
	go func() {
		defer d.done.Done()
		d.sessions.sweep(sweepCtx, time.Minute)
	}()
	return d, nil
}

// Close ends every session (closing its connection) and stops the session sweeper.
func (d *Dashboard) Close() {
	d.stop()
	d.done.Wait()
	d.sessions.closeAll()
}

// ServeHTTP serves one request, with the security headers every response carries. A request
// whose path, query parameters or form fields hold a control character or text that is not UTF-8
// is refused with 400 before any handler runs (inputProblem).
func (d *Dashboard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
	// Every parameter of every route is checked here, before any handler reads it.
	if status, msg := inputProblem(w, r); status != 0 {
		d.log.Warn("dashboard: request refused", "method", r.Method, "path", r.URL.EscapedPath(), "why", msg)
		d.fail(w, r, d.session(r), status, msg)
		return
	}
	d.mux.ServeHTTP(w, r)
}

// checkReader refuses a reader login that could change the queue: the pages of people who have
// not signed in must be read-only because the database says so, not because the dashboard
// promises it.
func checkReader(ctx context.Context, pool *pgxpool.Pool) error {
	var login string
	var super, writer bool
	err := pool.QueryRow(ctx, `SELECT current_user::text, r.rolsuper,
		pg_catalog.pg_has_role(current_user, 'jobq_operator', 'USAGE')
		OR pg_catalog.pg_has_role(current_user, 'jobq_app', 'USAGE')
		OR pg_catalog.pg_has_role(current_user, 'worker_runtime', 'USAGE')
		OR pg_catalog.pg_has_role(current_user, 'jobq_migrator', 'USAGE')
		FROM pg_catalog.pg_roles r WHERE r.rolname = current_user`).Scan(&login, &super, &writer)
	if err != nil {
		return fmt.Errorf("dashboard: check the reader's login: %w", err)
	}
	if super || writer {
		return fmt.Errorf("dashboard: the reader's login %s can change the queue (a superuser, or a member of jobq_operator, jobq_app, worker_runtime or jobq_migrator); connect as jobq_dashboard or another member of jobq_viewer only", login)
	}
	return nil
}
