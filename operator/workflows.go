package operator

import (
	"context"
	"encoding/json"
	"time"

	"github.com/jackc/pgx/v5"
)

// WorkflowNode is one node of a workflow's graph (jobq.workflow_graph): a job with its task,
// queue and state (pruned, with no task or queue, for a parent gone from the history), its
// relation to the job asked about (job, ancestor, descendant, sequence_ahead, sequence_behind),
// its depth (negative above the job, positive below) and its parents among the graph's nodes:
// the edges, parent to child.
type WorkflowNode struct {
	ID        int64   `json:"id" db:"id"`
	Task      *string `json:"task" db:"task"`
	Queue     *string `json:"queue" db:"queue"`
	State     string  `json:"state" db:"state"`
	Relation  string  `json:"relation" db:"relation"`
	Depth     int32   `json:"depth" db:"depth"`
	ParentIDs []int64 `json:"parent_ids" db:"parent_ids"`
}

// WorkflowGraph is the workflow a job belongs to: its ancestors and descendants, walked breadth
// first up to a bound, and its sequence's neighbours. Truncated says the walk stopped at the
// bound; more of the workflow exists than Nodes holds.
type WorkflowGraph struct {
	Nodes     []WorkflowNode `json:"nodes"`
	Truncated bool           `json:"truncated"`
}

// WorkflowGraph reads the graph of the workflow job id belongs to, at most maxNodes nodes
// (jobq.workflow_graph clamps it to 1..1000; 0 asks for its default, 200), under row-level
// security: the dashboard's job page draws it. A job the caller cannot see, or one that does
// not exist, has an empty graph.
func (o *Operator) WorkflowGraph(ctx context.Context, id int64, maxNodes int) (WorkflowGraph, error) {
	var limit *int
	if maxNodes > 0 {
		limit = &maxNodes
	}
	var g WorkflowGraph
	type row struct {
		WorkflowNode
		Truncated bool `db:"truncated"`
	}
	rows, err := list(ctx, o, "workflow_graph", pgx.RowToStructByName[row],
		`SELECT id, task, queue, state, relation, depth, parent_ids, truncated FROM jobq.workflow_graph($1, $2)`, id, limit)
	if err != nil {
		return g, err
	}
	g.Nodes = make([]WorkflowNode, 0, len(rows))
	for _, r := range rows {
		g.Nodes = append(g.Nodes, r.WorkflowNode)
		g.Truncated = g.Truncated || r.Truncated
	}
	return g, nil
}

// JobResult is what jobq.job_result says of a job: its state, and for a finished job the result
// its succeeded attempt returned (nil when none) and when it finished.
type JobResult struct {
	State      string          `json:"state"`
	Result     json.RawMessage `json:"result"`
	FinishedAt *time.Time      `json:"finished_at"`
}

// JobResult reads job id's state and result (jobq.job_result) under the caller's rights: jobq
// jobs show prints it for a finished job. Errors: jobq.ErrNotFound (no such job, pruned, or one
// the caller may not see).
func (o *Operator) JobResult(ctx context.Context, id int64) (JobResult, error) {
	var r JobResult
	err := o.db.QueryRow(ctx, `SELECT state, result, finished_at FROM jobq.job_result($1)`, id).Scan(&r.State, &r.Result, &r.FinishedAt)
	return r, wrap(err, "job_result")
}
