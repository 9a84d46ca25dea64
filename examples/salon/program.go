package salon

import (
	"context"
	"time"

	"github.com/jobqdev/jobq/runner"
	"github.com/jobqdev/jobq/worker"
)

const workerUsage = `Runs the salon's background jobs (seed SRS-WRK-001) as worker_runtime: the twelve tasks of the
Phase 1 catalogue plus the two store tasks of the operator clean-ups, and the cron table of §7.3
(declared at start; the leader enqueues each slot). Give it WORKER_DATABASE_URL, a worker_runtime
URL; it refuses the migrator's role (WORKER.UNSAFE_ROLE). Invitation mails go to --smtp-addr.
Serves /healthz (liveness) and /readyz (database and jobq schema) on --health-addr.
`

// Program is the salon worker process (salon worker): the common jobq worker process with the
// salon's tasks, schedules and SMTP flags. mailer, when not nil, replaces the SMTP mailer (the
// demo and tests pass their own).
func Program(mailer Mailer) worker.Program {
	var smtpAddr, invitationURL string
	var smtpTimeout time.Duration
	return worker.Program{
		Name:  "salon worker",
		Usage: workerUsage,
		Flags: func(fs *worker.FlagSet) {
			fs.String(&smtpAddr, "smtp-addr", "SMTP_ADDR", "localhost:25", "host:port of the SMTP server the invitation mails go to")
			fs.Duration(&smtpTimeout, "smtp-timeout", "SMTP_TIMEOUT", 30*time.Second, "longest delivery of one mail")
			fs.String(&invitationURL, "invitation-url", "INVITATION_URL", "https://salon.example/invitations/", "start of the link in an invitation mail")
		},
		Configure: func(cfg *runner.Config, env worker.Env) error {
			if smtpTimeout <= 0 {
				return worker.UsageError{Msg: "--smtp-timeout must be positive"}
			}
			cfg.Schedules = Schedules()
			return nil
		},
		Setup: func(ctx context.Context, r *runner.Runner, env worker.Env) error {
			m := mailer
			if m == nil {
				m = SMTPMailer{Addr: smtpAddr, Timeout: smtpTimeout}
			}
			app := &App{Mailer: m, InvitationURL: invitationURL, Log: env.Log}
			app.Register(r)
			return nil
		},
	}
}
