package dashboard_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// Issue 35: the job page draws the workflow its job belongs to, in headless chromium. A fan-out
// and fan-in (extract -> load a, b, c -> merge -> publish; extract -> audit -> archive; extract ->
// check -> alert, which runs although check died) has a job in each state; the root's page shows
// every node once, linked to its job page, with its state as text and as its class, and an arrow
// per dependency. A job in a sequence shows the jobs ahead and behind; a fan-out of 250 is cut
// at 200 nodes and the page says so; a job without workflow has no graph. With
// JOBQ_UPDATE_SCREENSHOTS=1 it keeps docs/screenshots/workflow.png.
func TestTheJobPageDrawsItsWorkflow(t *testing.T) {
	e := newEnv(t, nil)
	ids := map[string]int64{}
	rows, err := e.admin.Query(t.Context(), `SELECT e.n, e.id FROM jobq.enqueue_many($1) WITH ORDINALITY AS e(id, n)`,
		`[{"task": "report", "ref": "extract", "queue": "wf-extract"},
		  {"task": "report", "ref": "load-a", "depends_on_refs": ["extract"], "queue": "wf-a"},
		  {"task": "report", "ref": "load-b", "depends_on_refs": ["extract"], "queue": "wf-b"},
		  {"task": "report", "ref": "load-c", "depends_on_refs": ["extract"], "queue": "wf-c"},
		  {"task": "report", "ref": "merge", "depends_on_refs": ["load-a", "load-b", "load-c"], "queue": "wf-merge"},
		  {"task": "mail", "ref": "publish", "depends_on_refs": ["merge"], "queue": "wf-publish"},
		  {"task": "report", "ref": "audit", "depends_on_refs": ["extract"], "queue": "wf-audit"},
		  {"task": "mail", "ref": "archive", "depends_on_refs": ["audit"], "queue": "wf-archive"},
		  {"task": "report", "ref": "check", "depends_on_refs": ["extract"], "queue": "wf-check", "max_attempts": 1},
		  {"task": "mail", "ref": "alert", "depends_on_refs": ["check"], "on_parent_failure": "run", "queue": "wf-alert"}]`)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"extract", "load-a", "load-b", "load-c", "merge", "publish", "audit", "archive", "check", "alert"}
	for rows.Next() {
		var n, id int64
		if err := rows.Scan(&n, &id); err != nil {
			t.Fatal(err)
		}
		ids[names[n-1]] = id
	}
	if err := rows.Err(); err != nil || len(ids) != len(names) {
		t.Fatalf("enqueue_many: %v, %d ids", err, len(ids))
	}
	complete := func(queue string) {
		mustExec(t, e.admin, `SELECT jobq.complete_job(c.id, c.lease_token) FROM jobq.claim_job('w-wf', ARRAY[$1::text], 1) AS c`, queue)
	}
	fail := func(queue string, retryable bool) {
		mustExec(t, e.admin, `SELECT jobq.fail_job(c.id, c.lease_token, 'the warehouse timed out', NULL, $2, interval '1 hour')
			FROM jobq.claim_job('w-wf', ARRAY[$1::text], 1) AS c`, queue, retryable)
	}
	complete("wf-extract")
	complete("wf-a")
	mustExec(t, e.admin, `SELECT count(*) FROM jobq.claim_job('w-wf', ARRAY['wf-b'], 1)`)
	fail("wf-c", true)
	mustExec(t, e.admin, `SELECT jobq.cancel_job($1)`, ids["audit"])
	fail("wf-check", false)
	want := map[string]string{"extract": "succeeded", "load-a": "succeeded", "load-b": "running", "load-c": "retry_pending",
		"merge": "blocked", "publish": "blocked", "audit": "canceled", "archive": "canceled", "check": "dead", "alert": "queued"}

	b := newBrowser(t, e.server.URL, 1280, 900)
	b.open("/jobs/" + strconv.FormatInt(ids["extract"], 10))
	b.waitText("#job-state", "succeeded")
	if n := b.count(`#workflow-graph a[data-job]`); n != len(names) {
		t.Fatalf("the graph has %d nodes, want %d", n, len(names))
	}
	for name, state := range want {
		sel := fmt.Sprintf(`#workflow-graph a[data-job="%d"]`, ids[name])
		got := b.js(fmt.Sprintf(`(function(){ var a = document.querySelector(%q); if (!a) return "missing";
			return a.getAttribute("data-state") + "|" + a.getAttribute("class") + "|" + a.getAttribute("href") + "|" + a.textContent; })()`, sel))
		parts := strings.SplitN(got, "|", 4)
		if len(parts) != 4 || parts[0] != state || !strings.Contains(parts[1], state) ||
			!strings.HasSuffix(parts[2], "/jobs/"+strconv.FormatInt(ids[name], 10)) || !strings.Contains(parts[3], state) {
			t.Errorf("%s (job %d): node reads %q, want state %s with its class, link and text", name, ids[name], got, state)
		}
	}
	if n := b.count(`#workflow-graph path.wf-edge`); n != 11 {
		t.Errorf("the graph has %d edges, want 11 (one per dependency)", n)
	}
	if n := b.count(`#workflow-graph a.current`); n != 1 {
		t.Errorf("%d nodes are marked as the page's job, want 1", n)
	}
	// Every node's box is inside the drawing and no two overlap.
	if got := b.js(`(function(){ var r = Array.from(document.querySelectorAll("#workflow-graph a[data-job] rect")).map(e => e.getBBox());
		for (var i = 0; i < r.length; i++) for (var j = i + 1; j < r.length; j++) {
			if (r[i].x < r[j].x + r[j].width && r[j].x < r[i].x + r[i].width && r[i].y < r[j].y + r[j].height && r[j].y < r[i].y + r[i].height) return "overlap " + i + " " + j; }
		return "ok"; })()`); got != "ok" {
		t.Errorf("the nodes' boxes: %s", got)
	}
	if n := b.count("#workflow-cut"); n != 0 {
		t.Errorf("a whole workflow is said to be cut")
	}
	b.shot("workflow")

	// The fan-in's page: its ancestors and its dependent, not its parents' other children.
	b.open("/jobs/" + strconv.FormatInt(ids["merge"], 10))
	b.waitText("#job-state", "blocked")
	if n := b.count(`#workflow-graph a[data-job]`); n != 6 {
		t.Errorf("the fan-in's graph has %d nodes, want 6 (extract, load a, b, c, merge, publish)", n)
	}

	// A sequence: the jobs ahead and behind, joined by dashed edges.
	var seq []int64
	for range 3 {
		seq = append(seq, queryInt(t, e.admin, `SELECT jobq.enqueue('report', queue => 'wf-seq', sequence_key => 'ledger')`))
	}
	b.open("/jobs/" + strconv.FormatInt(seq[1], 10))
	b.waitText("#job-state", "blocked")
	for i, rel := range []string{"sequence_ahead", "job", "sequence_behind"} {
		if got := b.js(fmt.Sprintf(`(function(){ var a = document.querySelector('#workflow-graph a[data-job="%d"]'); return a ? a.getAttribute("data-relation") : "missing"; })()`, seq[i])); got != rel {
			t.Errorf("sequence job %d: relation %q, want %q", seq[i], got, rel)
		}
	}
	if n := b.count(`#workflow-graph path.wf-edge.seq`); n != 2 {
		t.Errorf("%d dashed sequence edges, want 2", n)
	}

	// A fan-out of 250: cut at 200 nodes, and said.
	fan := queryInt(t, e.admin, `SELECT min(e.id) FROM jobq.enqueue_many((SELECT jsonb_build_array(jsonb_build_object('task', 'report', 'ref', 'root', 'queue', 'wf-fan'))
		|| jsonb_agg(jsonb_build_object('task', 'mail', 'depends_on_refs', jsonb_build_array('root'), 'queue', 'wf-fan')) FROM generate_series(1, 250))) AS e(id)`)
	b.open("/jobs/" + strconv.FormatInt(fan, 10))
	b.waitText("#workflow-cut", "200")
	if n := b.count(`#workflow-graph a[data-job]`); n != 200 {
		t.Errorf("the cut fan-out draws %d nodes, want 200", n)
	}

	plainJobHasNo(t, e, b, "#workflow")
	keepPageScreenshot(t, b, "workflow")
}

// plainJobHasNo opens the page of a new job without workflow, batch or result and fails the
// test when it has an element of css.
func plainJobHasNo(t *testing.T, e *env, b *browser, css string) {
	t.Helper()
	plain := e.enqueue(t, "mail", "emails", "", 3)
	b.open("/jobs/" + strconv.FormatInt(plain, 10))
	b.waitText("#job-state", "queued")
	if n := b.count(css); n != 0 {
		t.Fatalf("a plain job's page has %d %s, want none", n, css)
	}
}
