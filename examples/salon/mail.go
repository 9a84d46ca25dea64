package salon

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"mime"
	"net"
	"net/smtp"
	"net/textproto"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/runner"
)

// Mail is one message to send.
type Mail struct {
	From, To, Subject, Body string
	// MessageID is the Message-ID header, without angle brackets. The same invitation always gets
	// the same one, so a receiver can tell a resend from a new mail.
	MessageID string
}

// Mailer sends mail. An error wrapped by runner.Permanent is a refusal that retrying will not
// change (an SMTP 5xx reply); any other error is transient and the job retries.
type Mailer interface {
	Send(ctx context.Context, m Mail) error
}

// SMTPMailer sends mail to one SMTP server without authentication or TLS: a local relay or a
// sidecar such as Mailpit. Every message is one connection.
type SMTPMailer struct {
	// Addr is the server's host:port. Required.
	Addr string
	// Timeout bounds one delivery, connection included. Default: 30 seconds.
	Timeout time.Duration
}

// Send delivers m. A 5xx reply is returned wrapped in runner.Permanent.
func (s SMTPMailer) Send(ctx context.Context, m Mail) error {
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	host, _, err := net.SplitHostPort(s.Addr)
	if err != nil {
		return runner.Permanent(fmt.Errorf("smtp address %q: %w", s.Addr, err))
	}
	conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", s.Addr)
	if err != nil {
		return fmt.Errorf("smtp: %w", err)
	}
	defer conn.Close()
	if deadline, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(deadline)
	}
	c, err := smtp.NewClient(conn, host)
	if err != nil {
		return classify(err)
	}
	defer c.Close()
	if err := c.Mail(addressOf(m.From)); err != nil {
		return classify(err)
	}
	if err := c.Rcpt(addressOf(m.To)); err != nil {
		return classify(err)
	}
	w, err := c.Data()
	if err != nil {
		return classify(err)
	}
	if _, err := w.Write(m.bytes()); err != nil {
		return classify(err)
	}
	if err := w.Close(); err != nil {
		return classify(err)
	}
	return classify(c.Quit())
}

// classify marks a permanent SMTP refusal (5xx) as such.
func classify(err error) error {
	if err == nil {
		return nil
	}
	var reply *textproto.Error
	if errors.As(err, &reply) && reply.Code >= 500 {
		return runner.Permanent(fmt.Errorf("smtp: %w", err))
	}
	return fmt.Errorf("smtp: %w", err)
}

// addressOf returns the address part of "Name <addr>" (or s itself).
func addressOf(s string) string {
	if i, j := strings.LastIndexByte(s, '<'), strings.LastIndexByte(s, '>'); i >= 0 && j > i {
		return s[i+1 : j]
	}
	return s
}

// bytes renders m as an RFC 5322 message with CRLF line ends.
func (m Mail) bytes() []byte {
	var b bytes.Buffer
	header := func(k, v string) { fmt.Fprintf(&b, "%s: %s\r\n", k, v) }
	header("From", m.From)
	header("To", m.To)
	header("Subject", mime.QEncoding.Encode("utf-8", m.Subject))
	header("Message-ID", "<"+m.MessageID+">")
	header("Date", time.Now().UTC().Format(time.RFC1123Z))
	header("MIME-Version", "1.0")
	header("Content-Type", "text/plain; charset=utf-8")
	b.WriteString("\r\n")
	b.WriteString(strings.ReplaceAll(strings.ReplaceAll(m.Body, "\r\n", "\n"), "\n", "\r\n"))
	b.WriteString("\r\n")
	return b.Bytes()
}

// InvitationMessageID is the Message-ID of an invitation's mail.
func InvitationMessageID(invitationID string) string {
	return "invitation-" + invitationID + "@salon.invalid"
}

// FromAddress is the sender of the invitation mails.
const FromAddress = "Salon <no-reply@salon.invalid>"

// recordInvitation decides an invitation's mail, once. In the job's tenant transaction it reads
// the invitation and, while it is open, writes the mail into its outbox row
// (invitation_email_delivery, ON CONFLICT DO NOTHING) and enqueues its delivery job
// (deliver-operator-invitation-email) through the same transaction; it talks to no SMTP server. Both commit together
// or not at all: a transaction that rolls back leaves no row and no delivery job, so no mail
// goes out. A second job for the same invitation finds the row (or waits on its key until the
// first commits, then finds it) and records nothing. The delivery job gets the attempts this job
// was given.
func (a *App) recordInvitation(ctx context.Context, tx pgx.Tx, job *runner.Job[SendOperatorInvitationEmail]) error {
	log := a.log(job.Job).With("invitationId", job.Args.InvitationID)
	var email, token string
	var expired, accepted bool
	err := tx.QueryRow(ctx, `
		SELECT email, token::text, expires_at <= now(), accepted_at IS NOT NULL
		FROM public.operator_invitation WHERE id = $1::uuid`, job.Args.InvitationID).Scan(&email, &token, &expired, &accepted)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		log.Info("invitation is gone; nothing to send")
		return nil
	case err != nil:
		return err
	case expired || accepted:
		log.Info("invitation is no longer open; nothing to send", "expired", expired, "accepted", accepted)
		return nil
	}
	base := a.InvitationURL
	if base == "" {
		base = "https://salon.example/invitations/"
	}
	messageID := InvitationMessageID(job.Args.InvitationID)
	tag, err := tx.Exec(ctx, `
		INSERT INTO public.invitation_email_delivery (invitation_id, message_id, job_id, to_address, subject, body)
		VALUES ($1::uuid, $2, $3, $4, $5, $6) ON CONFLICT (invitation_id) DO NOTHING`,
		job.Args.InvitationID, messageID, job.ID, email, invitationSubject,
		"You have been invited to operate a salon.\n\nAccept the invitation: "+base+token+"\n")
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		log.Info("invitation mail was recorded already; not recording it again")
		return nil
	}
	delivery, err := DeliverOperatorInvitationEmailTask.Enqueue(ctx, tx, job.Store(),
		DeliverOperatorInvitationEmail{InvitationID: job.Args.InvitationID}, &jobq.EnqueueOptions{MaxAttempts: job.MaxAttempts})
	if err != nil {
		return err
	}
	log.Info("invitation mail recorded", "messageId", messageID, "deliveryJobId", delivery)
	return nil
}

// invitationSubject is the subject of an invitation mail.
const invitationSubject = "You are invited to operate a salon"

// deliverInvitation sends an invitation mail its outbox row holds, after the transaction that
// wrote the row committed (the job exists only then). It reads the row in a short tenant
// transaction, sends outside any transaction, then sets sent_at in another: a mail the server
// refused is sent again at the next attempt (4xx: retried; 5xx: dead at once), a mail already
// marked sent is not sent again. The one window left is a crash, or a lost database, after the
// server accepted the mail and before sent_at commits: the retry sends the same mail again, with
// the same Message-ID, so a receiver can tell.
func (a *App) deliverInvitation(ctx context.Context, r *runner.Runner, job *runner.Job[DeliverOperatorInvitationEmail]) error {
	log := a.log(job.Job).With("invitationId", job.Args.InvitationID)
	store := job.Store()
	if store == "" {
		return runner.Permanent(fmt.Errorf("%s is store-scoped: the job needs a store_id", job.Task))
	}
	var m Mail
	var sent bool
	err := r.WithTenant(ctx, store, func(ctx context.Context, tx pgx.Tx) error {
		return tx.QueryRow(ctx, `
			SELECT coalesce(to_address, ''), coalesce(subject, ''), coalesce(body, ''), message_id, sent_at IS NOT NULL
			FROM public.invitation_email_delivery WHERE invitation_id = $1::uuid`, job.Args.InvitationID).
			Scan(&m.To, &m.Subject, &m.Body, &m.MessageID, &sent)
	})
	if err == nil && !sent && m.To == "" {
		return runner.Permanent(fmt.Errorf("the outbox row of invitation %s names no recipient", job.Args.InvitationID))
	}
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		log.Info("invitation mail is no longer recorded (the invitation was removed); nothing to send")
		return nil
	case err != nil:
		return err
	case sent:
		log.Info("invitation mail was sent already; not sending it again")
		return nil
	}
	if a.Mailer == nil {
		return errors.New("no mailer configured (set --smtp-addr)")
	}
	m.From = FromAddress
	if err := a.Mailer.Send(ctx, m); err != nil {
		return err
	}
	err = r.WithTenant(ctx, store, func(ctx context.Context, tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `
			UPDATE public.invitation_email_delivery SET sent_at = now(), delivery_job_id = $2
			WHERE invitation_id = $1::uuid AND sent_at IS NULL`, job.Args.InvitationID, job.ID)
		return err
	})
	if err != nil {
		return fmt.Errorf("invitation mail sent, but not marked sent (a retry sends it again): %w", err)
	}
	log.Info("invitation mail sent", "messageId", m.MessageID)
	return nil
}
