// Package smtpsink is an SMTP server on loopback that keeps the mail it receives in memory, for
// the salon demo and tests: it stands in for the relay the salon worker sends invitations to.
// It is built on github.com/emersion/go-smtp.
package smtpsink

import (
	"bytes"
	"io"
	"log"
	"net"
	"net/mail"
	"strings"
	"sync"
	"time"

	"github.com/emersion/go-smtp"
)

// Message is one mail the sink accepted.
type Message struct {
	From, To  string
	MessageID string // the Message-ID header, without angle brackets
	Subject   string
	Raw       []byte
}

// Sink is a running SMTP server. Its zero value is not usable; call Start.
type Sink struct {
	srv  *smtp.Server
	addr string

	mu       sync.Mutex
	messages []Message
	// reject: recipients (lower case) answered with a transient 451 at RCPT.
	reject map[string]bool
	// failNext: how many deliveries to refuse with 451 before accepting.
	failNext int
	refused  int
}

// Start listens on a free loopback port and serves until Close.
func Start() (*Sink, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Sink{addr: ln.Addr().String(), reject: map[string]bool{}}
	s.srv = smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) { return &session{sink: s}, nil }))
	s.srv.Domain = "localhost"
	s.srv.ReadTimeout = 30 * time.Second
	s.srv.WriteTimeout = 30 * time.Second
	s.srv.ErrorLog = log.New(io.Discard, "", 0)
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// Addr is the host:port the sink listens on.
func (s *Sink) Addr() string { return s.addr }

// Close stops the server.
func (s *Sink) Close() error { return s.srv.Close() }

// RejectRecipient makes every delivery to addr fail with a transient 451 reply.
func (s *Sink) RejectRecipient(addr string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reject[strings.ToLower(addr)] = true
}

// FailNext makes the next n deliveries fail with a transient 451 reply.
func (s *Sink) FailNext(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failNext = n
}

// Messages returns a copy of the mail accepted so far, in arrival order.
func (s *Sink) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.messages...)
}

// Refused returns how many deliveries the sink refused.
func (s *Sink) Refused() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refused
}

var tempFailure = &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "try again later"}

type session struct {
	sink     *Sink
	from, to string
}

func (s *session) Reset()        { s.from, s.to = "", "" }
func (s *session) Logout() error { return nil }

func (s *session) Mail(from string, _ *smtp.MailOptions) error {
	s.from = from
	return nil
}

func (s *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.sink.mu.Lock()
	defer s.sink.mu.Unlock()
	if s.sink.reject[strings.ToLower(to)] || s.sink.failNext > 0 {
		if s.sink.failNext > 0 {
			s.sink.failNext--
		}
		s.sink.refused++
		return tempFailure
	}
	s.to = to
	return nil
}

func (s *session) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	m := Message{From: s.from, To: s.to, Raw: raw}
	if parsed, err := mail.ReadMessage(bytes.NewReader(raw)); err == nil {
		m.MessageID = strings.Trim(parsed.Header.Get("Message-ID"), "<>")
		m.Subject = parsed.Header.Get("Subject")
	}
	s.sink.mu.Lock()
	s.sink.messages = append(s.sink.messages, m)
	s.sink.mu.Unlock()
	return nil
}
