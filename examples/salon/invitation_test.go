package salon_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq/examples/salon"
	"github.com/jobqdev/jobq/runner"
)

// The invitation mail goes out once per invitation, over real SMTP: the first job sends it with
// the invitation's link and Message-ID; a later job for the same invitation, five jobs for one
// invitation running at once, and a job whose first two deliveries the server refuses all end
// with exactly one mail for their invitation.
func TestInvitationMailIsSentExactlyOncePerInvitation(t *testing.T) {
	t.Parallel()
	d := newSalonDB(t)
	store := d.stores(t, 1)[0]
	sink := startSink(t)
	d.runApp(t, salon.SMTPMailer{Addr: sink.Addr()}, 5)
	ctx := context.Background()
	mailsTo := func(addr string) int {
		n := 0
		for _, m := range sink.Messages() {
			if m.To == addr {
				n++
			}
		}
		return n
	}
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

	// The first job sends; its record names it.
	first := invite(t, d, store, "first@example.com", 0)
	inv := invitationOf(first)
	d.waitFinished(t, 10*time.Second, "send-operator-invitation-email")
	require.Equal(t, 1, mailsTo("first@example.com"))
	m := sink.Messages()[0]
	require.Equal(t, salon.InvitationMessageID(inv), m.MessageID)
	var token string
	require.NoError(t, d.admin.QueryRow(ctx, `SELECT token::text FROM public.operator_invitation WHERE id = $1`, inv).Scan(&token))
	require.True(t, strings.Contains(string(m.Raw), token), "the mail carries the invitation's link")
	require.Equal(t, 1, d.count(t, `SELECT count(*) FROM public.invitation_email_delivery WHERE invitation_id = $1 AND job_id = $2`, inv, first))

	// A second job for the same invitation succeeds without sending.
	extraJobs(inv, 1)
	d.waitFinished(t, 10*time.Second, "send-operator-invitation-email")
	require.Equal(t, 1, mailsTo("first@example.com"), "a job that runs again sends nothing")

	// Five jobs for one invitation at once: one mail.
	racing := invite(t, d, store, "race@example.com", 0)
	extraJobs(invitationOf(racing), 4)
	d.waitFinished(t, 10*time.Second, "send-operator-invitation-email")
	require.Equal(t, 1, mailsTo("race@example.com"), "five concurrent jobs, one mail")
	require.Equal(t, 7, d.count(t, `SELECT count(*) FROM jobq.job_history WHERE task = 'send-operator-invitation-email' AND state = 'succeeded'`))

	// Two refused deliveries (451), then success: one mail, on the third attempt.
	sink.FailNext(2)
	flaky := invite(t, d, store, "flaky@example.com", 0)
	d.waitFinished(t, 10*time.Second, "send-operator-invitation-email")
	require.Equal(t, 1, mailsTo("flaky@example.com"))
	require.Equal(t, 3, d.count(t, `SELECT attempt FROM jobq.job_history WHERE id = $1 AND state = 'succeeded'`, flaky))
	require.Equal(t, 1, d.count(t, `SELECT count(*) FROM public.invitation_email_delivery WHERE invitation_id = $1`, invitationOf(flaky)),
		"the refused attempts left no record (they rolled back)")
}
