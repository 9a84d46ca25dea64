package dashboard_test

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// Issue 32: a live job's page says why it waits (jobq.explain_job), in headless chromium. A job of
// a paused queue that no live worker serves lists both rules, each with its words; after the
// queue is resumed and a worker serves it, the page says it is claimable; a finished job's page
// has no such section. JOBQ_WHY_SCREENSHOT names a file to keep the held job's screenshot in.
func TestTheJobPageSaysWhyTheJobWaits(t *testing.T) {
	e := newEnv(t, nil)
	mustExec(t, e.admin, `SELECT jobq.set_setting('worker_timeout', '1 day')`)
	id := e.enqueue(t, "mail", "emails", "", 3)
	mustExec(t, e.admin, `SELECT jobq.pause_queue('emails')`)

	b := newBrowser(t, e.server.URL, 1280, 860)
	b.open("/jobs/" + strconv.FormatInt(id, 10))
	b.waitText("#holds", "queue_paused")
	got := b.text("#holds")
	if !strings.Contains(got, "queue_paused queue emails is paused") || !strings.Contains(got, "not_served no live worker serves task mail in queue emails") {
		t.Fatalf("the job's holds read %q", got)
	}
	b.shot("job-why")

	mustExec(t, e.admin, `SELECT jobq.resume_queue('emails')`)
	mustExec(t, e.admin, `SELECT jobq.register_worker('mailer-1', 'node-a', 7, ARRAY['emails'], 4)`)
	b.open("/jobs/" + strconv.FormatInt(id, 10))
	b.waitText("#holds", "Claimable")
	if got := b.js(`document.querySelector("#holds").className`); got != "holds ok" {
		t.Fatalf("a claimable job's line has class %q, want holds ok", got)
	}

	dead := e.enqueue(t, "mail", "graveyard", "", 1)
	e.kill(t, "graveyard", 1)
	b.open("/jobs/" + strconv.FormatInt(dead, 10))
	b.waitText("#job-state", "dead")
	if n := b.js(`String(document.querySelectorAll("#holds").length)`); n != "0" {
		t.Fatalf("a finished job's page has %s holds sections, want none", n)
	}
	if path := os.Getenv("JOBQ_WHY_SCREENSHOT"); path != "" {
		if err := os.WriteFile(path, b.shots["job-why"], 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
