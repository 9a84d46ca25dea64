package dashboard

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// Cookie names. The session cookie carries a random session id; the CSRF cookie carries the token
// every form repeats (for a signed-in person it is their session's token).
const (
	sessionCookie = "jobq_session"
	csrfCookie    = "jobq_csrf"
)

// session is one signed-in person: their own database connection, which every page and action
// of theirs uses (one at a time), and the CSRF token their forms carry.
type session struct {
	login    string
	operator bool   // a member of jobq_operator
	storeID  string // for a store's staff (a member of jobq_app): the store they act for
	csrf     string

	mu       sync.Mutex // held while a request uses conn, and to read or set flash
	flash    *flash
	conn     *pgx.Conn
	started  time.Time
	lastSeen time.Time
}

// sessions are the signed-in sessions by the hash of their id (the id itself is only in the
// person's cookie).
type sessions struct {
	idle, max time.Duration
	mu        sync.Mutex
	byID      map[[32]byte]*session
}

func newSessions(idle, max time.Duration) *sessions {
	return &sessions{idle: idle, max: max, byID: map[[32]byte]*session{}}
}

// add stores s under a new random id and returns the id.
func (ss *sessions) add(s *session) string {
	id := randomToken()
	now := time.Now()
	s.started, s.lastSeen = now, now
	ss.mu.Lock()
	ss.byID[sha256.Sum256([]byte(id))] = s
	ss.mu.Unlock()
	return id
}

// get returns the live session of id, or nil; it ends (and closes) an expired one.
func (ss *sessions) get(id string) *session {
	if id == "" {
		return nil
	}
	key := sha256.Sum256([]byte(id))
	ss.mu.Lock()
	s := ss.byID[key]
	now := time.Now()
	if s != nil && ss.expired(s, now) {
		delete(ss.byID, key)
		ss.mu.Unlock()
		s.close()
		return nil
	}
	if s != nil {
		s.lastSeen = now
	}
	ss.mu.Unlock()
	return s
}

// remove ends session id.
func (ss *sessions) remove(id string) {
	key := sha256.Sum256([]byte(id))
	ss.mu.Lock()
	s := ss.byID[key]
	delete(ss.byID, key)
	ss.mu.Unlock()
	if s != nil {
		s.close()
	}
}

func (ss *sessions) expired(s *session, now time.Time) bool {
	return now.Sub(s.lastSeen) > ss.idle || now.Sub(s.started) > ss.max
}

// sweep ends expired sessions every period until ctx ends.
func (ss *sessions) sweep(ctx context.Context, period time.Duration) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			var ended []*session
			ss.mu.Lock()
			for k, s := range ss.byID {
				if ss.expired(s, now) {
					delete(ss.byID, k)
					ended = append(ended, s)
				}
			}
			ss.mu.Unlock()
			for _, s := range ended {
				s.close()
			}
		}
	}
}

func (ss *sessions) closeAll() {
	ss.mu.Lock()
	all := ss.byID
	ss.byID = map[[32]byte]*session{}
	ss.mu.Unlock()
	for _, s := range all {
		s.close()
	}
}

// close closes the session's connection once no request uses it.
func (s *session) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = s.conn.Close(ctx)
		cancel()
		s.conn = nil
	}
}

// randomToken is 32 random bytes, base64url.
func randomToken() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic("dashboard: no randomness: " + err.Error())
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// sameToken compares two tokens in constant time; empty never matches.
func sameToken(a, b string) bool {
	return a != "" && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// setCookie writes an HttpOnly, SameSite=Strict cookie scoped to the dashboard's path; maxAge < 0
// deletes it.
func (d *Dashboard) setCookie(w http.ResponseWriter, name, value string, maxAge int) {
	path := d.opts.BasePath
	if path == "" {
		path = "/"
	}
	http.SetCookie(w, &http.Cookie{
		Name: name, Value: value, Path: path, MaxAge: maxAge,
		HttpOnly: true, Secure: d.opts.SecureCookies, SameSite: http.SameSiteStrictMode,
	})
}

// csrfToken returns the CSRF token of this visitor: their session's, else the one in their CSRF
// cookie, else a new one it sets.
func (d *Dashboard) csrfToken(w http.ResponseWriter, r *http.Request, s *session) string {
	if s != nil {
		return s.csrf
	}
	if c, err := r.Cookie(csrfCookie); err == nil && len(c.Value) == 43 {
		return c.Value
	}
	t := randomToken()
	d.setCookie(w, csrfCookie, t, 0)
	return t
}

// checkCSRF accepts a form POST only when it comes from the dashboard's own pages: its csrf field
// equals the visitor's token (the session's, when signed in, else the CSRF cookie's), and the
// browser does not say it is cross-site.
func (d *Dashboard) checkCSRF(r *http.Request, s *session) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
		return false
	}
	if origin := r.Header.Get("Origin"); origin != "" && origin != "null" {
		host := strings.TrimPrefix(strings.TrimPrefix(origin, "https://"), "http://")
		if host != r.Host {
			return false
		}
	}
	form := r.PostFormValue("csrf")
	if s != nil {
		return sameToken(form, s.csrf)
	}
	c, err := r.Cookie(csrfCookie)
	return err == nil && sameToken(form, c.Value)
}

// clientAddr is the address the sign-in limit counts: the peer, or with TrustProxy the last
// address of X-Forwarded-For (the one the proxy added).
func (d *Dashboard) clientAddr(r *http.Request) string {
	if d.opts.TrustProxy {
		if xff := r.Header.Get("X-Forwarded-For"); xff != "" {
			parts := strings.Split(xff, ",")
			return strings.TrimSpace(parts[len(parts)-1])
		}
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// limiter counts failed sign-ins per client address and per login over a sliding window.
type limiter struct {
	perAddr, perLogin int
	window            time.Duration
	mu                sync.Mutex
	fails             map[string][]time.Time
}

func newLimiter(perAddr, perLogin int, window time.Duration) *limiter {
	return &limiter{perAddr: perAddr, perLogin: perLogin, window: window, fails: map[string][]time.Time{}}
}

// blocked says whether addr or login has used up its failures; retry is when the oldest of them
// leaves the window.
func (l *limiter) blocked(addr, login string) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	for _, k := range []struct {
		key   string
		limit int
	}{{"addr:" + addr, l.perAddr}, {"login:" + login, l.perLogin}} {
		recent := l.recent(k.key, now)
		if len(recent) >= k.limit {
			return true, recent[0].Add(l.window).Sub(now)
		}
	}
	return false, 0
}

// fail records a failed sign-in of login from addr.
func (l *limiter) fail(addr, login string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	for _, key := range []string{"addr:" + addr, "login:" + login} {
		l.fails[key] = append(l.recent(key, now), now)
	}
	if len(l.fails) > 100000 { // a flood of distinct keys: forget the old ones
		for k := range l.fails {
			if len(l.recent(k, now)) == 0 {
				delete(l.fails, k)
			}
		}
	}
}

// recent returns key's failures inside the window, dropping older ones.
func (l *limiter) recent(key string, now time.Time) []time.Time {
	ts := l.fails[key]
	i := 0
	for i < len(ts) && now.Sub(ts[i]) > l.window {
		i++
	}
	ts = ts[i:]
	if len(ts) == 0 {
		delete(l.fails, key)
	} else {
		l.fails[key] = ts
	}
	return ts
}
