package runner

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/jobqdev/jobq"
)

// Schedules returns the schedules Run declares at start (Config.Schedules).
func (r *Runner) Schedules() []jobq.ScheduleDefinition {
	return append([]jobq.ScheduleDefinition(nil), r.sched.schedules...)
}

// DeclareSchedules declares every schedule of Schedules in jobq.schedules now, each in its own
// statement (Client.Schedule on the runner's pool). Declaring is idempotent: a schedule that
// differs in nothing is left as it was (updated_at and its place included); a changed cron or
// time zone restarts it at the first slot after now. The tasks they name must be declared
// first (DeclareTasks). Run calls both before it claims. An error the engine raises (such as
// jobq.ErrInvalidCron) names the schedule.
func (r *Runner) DeclareSchedules(ctx context.Context) error {
	_, err := r.sched.declareList(ctx)
	return err
}

// scheduler declares a schedule (jobq.schedule) and returns its next slot. *jobq.Client
// satisfies it.
type scheduler interface {
	Schedule(ctx context.Context, def jobq.ScheduleDefinition) (time.Time, error)
}

// scheduleSync declares a runner's schedules in the database. It needs only the engine's call,
// the schedules and a logger.
type scheduleSync struct {
	engine    scheduler
	schedules []jobq.ScheduleDefinition
	log       *slog.Logger
	logged    bool // "schedule declared" was logged; touched only by start
}

// declareList declares every schedule, in order, and returns the next slot of each.
func (s *scheduleSync) declareList(ctx context.Context) ([]time.Time, error) {
	next := make([]time.Time, 0, len(s.schedules))
	for _, def := range s.schedules {
		at, err := s.engine.Schedule(ctx, def)
		if err != nil {
			return nil, fmt.Errorf("runner: declare schedule %q: %w", def.Name, err)
		}
		next = append(next, at)
	}
	return next, nil
}

// declare is DeclareSchedules at start: each schedule is logged with its next slot once, the
// first time the declarations pass.
func (s *scheduleSync) declare(ctx context.Context) error {
	next, err := s.declareList(ctx)
	if err != nil || len(next) == 0 || s.logged {
		return err
	}
	for i, def := range s.schedules {
		s.log.Info("schedule declared", "schedule", def.Name, "cron", def.Cron, "taskName", def.Task,
			"timezone", def.Timezone, "nextSlotAt", next[i].UTC().Format(time.RFC3339))
	}
	s.logged = true
	return nil
}
