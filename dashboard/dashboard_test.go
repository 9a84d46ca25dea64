package dashboard_test

import (
	"context"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
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

	t.Run("the overview's counts stop at 10,000 and say so", func(t *testing.T) {
		mustExec(t, e.admin, `INSERT INTO jobq.jobs (task, queue, max_attempts) SELECT 'mail', 'q-big', 3 FROM generate_series(1, 10050);
			ANALYZE jobq.jobs`)
		_, body := newClient(t, e.server.URL).do("GET", "/", nil, nil)
		body = html.UnescapeString(body)
		row := regexp.MustCompile(`(?s)<tr data-queue="q-big">.*?</tr>`).FindString(body)
		if !strings.Contains(row, "10,000+") {
			t.Fatalf("the row of a queue with 10,050 due jobs: %s", row)
		}
		if !strings.Contains(body, "≈ <b>10,") {
			t.Fatalf("no estimate of the live jobs when a count stopped: %.2000s", body)
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
