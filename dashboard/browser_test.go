package dashboard_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/dbtest"
	"github.com/jobqdev/jobq/internal/engine"
	"github.com/jobqdev/jobq/runner"
)

// browser drives one headless chromium tab against the test's dashboard.
type browser struct {
	t     *testing.T
	ctx   context.Context
	base  string
	shots map[string][]byte
}

// newBrowser starts chromium (Debian's; the test fails without it) with a new profile, and
// accepts every confirm() dialog the pages open.
func newBrowser(t *testing.T, base string, width, height int) *browser {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)), chromedp.NoSandbox, chromedp.WindowSize(width, height),
		chromedp.Flag("headless", true), chromedp.Flag("disable-gpu", true), chromedp.Flag("hide-scrollbars", true))
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil { // starts the browser
		t.Fatalf("start chromium: %v", err)
	}
	dialogs := chromedp.Events(ctx, page.JavascriptDialogOpening)
	go func() {
		for _, err := range dialogs {
			if err != nil {
				return
			}
			_, _ = chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
		}
	}()
	return &browser{t: t, ctx: ctx, base: base, shots: map[string][]byte{}}
}

func (b *browser) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
}

// open loads path and waits for the page's <main>.
func (b *browser) open(path string) {
	b.t.Helper()
	b.do("open "+path, chromedp.Navigate(b.base+path), chromedp.WaitVisible(chromedp.ID("main")))
}

// click clicks the element of a CSS selector in the page itself (one step, so the live refresh
// cannot replace the element between finding and clicking it) and waits for the page the click
// leads to.
func (b *browser) click(css string) {
	b.t.Helper()
	before := b.js(`String(performance.timeOrigin)`)
	if got := b.js(fmt.Sprintf(`(function(){ var e = document.querySelector(%q); if (!e) return "missing"; setTimeout(function(){ e.click(); }, 0); return "ok"; })()`, css)); got != "ok" {
		b.t.Fatalf("click %s: no such element on %s", css, b.js("location.href"))
	}
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if now, ok := b.try(`document.readyState === "complete" ? String(performance.timeOrigin) : ""`); ok && now != "" && now != before {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	b.t.Fatalf("click %s: no new page", css)
}

// set types value into the input of a CSS selector, as a person would: focused (which pauses
// the live refresh) and then changed.
func (b *browser) set(css, value string) {
	b.t.Helper()
	if got := b.js(fmt.Sprintf(`(function(){ var e = document.querySelector(%q); if (!e) return "missing"; e.focus(); e.value = %q; return "ok"; })()`, css, value)); got != "ok" {
		b.t.Fatalf("set %s: no such input on %s", css, b.js("location.href"))
	}
}

// try evaluates a JavaScript expression returning a string; ok is false while the page is
// changing.
func (b *browser) try(expr string) (string, bool) {
	ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr, chromedp.EvalAwaitPromise))
	return s, err == nil
}

// js evaluates a JavaScript expression returning a string.
func (b *browser) js(expr string) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		b.t.Fatalf("evaluate %s: %v", expr, err)
	}
	return s
}

// text is the innerText of the first element of a CSS selector ("" when there is none).
func (b *browser) text(css string) string {
	b.t.Helper()
	return b.js(fmt.Sprintf(`(function(){ var e = document.querySelector(%q); return e ? e.innerText : ""; })()`, css))
}

// count is the number of elements of a CSS selector.
func (b *browser) count(css string) int {
	b.t.Helper()
	var n int
	fmt.Sscan(b.js(fmt.Sprintf(`String(document.querySelectorAll(%q).length)`, css)), &n)
	return n
}

// waitText waits until the text of css contains want.
func (b *browser) waitText(css, want string) {
	b.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	var got string
	for time.Now().Before(deadline) {
		var ok bool
		got, ok = b.try(fmt.Sprintf(`(function(){ var e = document.querySelector(%q); return e ? e.innerText : ""; })()`, css))
		if ok && strings.Contains(got, want) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	b.t.Fatalf("%s: want text containing %q, have %q (page %s)", css, want, got, b.js("location.href"))
}

// signIn fills the sign-in form.
func (b *browser) signIn(login, password string) {
	b.t.Helper()
	b.open("/signin")
	b.do("sign in", chromedp.SendKeys(chromedp.ID("login"), login), chromedp.SendKeys(chromedp.ID("password"), password),
		chromedp.Click(chromedp.ID("signin-button")), chromedp.WaitVisible(chromedp.ID("main")))
}

// post sends a form POST from the page's own origin with fetch and returns "status body".
func (b *browser) post(path string, form map[string]string) string {
	b.t.Helper()
	var fields []string
	for k, v := range form {
		fields = append(fields, fmt.Sprintf("%q: %q", k, v))
	}
	return b.js(fmt.Sprintf(`fetch(%q, {method: "POST", credentials: "same-origin", redirect: "manual",
		body: new URLSearchParams({%s})}).then(r => r.text().then(t => r.status + " " + t))`, path, strings.Join(fields, ", ")))
}

// shot keeps a screenshot of the whole page under name.
func (b *browser) shot(name string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Fatalf("screenshot %s: %v", name, err)
	}
	b.shots[name] = png
}

// TestDashboardInABrowser drives every page and action of the dashboard in Debian's headless
// chromium against a real database, as an operator would, and keeps a screenshot of each page.
func TestDashboardInABrowser(t *testing.T) {
	e := newEnv(t, nil)
	ctx := dbtest.Ctx(t)
	b := newBrowser(t, e.server.URL, 1280, 860)

	// Jobs of two stores and system jobs; three dead e-mails.
	for i := 0; i < 3; i++ {
		e.enqueue(t, "sync", "stores", storeA, 5)
		e.enqueue(t, "sync", "stores", storeB, 5)
	}
	for i := 0; i < 4; i++ {
		e.enqueue(t, "mail", "emails", "", 1)
	}
	e.kill(t, "emails", 3)
	e.enqueue(t, "report", "reports", "", 3)
	// Flow controls on stores (docs/flow-control.md): its row says them in words; emails has none.
	if _, err := e.admin.Exec(ctx, `SELECT jobq.set_concurrency_limit('stores', 5), jobq.set_store_concurrency_limit('stores', 1),
		jobq.set_rate_limit('stores', 100, interval '1 minute'), jobq.set_fair_claiming('stores', true)`); err != nil {
		t.Fatal(err)
	}
	const storesControls = "≤ 5 running · ≤ 1 per store · 100 / 1m · fair"
	controlsOf := func(b *browser, queue string) string {
		return b.js(`(document.querySelector("#queues tr[data-queue=` + queue + `] .controls") || {textContent: "none"}).textContent`)
	}
	auditBefore := queryInt(t, e.admin, `SELECT count(*) FROM jobq.audit_log`)

	t.Run("without signing in every page reads and nothing can be changed", func(t *testing.T) {
		b.t = t
		b.open("/")
		b.waitText("#queues", "emails")
		if b.text("#read-only") != "read-only" {
			t.Fatalf("no read-only badge: %q", b.text("header"))
		}
		if n := b.count("#queues button"); n != 0 {
			t.Fatalf("%d action buttons shown without signing in", n)
		}
		if got := controlsOf(b, "stores"); got != storesControls {
			t.Fatalf("the viewer's overview shows the controls of stores as %q, want %q", got, storesControls)
		}
		if got := controlsOf(b, "emails"); got != "none" {
			t.Fatalf("emails has no controls, the overview shows %q", got)
		}
		b.open("/signin")
		csrf := b.js(`document.querySelector("input[name=csrf]").value`)
		res := b.post("/queues/emails/pause", map[string]string{"csrf": csrf})
		if !strings.HasPrefix(res, "403 ") || !strings.Contains(res, "read-only until you sign in") {
			t.Fatalf("pause without signing in: %.200s", res)
		}
		if paused := queryInt(t, e.admin, `SELECT count(*) FROM jobq.queues WHERE paused`); paused != 0 {
			t.Fatalf("a queue was paused without signing in")
		}
		for _, path := range []string{"/jobs", "/dead", "/workers", "/schedules", "/settings", "/audit"} {
			b.open(path)
			if strings.Contains(b.text("main"), "could not be read") {
				t.Fatalf("%s: %s", path, b.text("main"))
			}
		}
	})

	t.Run("a wrong password and a login without a password check are refused", func(t *testing.T) {
		b.t = t
		b.signIn("dash_alice", "not-the-password")
		b.waitText("#flash", "Wrong login or password")
		b.shot("signin")
		b.signIn("dash_trusted", "anything")
		b.waitText("#flash", "trust authentication")
		if b.count("#signed-in") != 0 {
			t.Fatal("signed in after a refusal")
		}
	})

	t.Run("an operator signs in with their own login", func(t *testing.T) {
		b.t = t
		b.signIn("dash_alice", alicePassword)
		b.waitText("#signed-in", "dash_alice")
	})

	t.Run("filters live in the URL and a shared link shows the same jobs", func(t *testing.T) {
		b.t = t
		b.open("/jobs")
		b.set(`.filters input[name=queue]`, "stores")
		b.set(`.filters input[name=store]`, storeB)
		b.click(`.filters button`)
		url := b.js("location.href")
		if !strings.Contains(url, "queue=stores") || !strings.Contains(url, "store="+storeB) {
			t.Fatalf("filters are not in the URL: %s", url)
		}
		want := queryInt(t, e.admin, `SELECT count(*) FROM jobq.jobs WHERE queue = 'stores' AND store_id = $1`, storeB)
		if n := b.count("#jobs tbody tr[data-id]"); int64(n) != want || want != 3 {
			t.Fatalf("store B's jobs: %d rows, want %d", n, want)
		}
		b.shot("jobs")
		other := newBrowser(t, e.server.URL, 1024, 700)
		other.open(strings.TrimPrefix(url, e.server.URL))
		if n := other.count("#jobs tbody tr[data-id]"); int64(n) != want {
			t.Fatalf("the shared link shows %d jobs, want %d", n, want)
		}
		b.open("/jobs?store=not-a-uuid")
		b.waitText("#filter-problem", "is not a uuid")
	})

	t.Run("a dead job retried from its page runs and the page shows it succeed", func(t *testing.T) {
		b.t = t
		var id int64
		if err := e.admin.QueryRow(ctx, `SELECT max(id) FROM jobq.job_history WHERE state = 'dead'`).Scan(&id); err != nil {
			t.Fatal(err)
		}
		b.open(fmt.Sprintf("/jobs/%d", id))
		b.waitText("#job-state", "dead")
		b.waitText("#attempts", "MAIL.REJECTED")
		b.shot("job")
		b.click(`form[action$="/retry"] button`)
		b.waitText("#flash", "queued")
		r, err := runner.New(runner.Config{Pool: e.worker, Queues: []string{"emails"}, Concurrency: 2, ShutdownGrace: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		r.HandleFunc("mail", func(ctx context.Context, job *jobq.Job) error { return nil })
		runCtx, stop := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- r.Run(runCtx) }()
		defer func() { stop(); <-done }()
		b.waitText("#job-state", "succeeded") // the live refresh, no reload
		if n := queryInt(t, e.admin, `SELECT count(*) FROM jobq.audit_log WHERE action = 'retry_job' AND actor = 'dash_alice' AND job_id = $1`, id); n != 1 {
			t.Fatalf("audit rows of the retry by dash_alice: %d", n)
		}
	})

	t.Run("retrying every dead job of a filter first shows how many", func(t *testing.T) {
		b.t = t
		b.open("/dead?queue=emails")
		if n := b.count("#dead tbody tr[data-id]"); n != 2 {
			t.Fatalf("dead e-mails: %d rows, want 2", n)
		}
		b.shot("dead")
		b.click(`#bulk button[value=retry]`)
		b.waitText("#confirm-count", "2")
		b.shot("confirm")
		b.click("#confirm-button")
		b.waitText("#flash", "2 dead jobs queued again")
		if n := queryInt(t, e.admin, `SELECT count(*) FROM jobq.job_history WHERE state = 'dead'`); n != 0 {
			t.Fatalf("%d dead jobs left", n)
		}
		if n := queryInt(t, e.admin, `SELECT count(*) FROM jobq.audit_log WHERE action = 'retry_job' AND actor = 'dash_alice'`); n != 3 {
			t.Fatalf("retry_job audit rows by dash_alice: %d, want 3", n)
		}
	})

	t.Run("a live job is canceled, a job deleted, and every dead job of a filter deleted after its count", func(t *testing.T) {
		b.t = t
		live := e.enqueue(t, "report", "reports", "", 3)
		b.open(fmt.Sprintf("/jobs/%d", live))
		b.click(`form[action$="/cancel"] button`)
		b.waitText("#flash", "canceled")
		b.waitText("#job-state", "canceled")
		b.click(`form[action$="/delete"] button`)
		b.waitText("#flash", fmt.Sprintf("Job %d (canceled) deleted", live))
		if n := queryInt(t, e.admin, `SELECT count(*) FROM jobq.job_history WHERE id = $1`, live); n != 0 {
			t.Fatal("the deleted job is still in the history")
		}
		for i := 0; i < 3; i++ {
			e.enqueue(t, "mail", "bounces", "", 1)
		}
		e.kill(t, "bounces", 3)
		b.open("/dead?queue=bounces")
		b.click(`#bulk button[value=delete]`)
		b.waitText("#confirm-count", "3")
		b.click("#confirm-button")
		b.waitText("#flash", "3 dead jobs deleted")
		if n := queryInt(t, e.admin, `SELECT count(*) FROM jobq.job_history WHERE queue = 'bounces'`); n != 0 {
			t.Fatalf("%d dead jobs of the filter are left", n)
		}
		if n := queryInt(t, e.admin, `SELECT count(*) FROM jobq.audit_log WHERE action = 'delete_job' AND actor = 'dash_alice'`); n != 4 {
			t.Fatalf("delete_job audit rows by dash_alice: %d, want 4", n)
		}
	})

	t.Run("pausing a queue stops its claims and resuming restarts them", func(t *testing.T) {
		b.t = t
		b.open("/")
		b.click(`tr[data-queue=reports] button`)
		b.waitText("#flash", "Queue reports paused")
		b.waitText(`tr[data-queue=reports]`, "paused")
		c := jobq.NewClient(e.worker)
		jobs, err := c.Claim(ctx, "probe", []string{"reports"}, 10, 30*time.Second)
		if err != nil || len(jobs) != 0 {
			t.Fatalf("claims from a paused queue: %d jobs, %v", len(jobs), err)
		}
		b.click(`tr[data-queue=reports] button`)
		b.waitText("#flash", "Queue reports resumed")
		jobs, err = c.Claim(ctx, "probe", []string{"reports"}, 10, 30*time.Second)
		if err != nil || len(jobs) != 1 {
			t.Fatalf("claims after resume: %d jobs, %v", len(jobs), err)
		}
		if _, err := c.Complete(ctx, []jobq.Lease{jobs[0].Lease()}); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("a form without the session's CSRF token changes nothing", func(t *testing.T) {
		b.t = t
		before := queryInt(t, e.admin, `SELECT count(*) FROM jobq.audit_log`)
		b.open("/")
		res := b.post("/queues/emails/pause", map[string]string{"csrf": "forged-token"})
		if !strings.HasPrefix(res, "403 ") || !strings.Contains(res, "CSRF") {
			t.Fatalf("forged CSRF token: %.200s", res)
		}
		res = b.post("/queues/emails/pause", map[string]string{})
		if !strings.HasPrefix(res, "403 ") {
			t.Fatalf("no CSRF token: %.200s", res)
		}
		if after := queryInt(t, e.admin, `SELECT count(*) FROM jobq.audit_log`); after != before {
			t.Fatalf("audit log grew from %d to %d", before, after)
		}
		if paused := queryInt(t, e.admin, `SELECT count(*) FROM jobq.queues WHERE paused`); paused != 0 {
			t.Fatal("a queue was paused by a forged form")
		}
	})

	t.Run("workers: drain, resume, detach and demote the leader", func(t *testing.T) {
		b.t = t
		c := engine.New(e.worker)
		for _, id := range []string{"web-1", "web-2"} {
			if _, err := c.RegisterWorker(ctx, engine.WorkerInfo{ID: id, Node: "node-a", PID: 4242, Queues: []string{"emails", "reports"}, Concurrency: 8, Version: "v1.2.3"}); err != nil {
				t.Fatal(err)
			}
		}
		if _, ok, err := c.AcquireLeadership(ctx, "web-1", time.Minute); err != nil || !ok {
			t.Fatalf("leadership: %v %v", ok, err)
		}
		b.open("/workers")
		b.waitText("#leader", "web-1")
		b.shot("workers")
		b.click(`tr[data-id=web-2] form[action$="/drain"] button`)
		b.waitText(`tr[data-id=web-2]`, "draining")
		b.click(`tr[data-id=web-2] form[action$="/resume"] button`)
		b.waitText(`tr[data-id=web-2]`, "active")
		b.click(`tr[data-id=web-2] form[action$="/detach"] button`)
		b.waitText(`tr[data-id=web-2]`, "detached")
		b.click(`#leader button`)
		b.waitText("#flash", "Leader demoted")
		if n := queryInt(t, e.admin, `SELECT count(*) FROM jobq.leader WHERE holder IS NOT NULL`); n != 0 {
			t.Fatal("the leader is still held after demote")
		}
		for _, action := range []string{"drain_worker", "resume_worker", "detach_worker", "demote_leader"} {
			if n := queryInt(t, e.admin, `SELECT count(*) FROM jobq.audit_log WHERE action = $1 AND actor = 'dash_alice'`, action); n != 1 {
				t.Fatalf("audit rows of %s by dash_alice: %d", action, n)
			}
		}
	})

	t.Run("schedules: next slots, pause, resume and run now", func(t *testing.T) {
		b.t = t
		// Two earlier slots, as jobq.maintain records them: one enqueued 3 s after its slot, one
		// skipped because the runners came back 20 minutes late (past the backfill window).
		mustExec(t, e.admin, `INSERT INTO jobq.schedule_runs (schedule, slot_at, outcome, reason, created_at) VALUES
			('nightly-report', date_trunc('hour', now()) - interval '2 days', 'enqueued', NULL, date_trunc('hour', now()) - interval '2 days' + interval '3 seconds'),
			('nightly-report', date_trunc('hour', now()) - interval '1 day', 'skipped', 'late', date_trunc('hour', now()) - interval '1 day' + interval '20 minutes')`)
		b.open("/schedules")
		b.waitText("#schedule-nightly-report", "Asia/Tokyo")
		b.waitText("#schedule-nightly-report .runs", "skipped (late)")
		b.waitText("#schedule-nightly-report .runs", "20m 0s")
		if n := b.count("#schedule-nightly-report time[datetime]"); n < 3 {
			t.Fatalf("next slots shown: %d", n)
		}
		b.click(`#schedule-nightly-report form[action$="/pause"] button`)
		b.waitText("#flash", "paused")
		b.waitText("#schedule-nightly-report h2", "paused")
		b.click(`#schedule-nightly-report form[action$="/resume"] button`)
		b.waitText("#flash", "resumed")
		b.click(`#schedule-nightly-report form[action$="/run"] button`)
		b.waitText("#flash", "ran now: job")
		b.shot("schedules")
		if n := queryInt(t, e.admin, `SELECT count(*) FROM jobq.jobs WHERE task = 'report'`); n != 1 {
			t.Fatalf("run now enqueued %d report jobs", n)
		}
	})

	t.Run("settings: a bad value is refused with its error, a good one is saved and audited", func(t *testing.T) {
		b.t = t
		b.open("/settings")
		b.set(`tr[data-name=history_retention] input[name=value]`, "banana")
		b.click(`tr[data-name=history_retention] button`)
		b.waitText("#flash", "history_retention")
		if cls := b.js(`document.getElementById("flash").className`); !strings.Contains(cls, "bad") {
			t.Fatalf("the refusal is not shown as an error: %q", cls)
		}
		b.set(`tr[data-name=history_retention] input[name=value]`, "3 days")
		b.click(`tr[data-name=history_retention] button`)
		b.waitText("#flash", "Setting history_retention")
		b.shot("settings")
		var v string
		if err := e.admin.QueryRow(ctx, `SELECT value FROM jobq.settings WHERE name = 'history_retention'`).Scan(&v); err != nil || v != "3 days" {
			t.Fatalf("history_retention = %q, %v", v, err)
		}
	})

	t.Run("the audit log names the person who acted", func(t *testing.T) {
		b.t = t
		b.open("/audit?actor=dash_alice")
		want := queryInt(t, e.admin, `SELECT count(*) FROM jobq.audit_log WHERE actor = 'dash_alice'`)
		if n := b.count("#audit tbody tr[data-action]"); int64(n) != want || want < 10 {
			t.Fatalf("audit rows of dash_alice: %d shown, %d recorded", n, want)
		}
		// Every operator action since the start was the dashboard's, on dash_alice's login.
		others := dbtest.QueryStrings(t, e.admin, `SELECT actor || ' ' || action FROM jobq.audit_log
			WHERE id > $1 AND actor <> 'dash_alice' AND action = ANY($2) ORDER BY id`, auditBefore,
			[]string{"retry_job", "cancel_job", "delete_job", "pause_queue", "resume_queue", "drain_worker", "resume_worker", "detach_worker",
				"demote_leader", "pause_schedule", "resume_schedule", "run_schedule_now", "set_setting"})
		if len(others) != 0 {
			t.Fatalf("operator actions since the start that name someone else: %v", others)
		}
		b.shot("audit")
	})

	t.Run("a store's staff sees only its store", func(t *testing.T) {
		b.t = t
		staff := newBrowser(t, e.server.URL, 1024, 700)
		staff.signIn("dash_staff", staffPassword)
		staff.waitText("#signed-in", storeA)
		staff.open("/")
		staff.waitText("#queues", "stores")
		if got := controlsOf(staff, "stores"); got != storesControls {
			t.Fatalf("a store's staff sees the controls of stores as %q, want %q", got, storesControls)
		}
		staff.open("/jobs?queue=stores")
		rows := staff.js(`Array.from(document.querySelectorAll("#jobs tbody tr[data-id]")).map(r => r.dataset.id).join(",")`)
		want := dbtest.QueryStrings(t, e.admin, `SELECT string_agg(id::text, ',' ORDER BY id DESC) FROM jobq.jobs WHERE queue = 'stores' AND store_id = $1`, storeA)
		if rows != want[0] {
			t.Fatalf("store A's staff sees %q, want %q", rows, want[0])
		}
		var other int64
		if err := e.admin.QueryRow(ctx, `SELECT min(id) FROM jobq.jobs WHERE store_id = $1`, storeB).Scan(&other); err != nil {
			t.Fatal(err)
		}
		staff.open(fmt.Sprintf("/jobs/%d", other))
		staff.waitText("#error", "Not found")
		for _, page := range []string{"workers", "schedules", "settings", "audit"} {
			if staff.count(`nav a[href$="/`+page+`"]`) != 0 {
				t.Fatalf("a store's staff is shown the link to the %s page", page)
			}
		}
	})

	t.Run("a store's staff sees no system job and no other store's job on any page", func(t *testing.T) {
		b.t = t
		// A dead job of store A, of store B and of the system, each with the same error.
		deadA := e.enqueue(t, "sync", "staff-dead-a", storeA, 1)
		e.kill(t, "staff-dead-a", 1)
		deadB := e.enqueue(t, "sync", "staff-dead-b", storeB, 1)
		e.kill(t, "staff-dead-b", 1)
		deadSys := e.enqueue(t, "mail", "staff-dead-system", "", 1)
		e.kill(t, "staff-dead-system", 1)
		liveSys := e.enqueue(t, "report", "reports", "", 3)
		mine := dbtest.QueryStrings(t, e.admin, `SELECT id::text FROM jobq.jobs WHERE store_id = $1 UNION ALL
			SELECT id::text FROM jobq.job_history WHERE store_id = $1`, storeA)
		rowsOf := func(b *browser, table string) []string {
			got := b.js(`Array.from(document.querySelectorAll("#` + table + ` tbody tr[data-id]")).map(r => r.dataset.id).join(",")`)
			if got == "" {
				return nil
			}
			return strings.Split(got, ",")
		}
		staff := newBrowser(t, e.server.URL, 1024, 700)
		staff.signIn("dash_staff", staffPassword)
		staff.waitText("#signed-in", storeA)
		staff.open("/jobs")
		shown := rowsOf(staff, "jobs")
		if len(shown) == 0 {
			t.Fatal("the staff's job list is empty")
		}
		for _, id := range shown {
			if !slices.Contains(mine, id) {
				t.Fatalf("store A's staff sees job %s on the job list, which is not store A's (A's: %v)", id, mine)
			}
		}
		if strings.Contains(staff.text("#jobs"), "system") || staff.count(`#jobs tr[data-id="`+fmt.Sprint(liveSys)+`"]`) != 0 {
			t.Fatalf("the staff's job list shows a system job: %s", staff.text("#jobs"))
		}
		staff.shot("staff-jobs")
		staff.open("/dead")
		if got := rowsOf(staff, "dead"); !slices.Equal(got, []string{fmt.Sprint(deadA)}) {
			t.Fatalf("store A's staff sees the dead jobs %v, want only %d (B's %d and the system's %d hidden)", got, deadA, deadB, deadSys)
		}
		if staff.count(`#bulk button[value=delete]`)+staff.count(`#dead form[action$="/delete"]`) != 0 {
			t.Fatal("a store's staff is offered to delete jobs, which only operators may")
		}
		for _, id := range []int64{deadB, deadSys, liveSys} {
			staff.open(fmt.Sprintf("/jobs/%d", id))
			staff.waitText("#error", "Not found")
			if strings.Contains(staff.text("main"), "someone@example.com") || strings.Contains(staff.text("main"), "smtp: 550") {
				t.Fatalf("job %d's page shows its payload or error to store A's staff", id)
			}
		}
		staff.open("/")
		if got := staff.text(".cards"); !strings.Contains(got, "1 jobs died") {
			t.Fatalf("store A's staff's overview counts other jobs than A's one dead job: %q", got)
		}
		if staff.count(`#queues tr[data-queue="staff-dead-system"]`)+staff.count(`#queues tr[data-queue="staff-dead-b"]`) != 0 {
			t.Fatalf("store A's staff's overview lists the system's or store B's queue: %s", staff.text("#queues"))
		}
		for _, path := range []string{"/settings", "/workers", "/schedules", "/audit"} {
			staff.open(path)
			staff.waitText("#error", "the operators'")
			if strings.Contains(staff.text("main"), "history_retention") {
				t.Fatalf("%s shows the settings to a store's staff", path)
			}
		}
		b.shots["staff-jobs"] = staff.shots["staff-jobs"]
		// The operator, meanwhile, sees all three.
		b.open("/dead?since=1h")
		for _, id := range []int64{deadA, deadB, deadSys} {
			if b.count(fmt.Sprintf(`#dead tr[data-id="%d"]`, id)) != 1 {
				t.Fatalf("the operator does not see dead job %d: %s", id, b.text("#dead"))
			}
		}
		// Leave no dead job behind for the subtests after this one.
		mustExec(t, e.admin, `DELETE FROM jobq.job_history WHERE id = ANY($1)`, []int64{deadA, deadB, deadSys})
	})

	t.Run("the pages fit a phone's screen", func(t *testing.T) {
		b.t = t
		phone := newBrowser(t, e.server.URL, 390, 844)
		phone.do("phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
		for _, path := range []string{"/", "/jobs", "/dead", "/workers", "/settings"} {
			phone.open(path)
			if w := phone.js(`String(document.body.scrollWidth - window.innerWidth)`); w != "0" {
				t.Fatalf("%s is %s px wider than the phone's screen", path, w)
			}
		}
		phone.open("/")
		phone.shot("overview-phone")
		b.shots["overview-phone"] = phone.shots["overview-phone"]
	})

	t.Run("repeated failed sign-ins are refused without being tried", func(t *testing.T) {
		b.t = t
		// The address has failed twice already (a wrong password, a trusted login): three more
		// failures reach the limit of five per address.
		other := newBrowser(t, e.server.URL, 1024, 700)
		for i := 0; i < 3; i++ {
			other.signIn("dash_bob", "wrong")
			other.waitText("#flash", "Wrong login or password")
		}
		other.signIn("dash_bob", bobPassword)
		other.waitText("#flash", "Too many failed sign-ins")
		if other.count("#signed-in") != 0 {
			t.Fatal("signed in past the limit")
		}
	})

	t.Run("the log holds no password, session or CSRF token", func(t *testing.T) {
		b.t = t
		logs := e.logs.String()
		if !strings.Contains(logs, "signed in") || !strings.Contains(logs, "dash_alice") {
			t.Fatalf("the log does not record sign-ins: %s", logs)
		}
		for _, secret := range []string{alicePassword, bobPassword, staffPassword, "not-the-password"} {
			if strings.Contains(logs, secret) {
				t.Fatalf("the log holds a password")
			}
		}
		for _, c := range sessionCookies(t, b) {
			if strings.Contains(logs, c) {
				t.Fatalf("the log holds a cookie value")
			}
		}
	})

	t.Run("the overview shows the hour's work and the operator's controls", func(t *testing.T) {
		b.t = t
		b.open("/")
		b.waitText("#queues", "Pause")
		if n := b.count(".chart rect.ok"); n == 0 {
			t.Fatal("the chart shows no succeeded job")
		}
		if got := controlsOf(b, "stores"); got != storesControls {
			t.Fatalf("the operator's overview shows the controls of stores as %q, want %q", got, storesControls)
		}
		// At 1280 px the queues table fits its box, the operator's column included: no column
		// (the state, the pause button) is scrolled out of view.
		var scroll, client, inner int
		fmt.Sscan(b.js(`(function(){ var s = document.querySelector("#queues").closest(".scroll");
			return s.scrollWidth + " " + s.clientWidth + " " + window.innerWidth; })()`), &scroll, &client, &inner)
		if inner != 1280 || client == 0 || scroll > client {
			t.Fatalf("at a window %d px wide the queues table is %d px wide in a box of %d px: its last columns scroll out of view", inner, scroll, client)
		}
		b.shot("overview")
	})

	t.Run("signing out ends the session: the dashboard is read-only again", func(t *testing.T) {
		b.t = t
		b.open("/")
		b.click(`header form[action$="/signout"] button`)
		b.waitText("#read-only", "read-only")
		if n := b.count("#queues button"); n != 0 {
			t.Fatalf("%d action buttons after signing out", n)
		}
	})

	saveScreenshots(t, b.shots)
}

// sessionCookies are the values of the dashboard's cookies in the browser.
func sessionCookies(t *testing.T, b *browser) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
	defer cancel()
	res, err := chromedp.Call(ctx, network.GetCookies, network.GetCookiesParams{})
	if err != nil {
		t.Fatalf("cookies: %v", err)
	}
	var out []string
	for _, c := range res.Cookies {
		if strings.HasPrefix(c.Name, "jobq_") {
			out = append(out, c.Value)
		}
	}
	if len(out) < 2 {
		t.Fatalf("the browser holds %d jobq cookies, want the session's and the CSRF one", len(out))
	}
	return out
}

// screenshotDir is where the committed screenshots live.
var screenshotDir = filepath.Join("..", "docs", "screenshots")

// saveScreenshots writes the screenshots to docs/screenshots when JOBQ_UPDATE_SCREENSHOTS=1,
// with the fingerprint of the templates and assets they were taken from; otherwise it checks
// that every page has one.
func saveScreenshots(t *testing.T, shots map[string][]byte) {
	t.Helper()
	for _, name := range screenshotNames {
		if len(shots[name]) == 0 {
			t.Errorf("no screenshot of %s was taken", name)
		}
	}
	if os.Getenv("JOBQ_UPDATE_SCREENSHOTS") != "1" {
		return
	}
	for name, png := range shots {
		if err := os.WriteFile(filepath.Join(screenshotDir, name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(screenshotDir, "FINGERPRINT"), []byte(assetFingerprint(t)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}
