package dashboard_test

import (
	"os"
	"strings"
	"testing"

	"github.com/jobqdev/jobq/internal/dbtest"
	"github.com/jobqdev/jobq/internal/engine"
)

// Issue 30: the overview shows the jobs no live worker serves, in headless chromium. The emails
// queue's live worker serves mail: its row is green ("running", 0 not served). The reports
// queue's only live worker serves mail too, not report: its row counts the report job as not
// served with its age, its state is "not served" in red and never the green "running", and the
// overview's card counts it. JOBQ_NOT_SERVED_SCREENSHOT names a file to keep the page's
// screenshot in, to look at.
func TestTheOverviewShowsTheJobsNoLiveWorkerServes(t *testing.T) {
	e := newEnv(t, nil)
	ctx := dbtest.Ctx(t)
	// The worker registers once and never heartbeats: it stays live however slow the machine.
	mustExec(t, e.admin, `SELECT jobq.set_setting('worker_timeout', '1 day')`)
	if _, err := engine.New(e.worker).RegisterWorker(ctx, engine.WorkerInfo{ID: "mailer-1", Node: "node-a", PID: 7,
		Queues: []string{"emails", "reports"}, Concurrency: 4, Version: "v1", Tasks: []string{"mail"}}); err != nil {
		t.Fatal(err)
	}
	e.enqueue(t, "mail", "emails", "", 3)
	e.enqueue(t, "report", "reports", "", 3)
	mustExec(t, e.admin, `UPDATE jobq.jobs SET run_at = now() - interval '7 minutes' WHERE task = 'report'`)

	b := newBrowser(t, e.server.URL, 1280, 860)
	b.open("/")
	b.waitText("#queues", "reports")
	row := func(queue, css string) string {
		return b.js(`(document.querySelector("#queues tr[data-queue=` + queue + `] ` + css + `") || {textContent: "none"}).textContent`)
	}
	pillClass := func(queue string) string {
		return b.js(`document.querySelector("#queues tr[data-queue=` + queue + `] .pill").className`)
	}
	if got := row("reports", ".not-served"); !strings.HasPrefix(got, "1 · 7m") {
		t.Fatalf("reports' not served cell is %q, want the job and its age, 1 · 7m", got)
	}
	if got := pillClass("reports"); got != "pill bad" {
		t.Fatalf("reports, not served, has the state pill %q, want pill bad (never the green pill ok)", got)
	}
	if got := row("reports", ".pill"); got != "not served" {
		t.Fatalf("reports' state says %q", got)
	}
	if got := row("emails", ".not-served"); got != "0" {
		t.Fatalf("emails' not served cell is %q, want 0", got)
	}
	if got := pillClass("emails"); got != "pill ok" {
		t.Fatalf("emails, served, has the state pill %q, want pill ok", got)
	}
	if got := b.text("#not-served"); !strings.Contains(got, "1 jobs not served") || !strings.Contains(got, "oldest 7m") {
		t.Fatalf("the overview's card says %q", got)
	}
	if got := b.js(`document.querySelector("#not-served").className`); got != "card bad" {
		t.Fatalf("the not served card's class is %q, want card bad", got)
	}
	b.shot("overview-not-served")

	// A worker that serves every task of reports (registered without a list) serves the job: the
	// row turns green on the next load.
	if _, err := engine.New(e.worker).RegisterWorker(ctx, engine.WorkerInfo{ID: "old-runner", Node: "node-b", PID: 8,
		Queues: []string{"reports"}, Concurrency: 1}); err != nil {
		t.Fatal(err)
	}
	b.open("/")
	b.waitText("#queues", "reports")
	if got := pillClass("reports"); got != "pill ok" {
		t.Fatalf("reports, served now, has the state pill %q", got)
	}
	if got := b.text("#not-served"); !strings.Contains(got, "0 jobs not served") {
		t.Fatalf("the overview's card says %q", got)
	}
	// The workers page says what each worker serves: mailer-1 its list, old-runner every task.
	b.open("/workers")
	b.waitText("#workers", "mailer-1")
	tasksOf := func(id string) string {
		return b.js(`document.querySelector("#workers tr[data-id=` + id + `] .tasks").textContent`)
	}
	if got := tasksOf("mailer-1"); got != "mail" {
		t.Fatalf("mailer-1's tasks cell is %q, want mail", got)
	}
	if got := tasksOf("old-runner"); got != "every task" {
		t.Fatalf("old-runner's tasks cell is %q, want every task", got)
	}
	if path := os.Getenv("JOBQ_NOT_SERVED_SCREENSHOT"); path != "" {
		if err := os.WriteFile(path, b.shots["overview-not-served"], 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
