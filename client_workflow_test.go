package jobq_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/testbundle"
)

// The client passes a job's workflow (docs/dependencies.md): DependsOn and SequenceKey to
// Enqueue, Ref and DependsOnRefs to EnqueueMany; a bad one is its catalogued sentinel error and
// nothing is written.
func TestEnqueueWithDependenciesAndSequences(t *testing.T) {
	t.Parallel()
	b := testbundle.New(t)
	b.Define(t, "wf-step")
	parent, err := b.App.Enqueue(b.Ctx, "wf-step", nil, jobq.EnqueueOptions{Queue: "wf"})
	require.NoError(t, err)
	child, err := b.App.Enqueue(b.Ctx, "wf-step", nil, jobq.EnqueueOptions{Queue: "wf", DependsOn: []int64{parent}, OnParentFailure: "run"})
	require.NoError(t, err)
	require.Equal(t, "blocked", b.Live(t, child).State)

	first, err := b.App.Enqueue(b.Ctx, "wf-step", nil, jobq.EnqueueOptions{Queue: "seq", SequenceKey: "acct-1", OnSequenceFailure: "continue"})
	require.NoError(t, err)
	second, err := b.App.Enqueue(b.Ctx, "wf-step", nil, jobq.EnqueueOptions{Queue: "seq", SequenceKey: "acct-1"})
	require.NoError(t, err)
	require.Equal(t, "queued", b.Live(t, first).State)
	require.Equal(t, "blocked", b.Live(t, second).State)

	ids, err := b.App.EnqueueMany(b.Ctx, []jobq.JobSpec{
		{Task: "wf-step", Ref: "a"},
		{Task: "wf-step", Ref: "b", DependsOnRefs: []string{"a"}, EnqueueOptions: jobq.EnqueueOptions{DependsOn: []int64{parent}}},
	})
	require.NoError(t, err)
	require.Len(t, ids, 2)
	require.Equal(t, "blocked", b.Live(t, ids[1]).State)
	require.Equal(t, 2, b.Count(t, `SELECT count(*) FROM jobq.job_dependencies WHERE child_id = $1`, ids[1]))

	before := b.Count(t, `SELECT count(*) FROM jobq.jobs`)
	_, err = b.App.Enqueue(b.Ctx, "wf-step", nil, jobq.EnqueueOptions{DependsOn: []int64{999999999}})
	require.ErrorIs(t, err, jobq.ErrDependencyNotFound)
	_, err = b.App.Enqueue(b.Ctx, "wf-step", nil, jobq.EnqueueOptions{JobKey: "k", SequenceKey: "s"})
	require.ErrorIs(t, err, jobq.ErrWorkflowKeyed)
	_, err = b.App.EnqueueMany(b.Ctx, []jobq.JobSpec{{Task: "wf-step", DependsOnRefs: []string{"nope"}}})
	require.ErrorIs(t, err, jobq.ErrUnknownRef)
	require.Equal(t, before, b.Count(t, `SELECT count(*) FROM jobq.jobs`), "the refused enqueues wrote nothing")
}
