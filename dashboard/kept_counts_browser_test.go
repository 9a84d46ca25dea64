package dashboard_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jobqdev/jobq/internal/dbtest"
)

var keptNote = regexp.MustCompile(`^Live counts taken (now|\S.* ago): above the setting stats_cached_above live jobs`)

// TestTheOverviewSaysWhenItsLiveCountsWereKeptByMaintain, in headless chromium: above the setting
// stats_cached_above live jobs the overview shows the live counts jobq.maintain kept (not the jobs
// enqueued since) and says when they were taken, under the table and on the "live jobs" card;
// below it, it counts at each request and says nothing of the kind.
func TestTheOverviewSaysWhenItsLiveCountsWereKeptByMaintain(t *testing.T) {
	e := newEnv(t, nil)
	ctx := dbtest.Ctx(t)
	for range 3 {
		e.enqueue(t, "mail", "emails", "", 3)
	}
	mustExec(t, e.admin, `UPDATE jobq.settings SET value = '1' WHERE name = 'stats_cached_above'`)
	if _, err := e.worker.Exec(ctx, `SELECT jobq.maintain()`); err != nil {
		t.Fatalf("maintain: %v", err)
	}
	for range 2 {
		e.enqueue(t, "mail", "emails", "", 3)
	}

	b := newBrowser(t, e.server.URL, 1280, 700)
	b.open("/")
	b.waitText("#counted-at", "Live counts taken")
	// The browser keeps the time relative to its clock: "now" within a second, else "… ago".
	if got := b.text("#counted-at"); !keptNote.MatchString(got) {
		t.Fatalf("the note under the table reads %q", got)
	}
	var counted time.Time
	if err := e.admin.QueryRow(ctx, `SELECT jobq.stats_counted_at()`).Scan(&counted); err != nil {
		t.Fatalf("stats_counted_at: %v", err)
	}
	if got := b.js(`document.querySelector("#counted-at time").getAttribute("datetime")`); got != counted.UTC().Format(time.RFC3339) {
		t.Fatalf("the note's time is %q, want the count's %s", got, counted.UTC().Format(time.RFC3339))
	}
	if got := b.js(`document.querySelector('tr[data-queue="emails"]').dataset.queued`); got != "3" {
		t.Fatalf("above stats_cached_above the emails row shows %s queued, want the kept count 3 (5 are live)", got)
	}
	if got := b.js(`document.querySelector("#live").title`); !strings.HasPrefix(got, "counted ") || !strings.HasSuffix(got, " ago") {
		t.Fatalf("the live jobs card's title is %q", got)
	}
	if got := b.text("#live b"); got != "3" {
		t.Fatalf("the live jobs card sums the kept counts: %q", got)
	}
	b.shot("overview-kept-counts")

	mustExec(t, e.admin, `UPDATE jobq.settings SET value = '100000' WHERE name = 'stats_cached_above'`)
	b.open("/")
	b.waitText("#queues", "emails")
	if got := b.js(`document.querySelector('tr[data-queue="emails"]').dataset.queued`); got != "5" {
		t.Fatalf("below stats_cached_above the emails row shows %s queued, want the 5 live jobs", got)
	}
	if n := b.count("#counted-at"); n != 0 {
		t.Fatal("counted live, the overview still speaks of kept counts")
	}
	keepPageScreenshot(t, b, "overview-kept-counts")
}
