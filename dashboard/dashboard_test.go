package dashboard_test

import (
	"context"
	"fmt"
	"html"
	"io"
	"maps"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jobqdev/jobq/dashboard"
	"github.com/jobqdev/jobq/internal/dbtest"
)

// client is a cookie-keeping HTTP client that does not follow redirects.
type client struct {
	t    *testing.T
	base string
	http *http.Client
}

func newClient(t *testing.T, base string) *client {
	jar, _ := cookiejar.New(nil)
	return &client{t: t, base: base, http: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (c *client) do(method, path string, form url.Values, header map[string]string) (*http.Response, string) {
	c.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, c.base+path, body)
	if err != nil {
		c.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := c.http.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// csrf reads the CSRF token of a page's forms.
func (c *client) csrf(path string) string {
	c.t.Helper()
	_, body := c.do("GET", path, nil, nil)
	m := csrfField.FindStringSubmatch(body)
	if m == nil {
		c.t.Fatalf("no CSRF field on %s", path)
	}
	return m[1]
}

func (c *client) signIn(login, password string) {
	c.t.Helper()
	res, body := c.do("POST", "/signin", url.Values{"csrf": {c.csrf("/signin")}, "login": {login}, "password": {password}}, nil)
	if res.StatusCode != http.StatusSeeOther {
		c.t.Fatalf("sign in as %s: %d %.300s", login, res.StatusCode, body)
	}
}

// TestDashboardHTTP checks what a browser cannot show: headers, cookie flags, the reader's login,
// redirects, cross-site requests and lost or expired sessions.
func TestDashboardHTTP(t *testing.T) {
	e := newEnv(t, nil)
	ctx := dbtest.Ctx(t)

	t.Run("every response forbids framing, sniffing and foreign scripts", func(t *testing.T) {
		res, _ := newClient(t, e.server.URL).do("GET", "/", nil, nil)
		for k, want := range map[string]string{
			"Content-Security-Policy": "script-src 'self'", "X-Frame-Options": "DENY",
			"X-Content-Type-Options": "nosniff", "Cache-Control": "no-store",
		} {
			if got := res.Header.Get(k); !strings.Contains(got, want) {
				t.Errorf("%s = %q, want it to contain %q", k, got, want)
			}
		}
	})

	t.Run("cookies are HttpOnly and SameSite=Strict, and Secure when asked", func(t *testing.T) {
		res, _ := newClient(t, e.server.URL).do("GET", "/", nil, nil)
		c := res.Cookies()
		if len(c) != 1 || c[0].Name != "jobq_csrf" || !c[0].HttpOnly || c[0].SameSite != http.SameSiteStrictMode || c[0].Secure {
			t.Fatalf("cookies of a first visit: %+v", c)
		}
		_, secure := e.serve(t, func(o *dashboard.Options) { o.SecureCookies = true })
		res, _ = newClient(t, secure.URL).do("GET", "/", nil, nil)
		if c := res.Cookies(); len(c) != 1 || !c[0].Secure {
			t.Fatalf("cookies with SecureCookies: %+v", c)
		}
	})

	t.Run("a reader login that could change the queue is refused", func(t *testing.T) {
		for _, login := range []string{"postgres", "dash_trusted", "worker_runtime"} {
			_, err := dashboard.New(ctx, dashboard.Options{Reader: pool(t, e.cluster.URL(login, "jobq"))})
			if err == nil || !strings.Contains(err.Error(), "can change the queue") {
				t.Errorf("reader %s: %v", login, err)
			}
		}
	})

	t.Run("with RequireSignIn nothing is shown before signing in", func(t *testing.T) {
		_, locked := e.serve(t, func(o *dashboard.Options) { o.RequireSignIn = true })
		c := newClient(t, locked.URL)
		for _, path := range []string{"/", "/jobs", "/audit"} {
			res, _ := c.do("GET", path, nil, nil)
			if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/signin" {
				t.Fatalf("%s: %d to %q", path, res.StatusCode, res.Header.Get("Location"))
			}
		}
		c.signIn("dash_alice", alicePassword)
		if res, _ := c.do("GET", "/jobs", nil, nil); res.StatusCode != http.StatusOK {
			t.Fatalf("/jobs after signing in: %d", res.StatusCode)
		}
	})

	t.Run("an action returns only to the dashboard's own pages", func(t *testing.T) {
		c := newClient(t, e.server.URL)
		c.signIn("dash_alice", alicePassword)
		token := c.csrf("/")
		for _, back := range []string{"https://evil.example/", "//evil.example/x", "/\\evil.example", "javascript:alert(1)"} {
			res, _ := c.do("POST", "/queues/q-redirect/resume", url.Values{"csrf": {token}, "back": {back}}, nil)
			if loc := res.Header.Get("Location"); res.StatusCode != http.StatusSeeOther || loc != "/" {
				t.Fatalf("back=%q: %d to %q", back, res.StatusCode, loc)
			}
		}
	})

	t.Run("a cross-site form is refused even with the right token", func(t *testing.T) {
		c := newClient(t, e.server.URL)
		c.signIn("dash_alice", alicePassword)
		token := c.csrf("/")
		res, _ := c.do("POST", "/queues/q-cross/pause", url.Values{"csrf": {token}}, map[string]string{"Sec-Fetch-Site": "cross-site"})
		if res.StatusCode != http.StatusForbidden {
			t.Fatalf("cross-site: %d", res.StatusCode)
		}
		res, _ = c.do("POST", "/queues/q-cross/pause", url.Values{"csrf": {token}}, map[string]string{"Origin": "https://evil.example"})
		if res.StatusCode != http.StatusForbidden {
			t.Fatalf("foreign Origin: %d", res.StatusCode)
		}
		if n := queryInt(t, e.admin, `SELECT count(*) FROM jobq.queues WHERE name = 'q-cross'`); n != 0 {
			t.Fatal("the cross-site form paused the queue")
		}
		res, _ = c.do("POST", "/queues/q-cross/pause", url.Values{"csrf": {token}}, map[string]string{"Sec-Fetch-Site": "same-origin"})
		if res.StatusCode != http.StatusSeeOther || queryInt(t, e.admin, `SELECT count(*) FROM jobq.queues WHERE name = 'q-cross' AND paused_by = 'dash_alice'`) != 1 {
			t.Fatalf("the same form from the dashboard itself: %d", res.StatusCode)
		}
	})

	t.Run("a session whose connection was ended signs in again", func(t *testing.T) {
		c := newClient(t, e.server.URL)
		c.signIn("dash_bob", bobPassword)
		mustExec(t, e.admin, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'dash_bob'`)
		time.Sleep(200 * time.Millisecond)
		res, body := c.do("GET", "/jobs", nil, nil)
		if res.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "sign in again") {
			t.Fatalf("after the connection ended: %d %.300s", res.StatusCode, body)
		}
		if res, _ := c.do("GET", "/jobs", nil, nil); res.StatusCode != http.StatusOK || strings.Contains(res.Header.Get("Set-Cookie"), "jobq_session=x") {
			t.Fatalf("next page: %d", res.StatusCode)
		}
	})

	t.Run("a page the browser abandons mid-read does not end the session", func(t *testing.T) {
		// A person clicking a link while the live refresh is reading aborts that request; the
		// session's connection must survive it.
		c := newClient(t, e.server.URL)
		c.signIn("dash_bob", bobPassword)
		lock, err := e.admin.Begin(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer lock.Rollback(context.Background())
		if _, err := lock.Exec(context.Background(), `LOCK TABLE jobq.jobs IN ACCESS EXCLUSIVE MODE`); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		req, _ := http.NewRequestWithContext(ctx, "GET", e.server.URL+"/jobs", nil)
		if res, err := c.http.Do(req); err == nil {
			res.Body.Close()
			t.Fatalf("the blocked page answered %d", res.StatusCode)
		}
		cancel()
		time.Sleep(200 * time.Millisecond)
		if err := lock.Rollback(context.Background()); err != nil {
			t.Fatal(err)
		}
		res, body := c.do("GET", "/jobs", nil, nil)
		if res.StatusCode != http.StatusOK || !strings.Contains(body, `id="signed-in"`) {
			t.Fatalf("after an abandoned page: %d %.300s", res.StatusCode, body)
		}
	})

	t.Run("an idle session ends and closes its connection", func(t *testing.T) {
		_, short := e.serve(t, func(o *dashboard.Options) { o.SessionIdle = 300 * time.Millisecond })
		c := newClient(t, short.URL)
		c.signIn("dash_staff", staffPassword)
		if _, body := c.do("GET", "/", nil, nil); !strings.Contains(body, `id="signed-in"`) {
			t.Fatal("not signed in")
		}
		time.Sleep(500 * time.Millisecond)
		if _, body := c.do("GET", "/", nil, nil); strings.Contains(body, `id="signed-in"`) {
			t.Fatal("still signed in after the idle time")
		}
		deadline := time.Now().Add(5 * time.Second)
		for queryInt(t, e.admin, `SELECT count(*) FROM pg_stat_activity WHERE usename = 'dash_staff'`) != 0 {
			if time.Now().After(deadline) {
				t.Fatal("the expired session's connection is still open")
			}
			time.Sleep(50 * time.Millisecond)
		}
	})

	t.Run("the overview counts exactly, as jobq stats does", func(t *testing.T) {
		mustExec(t, e.admin, `INSERT INTO jobq.jobs (task, queue, max_attempts) SELECT 'mail', 'q-big', 3 FROM generate_series(1, 10050)`)
		_, body := newClient(t, e.server.URL).do("GET", "/", nil, nil)
		body = html.UnescapeString(body)
		row := regexp.MustCompile(`(?s)<tr data-queue="q-big"[^>]*>.*?</tr>`).FindString(body)
		if !strings.Contains(row, `data-queued="10050"`) || !strings.Contains(row, ">10,050<") {
			t.Fatalf("the row of a queue with 10,050 due jobs: %s", row)
		}
		mustExec(t, e.admin, `DELETE FROM jobq.jobs WHERE queue = 'q-big'`)
	})

	t.Run("a job's page shows each attempt's output tail and log reference", func(t *testing.T) {
		id := e.enqueue(t, "report", "reports", "", 3)
		mustExec(t, e.admin, `INSERT INTO jobq.job_attempts (job_id, attempt, task, queue, worker, started_at, ended_at, reason, error, output, log_ref)
			VALUES ($1::bigint, 1, 'report', 'reports', 'w-1', now() - interval '1 minute', now(), 'timed_out', 'killed after 30s',
			        'rendering page 7 of 9 <slow>', 'loki://jobs?id=' || $1::bigint)`, id)
		res, body := newClient(t, e.server.URL).do("GET", fmt.Sprintf("/jobs/%d", id), nil, nil)
		body = html.UnescapeString(body)
		if res.StatusCode != http.StatusOK || !strings.Contains(body, "rendering page 7 of 9 <slow>") ||
			!strings.Contains(body, fmt.Sprintf("logs: loki://jobs?id=%d", id)) || !strings.Contains(body, "timed_out") {
			t.Fatalf("job %d: %d %.3000s", id, res.StatusCode, body)
		}
	})

	t.Run("the sign-in form itself needs its CSRF token", func(t *testing.T) {
		res, _ := newClient(t, e.server.URL).do("POST", "/signin", url.Values{"login": {"dash_alice"}, "password": {alicePassword}}, nil)
		if res.StatusCode != http.StatusForbidden {
			t.Fatalf("sign-in without a token: %d", res.StatusCode)
		}
	})
}

// roleFixture is what TestDashboardHTTP's role checks look at: a live and a dead job of store A,
// of store B and of the system, each dead one with its failed attempt.
type roleFixture struct {
	live, dead map[string]int64 // by owner: "A", "B", "system"
}

// newRoleFixture enqueues the jobs (queue roles-live for the live ones, roles-dead-<owner> for the
// dead ones) and kills the dead ones through a worker.
func newRoleFixture(t *testing.T, e *env) roleFixture {
	t.Helper()
	f := roleFixture{live: map[string]int64{}, dead: map[string]int64{}}
	for owner, store := range map[string]string{"A": storeA, "B": storeB, "system": ""} {
		task := "sync"
		if store == "" {
			task = "mail"
		}
		f.live[owner] = e.enqueue(t, task, "roles-live", store, 3)
		queue := "roles-dead-" + strings.ToLower(owner)
		f.dead[owner] = e.enqueue(t, task, queue, store, 1)
		e.kill(t, queue, 1)
	}
	return f
}

// ids are the data-id attributes of the rows of the table of id table on a page.
func ids(body, table string) []string {
	tbl := regexp.MustCompile(`(?s)<table id="` + table + `">.*?</table>`).FindString(body)
	var out []string
	for _, m := range regexp.MustCompile(`<tr data-id="(\d+)"`).FindAllStringSubmatch(tbl, -1) {
		out = append(out, m[1])
	}
	return out
}

// card is the number of an overview card that ends in label ("jobs died", "failed attempts").
func card(t *testing.T, body, label string) string {
	t.Helper()
	m := regexp.MustCompile(`<b>([\d,]+)</b> ` + regexp.QuoteMeta(label)).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no %q card on the overview", label)
	}
	return m[1]
}

// TestDashboardRoles checks, role by role, what each login the dashboard supports sees and may
// do: a visitor who has not signed in (the reader, jobq_dashboard: every store and the system,
// read-only), an operator (everything, and acts), and a store's staff (a jobq_app login bound to
// store A: A's jobs only — no system job, no other store's job, on every page and count — and
// none of the fleet's pages). The database scopes the jobs (row-level security on the person's
// own login); the dashboard refuses the fleet's pages to the staff with 403.
func TestDashboardRoles(t *testing.T) {
	e := newEnv(t, nil)
	f := newRoleFixture(t, e)
	str := func(n int64) string { return fmt.Sprint(n) }
	every := []string{str(f.live["A"]), str(f.live["B"]), str(f.live["system"])}
	everyDead := []string{str(f.dead["A"]), str(f.dead["B"]), str(f.dead["system"])}

	viewer := newClient(t, e.server.URL)
	operator := newClient(t, e.server.URL)
	operator.signIn("dash_alice", alicePassword)
	staff := newClient(t, e.server.URL)
	staff.signIn("dash_staff", staffPassword)

	type want struct {
		live, dead []string // the ids the jobs list (queue roles-live) and the dead list show
		hidden     []int64  // job pages that answer 404
		died       string   // the overview's "jobs died" card
		queues     []string // queues the overview must not list
		fleet      int      // the status of /workers, /schedules, /settings, /audit
	}
	for _, tc := range []struct {
		role string
		c    *client
		want want
	}{
		{"a visitor who has not signed in reads every store and the system", viewer,
			want{live: every, dead: everyDead, died: "3", fleet: http.StatusOK}},
		{"an operator reads every store and the system", operator,
			want{live: every, dead: everyDead, died: "3", fleet: http.StatusOK}},
		{"a store's staff reads its own store's jobs only, no system job", staff,
			want{live: []string{str(f.live["A"])}, dead: []string{str(f.dead["A"])},
				hidden: []int64{f.live["B"], f.dead["B"], f.live["system"], f.dead["system"]},
				died:   "1", queues: []string{"roles-dead-b", "roles-dead-system"}, fleet: http.StatusForbidden}},
	} {
		t.Run(tc.role, func(t *testing.T) {
			c := tc.c
			c.t = t
			sorted := func(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }

			res, body := c.do("GET", "/jobs?queue=roles-live", nil, nil)
			if got := ids(body, "jobs"); res.StatusCode != http.StatusOK || !slices.Equal(sorted(got), sorted(tc.want.live)) {
				t.Fatalf("jobs list: %d, ids %v, want %v", res.StatusCode, got, tc.want.live)
			}
			// Unfiltered, every row the person sees is one of the jobs they may see.
			_, body = c.do("GET", "/jobs", nil, nil)
			for _, id := range ids(body, "jobs") {
				if !slices.Contains(tc.want.live, id) && !slices.Contains(tc.want.dead, id) {
					t.Fatalf("the unfiltered jobs list shows job %s; this role sees only %v and %v", id, tc.want.live, tc.want.dead)
				}
			}
			// Another store's filter shows nothing more.
			_, body = c.do("GET", "/jobs?store="+storeB, nil, nil)
			for _, id := range ids(body, "jobs") {
				if !slices.Contains(tc.want.live, id) && !slices.Contains(tc.want.dead, id) {
					t.Fatalf("the jobs list filtered by store B shows job %s", id)
				}
			}
			res, body = c.do("GET", "/dead", nil, nil)
			if got := ids(body, "dead"); res.StatusCode != http.StatusOK || !slices.Equal(sorted(got), sorted(tc.want.dead)) {
				t.Fatalf("dead list: %d, ids %v, want %v", res.StatusCode, got, tc.want.dead)
			}
			for _, id := range tc.want.hidden {
				res, body := c.do("GET", fmt.Sprintf("/jobs/%d", id), nil, nil)
				if res.StatusCode != http.StatusNotFound || strings.Contains(body, "someone@example.com") || strings.Contains(body, "smtp: 550") {
					t.Fatalf("job %d: %d, want 404 without its payload or error: %.400s", id, res.StatusCode, body)
				}
			}
			for _, id := range append(slices.Clone(tc.want.live), tc.want.dead...) {
				if res, _ := c.do("GET", "/jobs/"+id, nil, nil); res.StatusCode != http.StatusOK {
					t.Fatalf("job %s: %d, want 200", id, res.StatusCode)
				}
			}
			res, body = c.do("GET", "/", nil, nil)
			if res.StatusCode != http.StatusOK {
				t.Fatalf("overview: %d", res.StatusCode)
			}
			if got := card(t, body, "jobs died"); got != tc.want.died {
				t.Fatalf("the overview counts %s jobs died in the last hour, want %s", got, tc.want.died)
			}
			for _, q := range tc.want.queues {
				if strings.Contains(body, `data-queue="`+q+`"`) {
					t.Fatalf("the overview lists queue %s", q)
				}
			}
			for _, path := range []string{"/workers", "/schedules", "/settings", "/audit"} {
				res, body := c.do("GET", path, nil, nil)
				if res.StatusCode != tc.want.fleet {
					t.Fatalf("%s: %d, want %d: %.300s", path, res.StatusCode, tc.want.fleet, body)
				}
				if tc.want.fleet == http.StatusForbidden && (strings.Contains(body, "history_retention") || strings.Contains(body, "nightly-report")) {
					t.Fatalf("%s refused, but shows the fleet's data: %.400s", path, body)
				}
			}
		})
	}

	t.Run("a store's staff cannot change a setting, pause a queue or run a schedule", func(t *testing.T) {
		staff.t = t
		before := dbtest.QueryStrings(t, e.admin, `SELECT (SELECT string_agg(name || '=' || value, ',' ORDER BY name) FROM jobq.settings)
			|| (SELECT count(*) FROM jobq.audit_log) || (SELECT count(*) FROM jobq.queues) || (SELECT count(*) FROM jobq.jobs)`)
		token := staff.csrf("/")
		for path, form := range map[string]url.Values{
			"/settings/history_retention":   {"value": {"1 day"}},
			"/queues/roles-live/pause":      {},
			"/schedules/nightly-report/run": {},
			"/leader/demote":                {},
		} {
			form.Set("csrf", token)
			if res, body := staff.do("POST", path, form, nil); res.StatusCode != http.StatusForbidden {
				t.Fatalf("POST %s by a store's staff: %d, want 403: %.300s", path, res.StatusCode, body)
			}
		}
		after := dbtest.QueryStrings(t, e.admin, `SELECT (SELECT string_agg(name || '=' || value, ',' ORDER BY name) FROM jobq.settings)
			|| (SELECT count(*) FROM jobq.audit_log) || (SELECT count(*) FROM jobq.queues) || (SELECT count(*) FROM jobq.jobs)`)
		if !slices.Equal(before, after) {
			t.Fatalf("the refused actions changed something: %v, then %v", before, after)
		}
	})

	t.Run("a store's staff retries its own dead job and not the system's", func(t *testing.T) {
		staff.t = t
		token := staff.csrf("/")
		res, _ := staff.do("POST", fmt.Sprintf("/jobs/%d/retry", f.dead["system"]), url.Values{"csrf": {token}, "back": {"/dead"}}, nil)
		if res.StatusCode != http.StatusSeeOther || queryInt(t, e.admin, `SELECT count(*) FROM jobq.job_history WHERE id = $1 AND state = 'dead'`, f.dead["system"]) != 1 {
			t.Fatalf("the staff's retry of a system job: %d, or the job left the dead list", res.StatusCode)
		}
		res, _ = staff.do("POST", fmt.Sprintf("/jobs/%d/retry", f.dead["A"]), url.Values{"csrf": {token}, "back": {"/dead"}}, nil)
		if res.StatusCode != http.StatusSeeOther || queryInt(t, e.admin, `SELECT count(*) FROM jobq.jobs WHERE id = $1`, f.dead["A"]) != 1 {
			t.Fatalf("the staff's retry of its own dead job: %d, or it is not queued again", res.StatusCode)
		}
		if n := queryInt(t, e.admin, `SELECT count(*) FROM jobq.audit_log WHERE action = 'retry_job' AND actor = 'dash_staff'`); n != 1 {
			t.Fatalf("retry_job audit rows by dash_staff: %d, want 1", n)
		}
	})
}

// TestDashboardRefusesControlCharacters sends NUL, U+0001, DEL, a newline and a C1 control in
// every parameter of every route (query parameters, form fields, path segments, and a
// parameter's name), signed in as an operator with a valid CSRF token so that the same request
// without the character would act: each answers 400 with a message naming the character, and
// nothing in the database changes.
func TestDashboardRefusesControlCharacters(t *testing.T) {
	e := newEnv(t, nil)
	ctx := dbtest.Ctx(t)
	dead := e.enqueue(t, "mail", "emails", "", 1)
	e.kill(t, "emails", 1)
	c := newClient(t, e.server.URL)
	c.signIn("dash_alice", alicePassword)
	token := c.csrf("/")
	job := fmt.Sprint(dead)

	type route struct {
		method, path string            // {x} in path is a path parameter named x
		pathParams   map[string]string // the path parameters' valid values
		params       map[string]string // query parameters (GET) or form fields (POST), valid values
	}
	filter := map[string]string{"queue": "emails", "state": "dead", "task": "mail", "store": storeA, "key": "k1", "since": "1h", "before": "99"}
	form := func(kv ...string) map[string]string {
		m := map[string]string{"csrf": token, "back": "/jobs"}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	routes := []route{
		{"GET", "/", nil, map[string]string{"x": "1"}},
		{"GET", "/jobs", nil, filter},
		{"GET", "/jobs/{id}", map[string]string{"id": job}, map[string]string{"x": "1"}},
		{"GET", "/dead", nil, filter},
		{"GET", "/workers", nil, map[string]string{"x": "1"}},
		{"GET", "/schedules", nil, map[string]string{"x": "1"}},
		{"GET", "/settings", nil, map[string]string{"x": "1"}},
		{"GET", "/audit", nil, map[string]string{"actor": "dash_alice", "action": "retry_job", "job": job, "before": "99"}},
		{"GET", "/signin", nil, map[string]string{"x": "1"}},
		{"GET", "/healthz", nil, map[string]string{"x": "1"}},
		{"GET", "/static/{file}", map[string]string{"file": "app.css"}, map[string]string{"x": "1"}},
		{"POST", "/signin", nil, map[string]string{"csrf": token, "login": "dash_bob", "password": bobPassword}},
		{"POST", "/jobs/{id}/{action}", map[string]string{"id": job, "action": "retry"}, form()},
		{"POST", "/dead/bulk", nil, form("action", "delete", "confirm", "1", "queue", "emails", "task", "mail", "key", "k1", "since", "1h", "store", storeA)},
		{"POST", "/queues/{queue}/{action}", map[string]string{"queue": "emails", "action": "pause"}, form()},
		{"POST", "/workers/{id}/{action}", map[string]string{"id": "web-1", "action": "drain"}, form()},
		{"POST", "/leader/demote", nil, form()},
		{"POST", "/schedules/{name}/{action}", map[string]string{"name": "nightly-report", "action": "run"}, form()},
		{"POST", "/settings/{name}", map[string]string{"name": "history_retention"}, form("value", "3 days")},
		{"POST", "/signout", nil, form()},
	}
	state := func() []string {
		return dbtest.QueryStrings(t, e.admin, `SELECT concat_ws(' | ',
			(SELECT string_agg(name || '=' || value, ',' ORDER BY name) FROM jobq.settings),
			(SELECT count(*) FROM jobq.audit_log), (SELECT count(*) FROM jobq.jobs), (SELECT count(*) FROM jobq.job_history),
			(SELECT count(*) FROM jobq.queues), (SELECT count(*) FROM jobq.schedule_runs),
			(SELECT count(*) FROM pg_stat_activity WHERE usename = 'dash_bob'))`)
	}
	before := state()
	inject := func(v, bad string) string {
		if v == "" {
			return bad
		}
		return v[:1] + bad + v[1:]
	}
	send := func(t *testing.T, r route, path map[string]string, params map[string]string, bad string) {
		t.Helper()
		p := r.path
		for k, v := range path {
			p = strings.Replace(p, "{"+k+"}", url.PathEscape(v), 1)
		}
		vals := url.Values{}
		for k, v := range params {
			vals.Set(k, v)
		}
		var res *http.Response
		var body string
		if r.method == "GET" {
			res, body = c.do("GET", p+"?"+vals.Encode(), nil, nil)
		} else {
			res, body = c.do("POST", p, vals, nil)
		}
		body = html.UnescapeString(body)
		want := fmt.Sprintf("control character U+%04X", []rune(bad)[0])
		if res.StatusCode != http.StatusBadRequest || !strings.Contains(body, want) {
			t.Fatalf("%s %s %v: %d, want 400 saying %q: %.500s", r.method, p, vals, res.StatusCode, want, body)
		}
	}
	for _, bad := range []string{"\x00", "\x01", "\x7f", "\n", "\u0085"} {
		for _, r := range routes {
			t.Run(fmt.Sprintf("%s %s %q", r.method, r.path, bad), func(t *testing.T) {
				for name, v := range r.params {
					params := maps.Clone(r.params)
					params[name] = inject(v, bad)
					send(t, r, r.pathParams, params, bad)
				}
				for name, v := range r.pathParams {
					path := maps.Clone(r.pathParams)
					path[name] = inject(v, bad)
					send(t, r, path, r.params, bad)
				}
				params := maps.Clone(r.params)
				params["n"+bad+"ame"] = "1"
				send(t, r, r.pathParams, params, bad)
			})
		}
	}
	t.Run("text that is not UTF-8, a malformed query and a form too large", func(t *testing.T) {
		c.t = t
		for _, tc := range []struct {
			method, path string
			form         url.Values
			status       int
			want         string
		}{
			{"GET", "/jobs?queue=e%ffmails", nil, http.StatusBadRequest, `Query parameter "queue" is not valid UTF-8`},
			{"GET", "/jobs?queue=%zz", nil, http.StatusBadRequest, "The query string is malformed"},
			{"POST", "/settings/history_retention", url.Values{"csrf": {token}, "value": {"3 d\xffays"}}, http.StatusBadRequest, `Form field "value" is not valid UTF-8`},
			{"POST", "/settings/history_retention", url.Values{"csrf": {token}, "value": {"3 days"}, "pad": {strings.Repeat("x", 2<<20)}}, http.StatusRequestEntityTooLarge, "larger than 1048576 bytes"},
		} {
			res, body := c.do(tc.method, tc.path, tc.form, nil)
			if body = html.UnescapeString(body); res.StatusCode != tc.status || !strings.Contains(body, tc.want) {
				t.Fatalf("%s %s: %d, want %d saying %q: %.400s", tc.method, tc.path, res.StatusCode, tc.status, tc.want, body)
			}
		}
	})
	if after := state(); !slices.Equal(before, after) {
		t.Fatalf("the refused requests changed the database: %v, then %v", before, after)
	}
	// The same operator is still signed in (the refused sign-out did not sign out) and a clean
	// request still works.
	if res, body := c.do("GET", "/jobs?queue=emails", nil, nil); res.StatusCode != http.StatusOK || !strings.Contains(body, `id="signed-in"`) {
		t.Fatalf("a clean request after the refusals: %d", res.StatusCode)
	}
	_ = ctx
}
