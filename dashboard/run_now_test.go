package dashboard_test

import (
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

var flashLine = regexp.MustCompile(`<p class="flash( bad)?" role="status" id="flash">([^<]*)</p>`)

// The schedules page's "run now" button shows what the schedule's concurrency policy made of the
// request: a schedule under forbid runs once, and a second press while that run is still queued
// is refused with JOB.SCHEDULE_OVERLAP, shown as an error naming the live job, and enqueues
// nothing.
func TestDashboardRunNowShowsTheConcurrencyPolicysRefusal(t *testing.T) {
	e := newEnv(t, nil)
	mustExec(t, e.admin, `SELECT jobq.schedule('forbid-report', '0 4 * * *', 'report', concurrency_policy => 'forbid')`)
	c := newClient(t, e.server.URL)
	c.signIn("dash_alice", alicePassword)

	press := func() (bad bool, text string) {
		t.Helper()
		form := url.Values{"csrf": {c.csrf("/schedules")}, "back": {"/schedules"}}
		res, body := c.do("POST", "/schedules/forbid-report/run", form, nil)
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("run now: %d %.300s", res.StatusCode, body)
		}
		_, page := c.do("GET", res.Header.Get("Location"), nil, nil)
		m := flashLine.FindStringSubmatch(page)
		if m == nil {
			t.Fatalf("no flash after run now on %s", res.Header.Get("Location"))
		}
		return m[1] != "", html.UnescapeString(m[2])
	}

	bad, text := press()
	if bad || !strings.Contains(text, "ran now: job") {
		t.Fatalf("first run now: bad=%v %q", bad, text)
	}
	job := queryInt(t, e.admin, `SELECT last_job_id FROM jobq.schedules WHERE name = 'forbid-report'`)
	bad, text = press()
	want := fmt.Sprintf("JOB.SCHEDULE_OVERLAP: schedule forbid-report has concurrency_policy forbid and its run, job %d, is still queued", job)
	if !bad || !strings.Contains(text, want) {
		t.Fatalf("second run now: bad=%v %q, want an error containing %q", bad, text, want)
	}
	if n := queryInt(t, e.admin, `SELECT count(*) FROM jobq.jobs WHERE job_key LIKE 'schedule:forbid-report:%'`); n != 1 {
		t.Fatalf("the schedule has %d live jobs, want 1", n)
	}
}
