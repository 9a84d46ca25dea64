package dashboard

import (
	"context"
	"errors"
	"io/fs"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/jobqdev/jobq"
)

// routes registers every page and action. Pages are GET; actions are POST, need a signed-in
// session and a CSRF token, and are each one call of a jobq SQL function. What a page shows of
// the jobs is decided by the database (row-level security on the visitor's login); the pages
// and actions of the fleet (workers, schedules, settings, audit log, queue pauses, the leader)
// are refused to a store's staff here as well (fleetOnly), before any read.
func (d *Dashboard) routes() {
	m := http.NewServeMux()
	static, _ := fs.Sub(staticFiles, "static")
	m.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	m.HandleFunc("GET /{$}", d.pageHandler("overview", "Overview", d.overview))
	m.HandleFunc("GET /jobs", d.pageHandler("jobs", "Jobs", d.jobs))
	m.HandleFunc("GET /jobs/{id}", d.pageHandler("job", "Job", d.job))
	m.HandleFunc("GET /dead", d.pageHandler("dead", "Dead jobs", d.dead))
	m.HandleFunc("GET /workers", d.fleetOnly(d.pageHandler("workers", "Workers", d.workers)))
	m.HandleFunc("GET /schedules", d.fleetOnly(d.pageHandler("schedules", "Schedules", d.schedules)))
	m.HandleFunc("GET /settings", d.fleetOnly(d.pageHandler("settings", "Settings", d.settings)))
	m.HandleFunc("GET /audit", d.fleetOnly(d.pageHandler("audit", "Audit log", d.audit)))
	m.HandleFunc("GET /signin", func(w http.ResponseWriter, r *http.Request) { d.renderSignIn(w, r, http.StatusOK, "") })
	m.HandleFunc("POST /signin", d.handleSignIn)
	m.HandleFunc("POST /signout", d.handleSignOut)
	m.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("ok\n")) })

	m.HandleFunc("POST /jobs/{id}/{action}", d.action(d.jobAction))
	m.HandleFunc("POST /dead/bulk", d.action(d.deadBulk))
	m.HandleFunc("POST /queues/{queue}/{action}", d.fleetOnly(d.action(d.queueAction)))
	m.HandleFunc("POST /workers/{id}/{action}", d.fleetOnly(d.action(d.workerAction)))
	m.HandleFunc("POST /leader/demote", d.fleetOnly(d.action(d.demote)))
	m.HandleFunc("POST /schedules/{name}/{action}", d.fleetOnly(d.action(d.scheduleAction)))
	m.HandleFunc("POST /settings/{name}", d.fleetOnly(d.action(d.settingAction)))
	d.mux = m
}

// loader reads a page's data; it returns the page's HTTP status (0 = 200).
type loader func(ctx context.Context, r *http.Request, s *session, q querier, p *page) (int, error)

// pageHandler renders page name with the data its loader reads on the visitor's database.
func (d *Dashboard) pageHandler(name, title string, load loader) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s := d.session(r)
		if s == nil && d.opts.RequireSignIn {
			http.Redirect(w, r, d.opts.BasePath+"/signin", http.StatusSeeOther)
			return
		}
		p := d.newPage(w, r, s, name, title)
		status := http.StatusOK
		err := d.view(r.Context(), s, func(q querier) error {
			// The database's clock; for the reader's transaction also no JIT (its compile time
			// is longer than these reads) and a plan per filter's values.
			if err := q.QueryRow(r.Context(), `SELECT now(), set_config('jit', 'off', true) <> '',
					set_config('plan_cache_mode', 'force_custom_plan', true) <> ''`).Scan(&p.Now, new(bool), new(bool)); err != nil {
				return err
			}
			st, err := load(r.Context(), r, s, q, &p)
			if st != 0 {
				status = st
			}
			return err
		})
		if err != nil {
			d.readFailed(w, r, s, err)
			return
		}
		d.pages.render(w, r, status, p)
	}
}

func (d *Dashboard) newPage(w http.ResponseWriter, r *http.Request, s *session, name, title string) page {
	p := page{Name: name, Title: title, Base: d.opts.BasePath, CanSign: d.opts.SignIn != nil,
		CSRF: d.csrfToken(w, r, s), Refresh: d.opts.Refresh.Milliseconds(), Path: d.opts.BasePath + r.URL.RequestURI(),
		Version: d.opts.Version, Now: time.Now()}
	if s != nil {
		p.Login, p.Operator, p.StoreID = s.login, s.operator, s.storeID
		if f := s.takeFlash(); f != nil {
			p.Flash, p.FlashBad = f.text, f.bad
		}
	}
	return p
}

// readFailed answers a page whose reads failed: a lost session signs out, a refusal by the
// database (permission, not found) is shown as such, anything else is a 500 with the error.
func (d *Dashboard) readFailed(w http.ResponseWriter, r *http.Request, s *session, err error) {
	var je *jobq.Error
	switch {
	case errors.Is(err, errSessionLost):
		if c, cerr := r.Cookie(sessionCookie); cerr == nil {
			d.sessions.remove(c.Value)
		}
		d.setCookie(w, sessionCookie, "", -1)
		d.renderSignIn(w, r, http.StatusUnauthorized, err.Error())
	case isTimeout(err):
		d.fail(w, r, s, http.StatusServiceUnavailable, "The page took longer than the dashboard's statement timeout (5 s): a filter that matches few rows walks the whole table it filters. Narrow it with the time filter or a queue.")
	case errors.Is(err, jobq.ErrNotFound):
		d.fail(w, r, s, http.StatusNotFound, "Not found: "+err.Error())
	case isPermission(err):
		d.fail(w, r, s, http.StatusForbidden, "Your login may not read this page: "+err.Error())
	case errors.As(err, &je):
		d.fail(w, r, s, http.StatusBadRequest, je.Error())
	default:
		d.log.Error("dashboard: page failed", "path", r.URL.Path, "error", err)
		d.fail(w, r, s, http.StatusInternalServerError, "The page could not be read: "+err.Error())
	}
}

// fail renders the error page with status and message.
func (d *Dashboard) fail(w http.ResponseWriter, r *http.Request, s *session, status int, msg string) {
	p := d.newPage(w, r, s, "error", http.StatusText(status))
	p.Data = msg
	d.pages.render(w, r, status, p)
}

func (d *Dashboard) renderSignIn(w http.ResponseWriter, r *http.Request, status int, msg string) {
	p := d.newPage(w, r, nil, "signin", "Sign in")
	p.Flash, p.FlashBad = msg, msg != ""
	d.pages.render(w, r, status, p)
}

// isTimeout: the statement was canceled by statement_timeout (SQLSTATE 57014).
func isTimeout(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "57014" || strings.Contains(err.Error(), "SQLSTATE 57014")
}

func isPermission(err error) bool {
	var je *jobq.Error
	if errors.As(err, &je) && je.SQLState == "42501" {
		return true
	}
	return strings.Contains(err.Error(), "SQLSTATE 42501")
}

// fleetOnly refuses h to a store's staff with 403: the fleet's pages and actions (workers,
// schedules, settings, the audit log, pausing queues, demoting the leader) are the operators'
// (and, read-only, the viewer's before signing in). The database refuses most of them to
// jobq_app as well; settings it lets an application read, and the dashboard shows them to no
// store's staff.
func (d *Dashboard) fleetOnly(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s := d.session(r); s != nil && !s.operator {
			d.log.Warn("dashboard: refused to a store's staff", "login", s.login, "method", r.Method, "path", r.URL.Path)
			d.fail(w, r, s, http.StatusForbidden, "A store's staff sees its own store's jobs only: this page and its actions are the operators' (workers, schedules, settings, the audit log and queue pauses concern every store). Nothing was done.")
			return
		}
		h(w, r)
	}
}

// operatorView: pages show the fleet (workers, leader, audit) to people who have not signed in
// (the reader is a viewer) and to operators, not to a store's staff.
func operatorView(s *session) bool { return s == nil || s.operator }

func (d *Dashboard) overview(ctx context.Context, r *http.Request, s *session, q querier, p *page) (int, error) {
	data, err := loadOverview(ctx, q, operatorView(s), p.Now)
	p.Data = data
	return 0, err
}

func (d *Dashboard) jobs(ctx context.Context, r *http.Request, s *session, q querier, p *page) (int, error) {
	f := parseJobFilter(r.URL.Query())
	data, err := loadJobs(ctx, q, f, p.Now)
	p.Data = data
	if f.Problem != "" {
		return http.StatusBadRequest, nil
	}
	return 0, err
}

func (d *Dashboard) job(ctx context.Context, r *http.Request, s *session, q querier, p *page) (int, error) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, jobq.ErrNotFound
	}
	data, err := loadJob(ctx, q, id, operatorView(s))
	p.Data = data
	p.Title = "Job " + strconv.FormatInt(id, 10)
	return 0, err
}

func (d *Dashboard) dead(ctx context.Context, r *http.Request, s *session, q querier, p *page) (int, error) {
	f := parseJobFilter(r.URL.Query())
	data, err := loadDead(ctx, q, f, p.Now)
	p.Data = data
	if f.Problem != "" {
		return http.StatusBadRequest, nil
	}
	return 0, err
}

func (d *Dashboard) workers(ctx context.Context, r *http.Request, s *session, q querier, p *page) (int, error) {
	data, err := loadWorkers(ctx, q)
	p.Data = data
	return 0, err
}

func (d *Dashboard) schedules(ctx context.Context, r *http.Request, s *session, q querier, p *page) (int, error) {
	data, err := loadSchedules(ctx, q)
	p.Data = data
	return 0, err
}

func (d *Dashboard) settings(ctx context.Context, r *http.Request, s *session, q querier, p *page) (int, error) {
	data, err := loadSettings(ctx, q)
	p.Data = data
	return 0, err
}

func (d *Dashboard) audit(ctx context.Context, r *http.Request, s *session, q querier, p *page) (int, error) {
	f := parseAuditFilter(r.URL.Query())
	data, err := loadAuditPage(ctx, q, f)
	p.Data = data
	if f.Problem != "" {
		return http.StatusBadRequest, nil
	}
	return 0, err
}

// backTo is where an action returns: the form's "back" path when it is one of the dashboard's
// own pages (never another site), else fallback.
func (d *Dashboard) backTo(r *http.Request, fallback string) string {
	back := r.PostFormValue("back")
	u, err := url.Parse(back)
	if back == "" || err != nil || u.IsAbs() || u.Host != "" || !strings.HasPrefix(u.Path, d.opts.BasePath+"/") || strings.HasPrefix(back, "//") || strings.ContainsAny(back, "\\\r\n") {
		return d.opts.BasePath + fallback
	}
	return u.RequestURI()
}
