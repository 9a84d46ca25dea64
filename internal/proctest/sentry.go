package proctest

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Sentry is a fake Sentry server: it receives real Sentry envelopes and keeps their events.
type Sentry struct {
	*httptest.Server
	mu     sync.Mutex
	events []map[string]any
}

// NewSentry starts a fake Sentry server, closed when t ends.
func NewSentry(t testing.TB) *Sentry {
	s := &Sentry{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body io.Reader = r.Body
		if r.Header.Get("Content-Encoding") == "gzip" {
			gz, err := gzip.NewReader(r.Body)
			if err != nil {
				http.Error(w, err.Error(), 400)
				return
			}
			body = gz
		}
		raw, err := io.ReadAll(body)
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		if strings.HasSuffix(r.URL.Path, "/envelope/") {
			s.mu.Lock()
			s.events = append(s.events, envelopeEvents(raw)...)
			s.mu.Unlock()
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":"0"}`))
	}))
	t.Cleanup(s.Close)
	return s
}

// DSN is a DSN that sends to this server (project 42).
func (s *Sentry) DSN() string {
	return strings.Replace(s.URL, "http://", "http://publickey@", 1) + "/42"
}

// Received returns the events received so far.
func (s *Sentry) Received() []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]map[string]any(nil), s.events...)
}

// envelopeEvents returns the payloads of the "event" items of a Sentry envelope: a header line,
// then for each item a header line and its payload.
func envelopeEvents(raw []byte) []map[string]any {
	var events []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 1<<20), 4<<20)
	sc.Scan() // envelope header
	for sc.Scan() {
		var item struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(sc.Bytes(), &item) != nil || !sc.Scan() {
			break
		}
		if item.Type == "event" {
			var ev map[string]any
			if json.Unmarshal(sc.Bytes(), &ev) == nil {
				events = append(events, ev)
			}
		}
	}
	return events
}
