package dashboard

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
)

// querier is what pages read through: a signed-in session's connection or a read-only
// transaction of the reader pool.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// errSessionLost: the signed-in session's connection broke (the database restarted, or the
// session was ended by an administrator); the person signs in again.
var errSessionLost = errors.New("your session's database connection was lost; sign in again")

// view runs fn on the visitor's database: their session's own connection (one request at a
// time), else a read-only transaction of the reader pool.
func (d *Dashboard) view(ctx context.Context, s *session, fn func(q querier) error) error {
	if s == nil {
		return pgx.BeginTxFunc(ctx, d.opts.Reader, pgx.TxOptions{AccessMode: pgx.ReadOnly},
			func(tx pgx.Tx) error { return fn(tx) })
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn == nil || s.conn.IsClosed() {
		return errSessionLost
	}
	err := fn(s.conn)
	if s.conn.IsClosed() {
		return errSessionLost
	}
	return err
}

// signInResult is why a sign-in did not happen, shown on the form.
type signInResult struct {
	status  int
	message string
}

func (r *signInResult) Error() string { return r.message }

// handleSignIn checks the form's login and password by connecting as that login (PostgreSQL
// checks the password), refuses logins the database accepts without a password, superusers and
// logins that are neither operators nor a store's staff, and starts a session.
func (d *Dashboard) handleSignIn(w http.ResponseWriter, r *http.Request) {
	if d.opts.SignIn == nil {
		d.fail(w, r, nil, http.StatusNotFound, "Signing in is not enabled on this dashboard.")
		return
	}
	if !d.checkCSRF(r, nil) {
		d.fail(w, r, nil, http.StatusForbidden, "This form is out of date or did not come from this dashboard (CSRF check). Reload the page and try again.")
		return
	}
	login, password := r.PostFormValue("login"), r.PostFormValue("password")
	addr := d.clientAddr(r)
	if blocked, retry := d.limiter.blocked(addr, login); blocked {
		w.Header().Set("Retry-After", strconv.Itoa(int(retry.Seconds())+1))
		d.log.Warn("dashboard: sign-in refused: too many failures", "login", login, "addr", addr)
		d.renderSignIn(w, r, http.StatusTooManyRequests, "Too many failed sign-ins. Try again in "+retry.Round(time.Second).String()+".")
		return
	}
	s, err := d.openSession(r.Context(), login, password)
	if err != nil {
		var res *signInResult
		if !errors.As(err, &res) {
			res = &signInResult{http.StatusServiceUnavailable, "The database could not be reached."}
			d.log.Error("dashboard: sign-in failed", "login", login, "error", err)
		}
		if res.status == http.StatusUnauthorized || res.status == http.StatusForbidden {
			d.limiter.fail(addr, login)
		}
		d.log.Warn("dashboard: sign-in refused", "login", login, "addr", addr, "why", res.message)
		d.renderSignIn(w, r, res.status, res.message)
		return
	}
	id := d.sessions.add(s)
	d.setCookie(w, sessionCookie, id, 0)
	d.setCookie(w, csrfCookie, s.csrf, 0)
	d.log.Info("dashboard: signed in", "login", login, "addr", addr, "operator", s.operator, "store", s.storeID)
	http.Redirect(w, r, d.opts.BasePath+"/", http.StatusSeeOther)
}

// openSession connects as login and settles what the session may see.
func (d *Dashboard) openSession(ctx context.Context, login, password string) (*session, error) {
	if login == "" || len(login) > 63 || password == "" || len(password) > 1000 {
		return nil, &signInResult{http.StatusUnauthorized, "Wrong login or password."}
	}
	cfg := d.opts.SignIn.Copy()
	cfg.User, cfg.Password = login, password
	cfg.RuntimeParams = map[string]string{"application_name": "jobq dashboard", "statement_timeout": "5s",
		"plan_cache_mode": "force_custom_plan", "jit": "off"}
	for k, v := range d.opts.SignIn.RuntimeParams {
		if _, set := cfg.RuntimeParams[k]; !set {
			cfg.RuntimeParams[k] = v
		}
	}
	cfg.Fallbacks = nil
	// A request the browser abandons (a click while the live refresh reads) cancels its context:
	// pgx's default answer to that closes the connection, which would sign the person out. Ask the
	// server to cancel the statement instead; the connection is closed only if the server has not
	// answered 10 s later (twice the statement timeout).
	cfg.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: c, DeadlineDelay: 10 * time.Second}
	}
	connectCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	conn, err := pgx.ConnectConfig(connectCtx, cfg)
	if err != nil {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && (pgErr.Code == "28P01" || pgErr.Code == "28000") {
			return nil, &signInResult{http.StatusUnauthorized, "Wrong login or password."}
		}
		return nil, fmt.Errorf("connect as %s: %w", login, err)
	}
	keep := false
	defer func() {
		if !keep {
			_ = conn.Close(context.WithoutCancel(ctx))
		}
	}()
	// A server that lets this login in with any password (trust authentication) would let anybody
	// sign in as anybody: refuse it.
	probe := cfg.Copy()
	probe.Password = randomToken()
	if other, err := pgx.ConnectConfig(connectCtx, probe); err == nil {
		_ = other.Close(context.WithoutCancel(ctx))
		return nil, &signInResult{http.StatusForbidden, "PostgreSQL lets " + login + " in without checking its password (trust authentication), so the dashboard cannot tell who you are. Give this login a password and password authentication (scram-sha-256) in pg_hba.conf."}
	}
	s := &session{login: login, csrf: randomToken(), conn: conn}
	var super, app bool
	if err := conn.QueryRow(connectCtx, `SELECT r.rolsuper,
			pg_catalog.pg_has_role(current_user, 'jobq_operator', 'USAGE'),
			pg_catalog.pg_has_role(current_user, 'jobq_app', 'USAGE')
		FROM pg_catalog.pg_roles r WHERE r.rolname = current_user`).Scan(&super, &s.operator, &app); err != nil {
		return nil, fmt.Errorf("roles of %s: %w", login, err)
	}
	switch {
	case super:
		return nil, &signInResult{http.StatusForbidden, "Superusers cannot sign in to the dashboard: sign in with a login that is a member of jobq_operator."}
	case s.operator:
	case app:
		// A store's staff: the store they are bound to (jobq.bind_store) — the first, by id.
		err := conn.QueryRow(connectCtx, `SELECT b.store_id::text FROM jobq.store_bindings b
			WHERE b.login = session_user ORDER BY b.store_id LIMIT 1`).Scan(&s.storeID)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, &signInResult{http.StatusForbidden, login + " is an application login bound to no store (jobq.bind_store): it cannot sign in."}
		}
		if err != nil {
			return nil, fmt.Errorf("store of %s: %w", login, err)
		}
		if _, err := conn.Exec(connectCtx, `SELECT pg_catalog.set_config('app.current_store_id', $1, false)`, s.storeID); err != nil {
			return nil, fmt.Errorf("store of %s: %w", login, err)
		}
	default:
		return nil, &signInResult{http.StatusForbidden, login + " is not a member of jobq_operator (nor a store's application login): it cannot sign in."}
	}
	keep = true
	return s, nil
}

// handleSignOut ends the session.
func (d *Dashboard) handleSignOut(w http.ResponseWriter, r *http.Request) {
	s := d.session(r)
	if !d.checkCSRF(r, s) {
		d.fail(w, r, s, http.StatusForbidden, "This form is out of date or did not come from this dashboard (CSRF check). Reload the page and try again.")
		return
	}
	if c, err := r.Cookie(sessionCookie); err == nil {
		d.sessions.remove(c.Value)
	}
	d.setCookie(w, sessionCookie, "", -1)
	d.setCookie(w, csrfCookie, "", -1)
	if s != nil {
		d.log.Info("dashboard: signed out", "login", s.login)
	}
	http.Redirect(w, r, d.opts.BasePath+"/", http.StatusSeeOther)
}

// session returns the request's signed-in session, or nil.
func (d *Dashboard) session(r *http.Request) *session {
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return nil
	}
	return d.sessions.get(c.Value)
}
