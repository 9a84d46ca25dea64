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

// sendInvitation mails an invitation once. In the job's tenant transaction it reads the
// invitation, then inserts its idempotency record (invitation_email_delivery) before sending:
// a second job for the same invitation finds the record and sends nothing, and one that runs at
// the same moment waits on the record's key until this transaction ends. The record commits with
// the job's transaction, after the server took the mail; a failed send rolls it back, so the
// retry sends. The one window left is a crash after the server accepted the mail and before the
// commit: the retry then sends the same mail again with the same Message-ID.
func (a *App) sendInvitation(ctx context.Context, tx pgx.Tx, job *runner.Job[SendOperatorInvitationEmail]) error {
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
	messageID := InvitationMessageID(job.Args.InvitationID)
	tag, err := tx.Exec(ctx, `
		INSERT INTO public.invitation_email_delivery (invitation_id, message_id, job_id)
		VALUES ($1::uuid, $2, $3) ON CONFLICT (invitation_id) DO NOTHING`, job.Args.InvitationID, messageID, job.ID)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		log.Info("invitation mail was sent already; not sending it again")
		return nil
	}
	if a.Mailer == nil {
		return errors.New("no mailer configured (set --smtp-addr)")
	}
	base := a.InvitationURL
	if base == "" {
		base = "https://salon.example/invitations/"
	}
	err = a.Mailer.Send(ctx, Mail{
		From:      FromAddress,
		To:        email,
		Subject:   "You are invited to operate a salon",
		Body:      "You have been invited to operate a salon.\n\nAccept the invitation: " + base + token + "\n",
		MessageID: messageID,
	})
	if err != nil {
		return err
	}
	log.Info("invitation mail sent", "messageId", messageID)
	return nil
}
