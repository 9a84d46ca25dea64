package salon_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq/examples/salon"
	"github.com/jobqdev/jobq/examples/salon/smtpsink"
	"github.com/jobqdev/jobq/runner"
)

// The invitation mail goes out once per invitation, over real SMTP: the first job records it and
// its delivery job sends it with the invitation's link and Message-ID; a later job for the same
// invitation, five jobs for one invitation running at once, and a delivery whose first two
// attempts the server refuses all end with exactly one mail for their invitation.
func TestInvitationMailIsSentExactlyOncePerInvitation(t *testing.T) {
	t.Parallel()
	d := newSalonDB(t)
	store := d.stores(t, 1)[0]
	sink := startSink(t)
	d.runApp(t, salon.SMTPMailer{Addr: sink.Addr()}, 5)
	ctx := context.Background()
	invitationOf := func(jobID int64) string {
		var inv string
		require.NoError(t, d.admin.QueryRow(ctx, `
			SELECT payload ->> 'invitationId' FROM jobq.jobs WHERE id = $1
			UNION ALL SELECT payload ->> 'invitationId' FROM jobq.job_history WHERE id = $1`, jobID).Scan(&inv))
		return inv
	}
	// extraJobs enqueues n more mail jobs for the invitation, without a job key (so none merges).
	extraJobs := func(inv string, n int) {
		err := runner.WithTenant(ctx, d.api, store, func(ctx context.Context, tx pgx.Tx) error {
			for range n {
				if _, err := salon.SendOperatorInvitationEmailTask.Enqueue(ctx, tx, store,
					salon.SendOperatorInvitationEmail{InvitationID: inv}, nil); err != nil {
					return err
				}
			}
			return nil
		})
		require.NoError(t, err)
	}

	// The first job records the mail, its delivery job sends it; the outbox row names both.
	first := invite(t, d, store, "first@example.com", 0)
	inv := invitationOf(first)
	d.waitFinished(t, time.Minute, mailTasks...)
	require.Equal(t, 1, mailsTo(sink, "first@example.com"))
	m := sink.Messages()[0]
	require.Equal(t, salon.InvitationMessageID(inv), m.MessageID)
	var token string
	require.NoError(t, d.admin.QueryRow(ctx, `SELECT token::text FROM public.operator_invitation WHERE id = $1`, inv).Scan(&token))
	require.True(t, strings.Contains(string(m.Raw), token), "the mail carries the invitation's link")
	require.Equal(t, 1, d.count(t, `SELECT count(*) FROM public.invitation_email_delivery d JOIN jobq.job_history h ON h.id = d.delivery_job_id
		WHERE d.invitation_id = $1 AND d.job_id = $2 AND d.sent_at IS NOT NULL AND h.task = 'deliver-operator-invitation-email' AND h.state = 'succeeded'`, inv, first))

	// A second job for the same invitation succeeds without sending.
	extraJobs(inv, 1)
	d.waitFinished(t, time.Minute, mailTasks...)
	require.Equal(t, 1, mailsTo(sink, "first@example.com"), "a job that runs again sends nothing")

	// Five jobs for one invitation at once: one mail.
	racing := invite(t, d, store, "race@example.com", 0)
	extraJobs(invitationOf(racing), 4)
	d.waitFinished(t, time.Minute, mailTasks...)
	require.Equal(t, 1, mailsTo(sink, "race@example.com"), "five concurrent jobs, one mail")
	require.Equal(t, 7, d.count(t, `SELECT count(*) FROM jobq.job_history WHERE task = 'send-operator-invitation-email' AND state = 'succeeded'`))
	require.Equal(t, 2, d.count(t, `SELECT count(*) FROM jobq.job_history WHERE task = 'deliver-operator-invitation-email' AND state = 'succeeded'`),
		"one delivery job per invitation")

	// Two refused deliveries (451), then success: one mail, on the delivery's third attempt.
	sink.FailNext(2)
	flaky := invite(t, d, store, "flaky@example.com", 0)
	d.waitFinished(t, time.Minute, mailTasks...)
	require.Equal(t, 1, mailsTo(sink, "flaky@example.com"))
	require.Equal(t, 1, d.count(t, `SELECT attempt FROM jobq.job_history WHERE id = $1 AND state = 'succeeded'`, flaky), "recorded at once")
	require.Equal(t, 3, d.count(t, `SELECT h.attempt FROM public.invitation_email_delivery d JOIN jobq.job_history h ON h.id = d.delivery_job_id
		WHERE d.invitation_id = $1 AND h.state = 'succeeded'`, invitationOf(flaky)), "delivered at the third attempt")
}

// mailsTo counts the messages the sink received for addr.
func mailsTo(sink *smtpsink.Sink, addr string) int {
	n := 0
	for _, m := range sink.Messages() {
		if m.To == addr {
			n++
		}
	}
	return n
}

// mailTasks are the two jobs of an invitation mail: the one that records it and the one that
// delivers it.
var mailTasks = []string{"send-operator-invitation-email", "deliver-operator-invitation-email"}

// The mail is sent after the tenant transaction that decided it commits, never inside it (seed
// 001). A deferred check makes the commit of one invitation's transaction fail after the handler
// has done its work: each attempt rolls back, and no mail goes out (before, every attempt had
// sent one before its commit failed). Another invitation's transaction commits: exactly one mail.
func TestInvitationMailIsSentOnlyAfterItsTransactionCommits(t *testing.T) {
	t.Parallel()
	d := newSalonDB(t)
	store := d.stores(t, 1)[0]
	sink := startSink(t)
	d.exec(t, `
		CREATE FUNCTION public.test_refuse_commit() RETURNS trigger LANGUAGE plpgsql AS $f$
		BEGIN
			IF (SELECT i.email FROM public.operator_invitation i WHERE i.id = NEW.invitation_id) = 'rollback@example.com' THEN
				RAISE EXCEPTION 'the commit of this invitation''s transaction fails (test)';
			END IF;
			RETURN NULL;
		END
		$f$;
		CREATE CONSTRAINT TRIGGER test_refuse_commit AFTER INSERT ON public.invitation_email_delivery
			DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION public.test_refuse_commit()`)
	d.runApp(t, salon.SMTPMailer{Addr: sink.Addr()}, 2)

	rolledBack := invite(t, d, store, "rollback@example.com", 2)
	committed := invite(t, d, store, "committed@example.com", 0)
	d.waitFinished(t, time.Minute, mailTasks...)

	require.Equal(t, 0, mailsTo(sink, "rollback@example.com"), "a transaction that rolled back sent no mail")
	require.Equal(t, 1, d.count(t, `SELECT count(*) FROM jobq.job_history WHERE id = $1 AND state = 'dead' AND attempt = 2`, rolledBack),
		"setup: both attempts of the rolled-back invitation failed at commit")
	require.Equal(t, 0, d.count(t, `SELECT count(*) FROM public.invitation_email_delivery d JOIN public.operator_invitation i ON i.id = d.invitation_id
		WHERE i.email = 'rollback@example.com'`), "it left no outbox row")

	require.Equal(t, 1, mailsTo(sink, "committed@example.com"), "a transaction that committed sent exactly one mail")
	require.Equal(t, 1, d.count(t, `SELECT count(*) FROM jobq.job_history WHERE id = $1 AND state = 'succeeded'`, committed))
	require.Equal(t, 1, d.count(t, `SELECT count(*) FROM jobq.job_history WHERE task = 'deliver-operator-invitation-email'`),
		"one delivery job, for the committed invitation only")
	require.Len(t, sink.Messages(), 1)
}
