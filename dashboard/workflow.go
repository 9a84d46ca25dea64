package dashboard

import (
	"context"
	"fmt"
	"html/template"
	"math"
	"sort"
	"strings"

	"github.com/jobqdev/jobq/operator"
)

// workflowNodes is how many jobs the job page draws of a workflow at most: jobq.workflow_graph
// walks that far from the job, nearest first, and says when it stopped there.
const workflowNodes = 200

// The drawing's sizes, in SVG units: a node's box, the gaps between columns and rows.
const (
	wfNodeW  = 176
	wfNodeH  = 42
	wfColGap = 56
	wfRowGap = 14
	wfPad    = 8
)

// workflowView is the workflow a job belongs to (Operator.WorkflowGraph) laid out for the job
// page: each node in a column (its longest path from the graph's sources, so that every edge
// goes right) and a row within it.
type workflowView struct {
	JobID     int64
	Nodes     []operator.WorkflowNode
	Truncated bool
	Max       int
	col, row  map[int64]int
	cols      int
	rows      int
}

// loadWorkflow reads the workflow job id belongs to; nil when the job has none (it is the only
// node).
func loadWorkflow(ctx context.Context, q querier, id int64) (*workflowView, error) {
	g, err := operator.New(q).WorkflowGraph(ctx, id, workflowNodes)
	if err != nil || len(g.Nodes) <= 1 {
		return nil, err
	}
	v := &workflowView{JobID: id, Nodes: g.Nodes, Truncated: g.Truncated, Max: workflowNodes}
	v.layout()
	return v, nil
}

// wfEdge is an edge of the drawing, parent to child; Seq: the order of a sequence.
type wfEdge struct {
	From, To int64
	Seq      bool
}

// edges are the graph's edges, parent to child: the dependencies among its nodes, and the
// sequence's order from the job ahead to the job and from the job to the job behind (seq).
func (v *workflowView) edges() (out []wfEdge) {
	for _, n := range v.Nodes {
		for _, p := range n.ParentIDs {
			out = append(out, wfEdge{p, n.ID, false})
		}
		switch n.Relation {
		case "sequence_ahead":
			out = append(out, wfEdge{n.ID, v.JobID, true})
		case "sequence_behind":
			out = append(out, wfEdge{v.JobID, n.ID, true})
		}
	}
	return out
}

// layout places the nodes. A job's parents and the job ahead in its sequence were enqueued
// before it, so every edge goes from a lower id to a higher one and id order is a topological
// order: a node's column is one more than its parents' furthest. Within a column, nodes sit in
// the order of their parents' mean row (fewer crossings), then by id, each at that mean row when
// it is free (so that a chain runs straight) or the next one below.
func (v *workflowView) layout() {
	sort.Slice(v.Nodes, func(i, j int) bool { return v.Nodes[i].ID < v.Nodes[j].ID })
	parents := map[int64][]int64{}
	for _, e := range v.edges() {
		parents[e.To] = append(parents[e.To], e.From)
	}
	v.col = map[int64]int{}
	v.row = map[int64]int{}
	byCol := map[int][]int64{}
	for _, n := range v.Nodes {
		c := 0
		for _, p := range parents[n.ID] {
			if pc, ok := v.col[p]; ok && pc+1 > c {
				c = pc + 1
			}
		}
		v.col[n.ID] = c
		byCol[c] = append(byCol[c], n.ID)
		v.cols = max(v.cols, c+1)
	}
	for c := 0; c < v.cols; c++ {
		ids := byCol[c]
		weight := map[int64]float64{}
		for _, id := range ids {
			sum, k := 0.0, 0
			for _, p := range parents[id] {
				if r, ok := v.row[p]; ok {
					sum += float64(r)
					k++
				}
			}
			if k > 0 {
				weight[id] = sum / float64(k)
			}
		}
		sort.SliceStable(ids, func(i, j int) bool { return weight[ids[i]] < weight[ids[j]] })
		next := 0
		for _, id := range ids {
			r := max(next, int(math.Round(weight[id])))
			v.row[id] = r
			next = r + 1
		}
		v.rows = max(v.rows, next)
	}
}

// States are the states the legend explains, in the order of a job's life.
func (v *workflowView) States() []string {
	return []string{"blocked", "queued", "running", "retry_pending", "succeeded", "dead", "canceled"}
}

// SVG draws the graph: each node a link to its job page with its id, task and state, coloured
// by state (classes of app.css; the page's Content-Security-Policy allows no inline style), the
// job itself outlined; dependency edges as arrows, sequence edges dashed. Text is escaped.
func (v *workflowView) SVG(base string) template.HTML {
	w := wfPad*2 + v.cols*wfNodeW + (v.cols-1)*wfColGap
	h := wfPad*2 + v.rows*wfNodeH + (v.rows-1)*wfRowGap
	xy := func(id int64) (int, int) {
		return wfPad + v.col[id]*(wfNodeW+wfColGap), wfPad + v.row[id]*(wfNodeH+wfRowGap)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="wf" id="workflow-graph" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="the workflow of job %d: %d jobs">`,
		w, h, w, h, v.JobID, len(v.Nodes))
	b.WriteString(`<defs><marker id="wf-arrow" viewBox="0 0 8 8" refX="8" refY="4" markerWidth="7" markerHeight="7" orient="auto"><path class="wf-head" d="M0,0 L8,4 L0,8 z"/></marker></defs>`)
	for _, e := range v.edges() {
		if _, ok := v.col[e.From]; !ok {
			continue
		}
		x1, y1 := xy(e.From)
		x2, y2 := xy(e.To)
		x1, y1, y2 = x1+wfNodeW, y1+wfNodeH/2, y2+wfNodeH/2
		class := "wf-edge"
		if e.Seq {
			class += " seq"
		}
		mid := float64(x1+x2) / 2
		fmt.Fprintf(&b, `<path class="%s" data-from="%d" data-to="%d" d="M%d,%d C%.0f,%d %.0f,%d %d,%d" marker-end="url(#wf-arrow)"/>`,
			class, e.From, e.To, x1, y1, mid, y1, mid, y2, x2, y2)
	}
	for _, n := range v.Nodes {
		x, y := xy(n.ID)
		class := "wf-node " + stateClass(n.State)
		if n.ID == v.JobID {
			class += " current"
		}
		task := "(pruned from the history)"
		if n.Task != nil {
			task = *n.Task
		}
		label := fmt.Sprintf("#%d %s", n.ID, task)
		fmt.Fprintf(&b, `<a href="%s/jobs/%d" class="%s" data-job="%d" data-state="%s" data-relation="%s">`,
			template.HTMLEscapeString(base), n.ID, class, n.ID, template.HTMLEscapeString(n.State), template.HTMLEscapeString(n.Relation))
		fmt.Fprintf(&b, `<title>job %d, %s: %s (%s)</title>`, n.ID, template.HTMLEscapeString(task),
			template.HTMLEscapeString(n.State), strings.ReplaceAll(n.Relation, "_", " "))
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" rx="6"/>`, x, y, wfNodeW, wfNodeH)
		fmt.Fprintf(&b, `<text class="wf-label" x="%d" y="%d">%s</text>`, x+8, y+17, template.HTMLEscapeString(short(label, 23)))
		fmt.Fprintf(&b, `<text class="wf-state" x="%d" y="%d">%s</text>`, x+8, y+33, template.HTMLEscapeString(n.State))
		b.WriteString(`</a>`)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// stateClass is the CSS class of a state: the state itself for the states app.css colours,
// "other" for anything else.
func stateClass(s string) string {
	switch s {
	case "queued", "blocked", "running", "retry_pending", "succeeded", "dead", "canceled", "pruned":
		return s
	}
	return "other"
}
