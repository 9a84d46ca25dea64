package salon

import (
	"context"
	"time"

	"github.com/jobqdev/jobq/runner"
	"github.com/jobqdev/jobq/worker"
)

const workerUsage = `Runs the salon's background jobs (seed SRS-WRK-001) as worker_runtime: the twelve tasks of the
Phase 1 catalogue plus the two store tasks of the operator clean-ups, and the cron table of §7.3
(declared at start; the leader enqueues each slot). Give it JOBQ_WORKER_DATABASE_URL, a worker_runtime
URL; it refuses the migrator's role (WORKER.UNSAFE_ROLE). Invitation mails go to --smtp-addr.
Serves /healthz (liveness) and /readyz (database and jobq schema) on --health-addr.
`

// mailFlags are the salon worker's own flags, parsed beside worker.Flags.
type mailFlags struct {
	SMTPAddr      string        `name:"smtp-addr" env:"SMTP_ADDR" oldenv:"JOBQ_SMTP_ADDR" default:"localhost:25" help:"host:port of the SMTP server the invitation mails go to"`
	SMTPTimeout   time.Duration `name:"smtp-timeout" env:"SMTP_TIMEOUT" oldenv:"JOBQ_SMTP_TIMEOUT" default:"30s" help:"longest delivery of one mail"`
	InvitationURL string        `name:"invitation-url" env:"INVITATION_URL" oldenv:"JOBQ_INVITATION_URL" default:"https://salon.example/invitations/" help:"start of the link in an invitation mail"`
}

// Program is the salon worker process (salon worker): the common jobq worker process with the
// salon's tasks, schedules and SMTP flags. mailer, when not nil, replaces the SMTP mailer (the
// demo and tests pass their own).
func Program(mailer Mailer) worker.Program {
	mf := &mailFlags{}
	return worker.Program{
		Name:  "salon worker",
		Usage: workerUsage,
		Flags: mf,
		Configure: func(cfg *runner.Config, env worker.Env) error {
			if mf.SMTPTimeout <= 0 {
				return worker.UsageError{Msg: "--smtp-timeout must be positive"}
			}
			cfg.Schedules = Schedules()
			return nil
		},
		Setup: func(ctx context.Context, r *runner.Runner, env worker.Env) error {
			m := mailer
			if m == nil {
				m = SMTPMailer{Addr: mf.SMTPAddr, Timeout: mf.SMTPTimeout}
			}
			app := &App{Mailer: m, InvitationURL: mf.InvitationURL, Log: env.Log}
			app.Register(r)
			return nil
		},
	}
}
