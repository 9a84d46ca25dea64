package dashboard_test

import (
	"strconv"
	"strings"
	"testing"
)

// Issue 35: the job page of a batch's job shows the batch, in headless chromium: its state, its
// counts and a progress bar at the share of its jobs that ended; once the last job ends, the batch
// reads settled with a link to its callback job. A job in no batch has no batch section. With
// JOBQ_UPDATE_SCREENSHOTS=1 it keeps docs/screenshots/batch.png.
func TestTheJobPageShowsItsBatchsProgress(t *testing.T) {
	e := newEnv(t, nil)
	batch := queryInt(t, e.admin, `SELECT jobq.create_batch(on_complete => '{"task": "mail", "queue": "reports"}', description => 'spring campaign')`)
	ids := make([]int64, 0, 4)
	for _, q := range []string{"campaign", "campaign", "campaign", "bounces"} {
		ids = append(ids, queryInt(t, e.admin, `SELECT id FROM jobq.batch_enqueue($1, jsonb_build_array(jsonb_build_object('task', 'mail', 'queue', $2::text, 'max_attempts', 1))) AS id`, batch, q))
	}
	mustExec(t, e.admin, `SELECT jobq.seal_batch($1)`, batch)
	mustExec(t, e.admin, `WITH c AS (SELECT * FROM jobq.claim_job('w-batch', ARRAY['campaign'], 2))
		SELECT jobq.complete_jobs(ARRAY(SELECT id FROM c), ARRAY(SELECT lease_token FROM c))`)
	e.kill(t, "bounces", 1)

	b := newBrowser(t, e.server.URL, 1280, 900)
	b.open("/jobs/" + strconv.FormatInt(ids[2], 10))
	b.waitText("#batch-state", "sealed")
	if got := b.text("#batch-counts"); got != "3 of 4 ended (75%): 2 succeeded, 1 dead, 0 canceled, 1 pending" {
		t.Fatalf("the batch's counts read %q", got)
	}
	if got := b.js(`String(document.querySelector("#batch-bar").value)`); got != "75" {
		t.Fatalf("the progress bar is at %s, want 75", got)
	}
	if !strings.Contains(b.text("#batch"), "spring campaign") {
		t.Fatalf("the batch section lacks its description: %q", b.text("#batch"))
	}
	b.shot("batch")

	mustExec(t, e.admin, `WITH c AS (SELECT * FROM jobq.claim_job('w-batch', ARRAY['campaign'], 1))
		SELECT jobq.complete_jobs(ARRAY(SELECT id FROM c), ARRAY(SELECT lease_token FROM c))`)
	b.open("/jobs/" + strconv.FormatInt(ids[0], 10))
	b.waitText("#batch-state", "settled")
	if got := b.js(`String(document.querySelector("#batch-bar").value)`); got != "100" {
		t.Fatalf("a settled batch's bar is at %s, want 100", got)
	}
	if n := b.count(`#batch a[href*="/jobs/"]`); n != 1 {
		t.Fatalf("the settled batch links %d callback jobs, want 1", n)
	}

	plainJobHasNo(t, e, b, "#batch")
	keepPageScreenshot(t, b, "batch")
}
