package runner

import (
	"context"
	"fmt"
	"time"

	"github.com/jobqdev/jobq"
)

// Schedules returns the schedules Run declares at start (Config.Schedules).
func (r *Runner) Schedules() []jobq.ScheduleDefinition {
	return append([]jobq.ScheduleDefinition(nil), r.schedules...)
}

// DeclareSchedules declares every schedule of Schedules in jobq.schedules now, each in its own
// statement (Client.Schedule on the runner's pool). Declaring is idempotent: a schedule that
// differs in nothing is left as it was (updated_at and its place included); a changed cron or
// time zone restarts it at the first slot after now. The tasks they name must be declared
// first (DeclareTasks). Run calls both before it claims. An error the engine raises (such as
// jobq.ErrInvalidCron) names the schedule.
func (r *Runner) DeclareSchedules(ctx context.Context) error {
	_, err := r.declareScheduleList(ctx)
	return err
}

func (r *Runner) declareScheduleList(ctx context.Context) ([]time.Time, error) {
	next := make([]time.Time, 0, len(r.schedules))
	for _, def := range r.schedules {
		at, err := r.client.Schedule(ctx, def)
		if err != nil {
			return nil, fmt.Errorf("runner: declare schedule %q: %w", def.Name, err)
		}
		next = append(next, at)
	}
	return next, nil
}

// declareSchedules is DeclareSchedules at start, logged once.
func (r *Runner) declareSchedules(ctx context.Context) error {
	next, err := r.declareScheduleList(ctx)
	if err != nil || len(next) == 0 || r.schedulesLogged {
		return err
	}
	for i, def := range r.schedules {
		r.log.Info("schedule declared", "schedule", def.Name, "cron", def.Cron, "taskName", def.Task,
			"timezone", def.Timezone, "nextSlotAt", next[i].UTC().Format(time.RFC3339))
	}
	r.schedulesLogged = true
	return nil
}
