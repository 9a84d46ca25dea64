package runner

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/textproto"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jobqdev/jobq"
)

// Defaults of HTTPConfig and VerifySignature (docs/handlers.md).
const (
	// DefaultMaxResponse is how many bytes of an answer's body an HTTPEndpoint handler reads.
	DefaultMaxResponse = 64 << 10
	// DefaultHTTPIdleConnsPerHost is how many idle keep-alive connections per host the shared
	// client of HTTPEndpoint keeps: more than any runner's concurrency needs, up to 100.
	DefaultHTTPIdleConnsPerHost = 100
	// MinSecretLength is the shortest HTTPConfig.Secret.
	MinSecretLength = 16
	// DefaultSignatureTolerance is VerifySignature's tolerance when it is given none.
	DefaultSignatureTolerance = 5 * time.Minute
	// SignatureHeader carries the signature of a job's POST.
	SignatureHeader = "Jobq-Signature"
)

// HTTPConfig configures HTTPEndpoint. URL and Secret are required.
type HTTPConfig struct {
	// URL is where each job is POSTed: http or https, with no user or password in it (put a
	// credential in Header).
	URL string
	// Secret signs each request (the Jobq-Signature header): at least 16 bytes.
	Secret []byte
	// Timeout bounds one request. Zero: the job's own timeout, or DefaultHandlerTimeout (5
	// minutes) for a job without one; set, the earlier of it and the job's timeout ends the run.
	Timeout time.Duration
	// MaxResponse is how many bytes of an answer's body are read: the rest is never read (the
	// connection is then closed). A failure keeps the last 4096 bytes of what was read. Default:
	// 64 KiB.
	MaxResponse int64
	// Header are added to every request. Content-Type, Content-Length, Host and Jobq-* are
	// the handler's and refused here.
	Header map[string]string
	// Client sends the requests; it is used as given except that redirects are never followed.
	// Default: one client shared by every HTTPEndpoint handler, keeping up to 100 idle keep-alive
	// connections per host (size Client's transport for more concurrent jobs than that).
	Client *http.Client
}

// sharedHTTPTransport is the default client of HTTPEndpoint handlers: one transport, so
// connections to an endpoint are reused across jobs and handlers.
var sharedHTTPTransport = func() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = DefaultHTTPIdleConnsPerHost
	t.MaxIdleConns = 4 * DefaultHTTPIdleConnsPerHost
	return t
}()

// HTTPEndpoint returns a handler that POSTs each job to an HTTP endpoint (docs/handlers.md): the
// body {"id","task","queue","attempt","max_attempts","store_id","payload","deadline"}, signed in
// the Jobq-Signature header (see VerifySignature). A 2xx answer completes the job; 429 and 503
// snooze it, without using an attempt, for the answer's Retry-After (DefaultSnooze without one);
// a redirect (never followed) and any other 4xx fail it for good; a 5xx, a connection refused or
// reset, and a timeout fail the attempt (retried). The request is cancelled when the run's
// context ends (lost lease, timeout, shutdown).
func HTTPEndpoint(cfg HTTPConfig) (Handler, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil {
		return nil, errors.New("runner: HTTPConfig.URL does not parse")
	}
	if u.User != nil {
		return nil, errors.New("runner: HTTPConfig.URL holds a user or password: refused (it would be logged with failures); put the credential in Header")
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("runner: HTTPConfig.URL must be an absolute http or https URL, not %q", shownURL(u))
	}
	if len(cfg.Secret) < MinSecretLength {
		return nil, fmt.Errorf("runner: HTTPConfig.Secret is required, at least %d bytes", MinSecretLength)
	}
	if cfg.Timeout < 0 || cfg.MaxResponse < 0 {
		return nil, errors.New("runner: HTTPConfig.Timeout and MaxResponse must not be negative")
	}
	header := http.Header{}
	for k, v := range cfg.Header {
		ck := http.CanonicalHeaderKey(k)
		if ck == "Content-Type" || ck == "Content-Length" || ck == "Host" || strings.HasPrefix(ck, "Jobq-") {
			return nil, fmt.Errorf("runner: HTTPConfig.Header: %s is set by the handler", ck)
		}
		if k == "" || strings.ContainsAny(k+v, "\r\n\x00") || strings.ContainsAny(k, " :") {
			return nil, fmt.Errorf("runner: HTTPConfig.Header: %q is not a usable header", k)
		}
		header.Set(ck, v)
	}
	if cfg.MaxResponse == 0 {
		cfg.MaxResponse = DefaultMaxResponse
	}
	client := &http.Client{Transport: sharedHTTPTransport}
	if cfg.Client != nil {
		c := *cfg.Client
		client = &c
	}
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &endpoint{cfg: cfg, url: u.String(), shown: shownURL(u), secret: append([]byte(nil), cfg.Secret...),
		header: header, client: client}, nil
}

// shownURL is the URL as messages show it: without its query and fragment (which may carry a
// token).
func shownURL(u *url.URL) string {
	v := *u
	v.User, v.RawQuery, v.ForceQuery, v.Fragment, v.RawFragment = nil, "", false, "", ""
	return v.String()
}

type endpoint struct {
	cfg    HTTPConfig
	url    string
	shown  string
	secret []byte
	header http.Header
	client *http.Client
}

// httpJob is the body of a job's POST.
type httpJob struct {
	ID          int64           `json:"id"`
	Task        string          `json:"task"`
	Queue       string          `json:"queue"`
	Attempt     int             `json:"attempt"`
	MaxAttempts int             `json:"max_attempts"`
	StoreID     *string         `json:"store_id"`
	Payload     json.RawMessage `json:"payload"`
	Deadline    string          `json:"deadline"`
}

// Work POSTs one attempt of job.
func (e *endpoint) Work(ctx context.Context, job *jobq.Job) error {
	now := databaseNow(ctx, job)
	deadline, cause, limit := runDeadline(e.cfg.Timeout, job, now)
	ctx, cancel := context.WithTimeoutCause(ctx, deadline.Sub(now), cause)
	defer cancel()
	payload := job.Payload
	if len(payload) == 0 {
		payload = json.RawMessage("null")
	}
	body, err := json.Marshal(httpJob{ID: job.ID, Task: job.Task, Queue: job.Queue, Attempt: job.Attempt,
		MaxAttempts: job.MaxAttempts, StoreID: job.StoreID, Payload: payload, Deadline: formatDeadline(deadline)})
	if err != nil {
		return Permanent(fmt.Errorf("POST %s: the job does not encode: %w", e.shown, err))
	}
	// Progress comes in the Jobq-Progress header of informational (1xx) answers and of the final
	// one, relayed to jobq.set_progress; the last is written before the attempt's result.
	relay := startProgressRelay(ctx)
	defer relay.close()
	traced := httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		Got1xxResponse: func(_ int, h textproto.MIMEHeader) error {
			relay.offer([]byte(h.Get(ProgressHeader)))
			return nil
		},
	})
	req, err := http.NewRequestWithContext(traced, http.MethodPost, e.url, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("POST %s: %w", e.shown, err)
	}
	for k, v := range e.header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Jobq-Job-Id", strconv.FormatInt(job.ID, 10))
	req.Header.Set("Jobq-Attempt", strconv.Itoa(job.Attempt))
	req.Header.Set("Jobq-Deadline", formatDeadline(deadline))
	req.Header.Set(SignatureHeader, Sign(e.secret, databaseNow(ctx, job), body))
	resp, err := e.client.Do(req)
	if err != nil {
		// url.Error names the URL with its query: say it again without.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		if ctx.Err() != nil {
			why := context.Cause(ctx)
			err = fmt.Errorf("POST %s: stopped (%w): %v", e.shown, why, err)
			if errors.Is(why, ErrHandlerTimeout) {
				return &timedOut{after: limit, err: err}
			}
			return err
		}
		return fmt.Errorf("POST %s: %s", e.shown, connectionText(err))
	}
	defer resp.Body.Close()
	tail := &tailBuffer{max: DefaultCommandOutputTail}
	// An answer with "Jobq-Result: body" gives the job's result in its body: kept whole.
	var answer *bytes.Buffer
	var sink io.Writer = tail
	if strings.EqualFold(strings.TrimSpace(resp.Header.Get(ResultHeader)), "body") {
		answer = &bytes.Buffer{}
		sink = io.MultiWriter(tail, answer)
	}
	n, readErr := io.Copy(sink, io.LimitReader(resp.Body, e.cfg.MaxResponse))
	cut := false
	if readErr == nil && n == e.cfg.MaxResponse {
		// The rest is never read: closing the body closes the connection.
		var one [1]byte
		m, _ := resp.Body.Read(one[:])
		cut = m > 0
	}
	relay.offer([]byte(resp.Header.Get(ProgressHeader)))
	noteAttempt(ctx, tail.tail(), nil) // what every attempt keeps, a succeeded one too
	code := resp.StatusCode
	status := fmt.Sprintf("POST %s: %s", e.shown, resp.Status)
	fail := func() *outputError {
		report := tail.report()
		if cut {
			report = fmt.Sprintf("\n(answer cut after %d bytes)%s", e.cfg.MaxResponse, report)
		}
		return &outputError{err: errors.New(status + report), output: tail.tail()}
	}
	switch {
	case code >= 200 && code < 300 && answer != nil:
		if cut || readErr != nil {
			status += fmt.Sprintf(" (its result, the body, was not read whole: at most %d bytes)", e.cfg.MaxResponse)
			return Permanent(fail())
		}
		if err := setRawResult(ctx, answer.Bytes()); err != nil {
			status += fmt.Sprintf(" (%s: %v)", ResultHeader, err)
			return Permanent(fail())
		}
		return nil
	case code >= 200 && code < 300:
		return nil
	case code == http.StatusTooManyRequests || code == http.StatusServiceUnavailable:
		return Snooze(retryAfter(resp.Header.Get("Retry-After"), databaseNow(ctx, job)))
	case code >= 300 && code < 400:
		where := resp.Header.Get("Location")
		if lu, err := url.Parse(where); err == nil {
			where = shownURL(lu)
		}
		status += fmt.Sprintf(" (redirect to %q: not followed; point the handler at the final URL)", where)
		return Permanent(fail())
	case code >= 400 && code < 500:
		return Permanent(fail())
	}
	if readErr != nil && ctx.Err() != nil {
		return fmt.Errorf("%s: stopped (%w)", status, context.Cause(ctx))
	}
	return fail()
}

// connectionText names a failure to reach the endpoint plainly.
func connectionText(err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused: " + err.Error()
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset: " + err.Error()
	case errors.As(err, &ne) && ne.Timeout():
		return "timed out: " + err.Error()
	}
	return err.Error()
}

// retryAfter reads a Retry-After header: seconds, or an HTTP date compared with now (the
// database's time), clamped to [0, MaxSnooze]; DefaultSnooze when absent or unusable.
func retryAfter(h string, now time.Time) time.Duration {
	h = strings.TrimSpace(h)
	if h == "" {
		return DefaultSnooze
	}
	if s, err := strconv.ParseInt(h, 10, 64); err == nil {
		if s > int64(MaxSnooze/time.Second) {
			return MaxSnooze
		}
		return clampSnooze(time.Duration(s) * time.Second)
	}
	if t, err := http.ParseTime(h); err == nil {
		return clampSnooze(t.Sub(now))
	}
	return DefaultSnooze
}

// Sign returns the Jobq-Signature header of body sent at t: "t=<unix seconds>,v1=<hex
// HMAC-SHA256(secret, "<unix seconds>." + body)>".
func Sign(secret []byte, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	return "t=" + ts + ",v1=" + hex.EncodeToString(signature(secret, ts, body))
}

func signature(secret []byte, ts string, body []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(ts))
	m.Write([]byte("."))
	m.Write(body)
	return m.Sum(nil)
}

// Errors of VerifySignature.
var (
	// ErrSignatureInvalid: the header is missing or malformed, or no v1 signature in it matches.
	ErrSignatureInvalid = errors.New("jobq signature: invalid")
	// ErrSignatureExpired: the signature matches but its timestamp is further from now than the
	// tolerance (a replayed or much delayed request).
	ErrSignatureExpired = errors.New("jobq signature: timestamp outside the tolerance")
)

// VerifySignature checks a Jobq-Signature header against the request's raw body, for
// applications written in Go that receive HTTPEndpoint's requests: one of its v1 signatures must
// be HMAC-SHA256(secret, t + "." + body) (compared in constant time), and t must be within
// tolerance of now (DefaultSignatureTolerance when tolerance is zero or less). It returns nil,
// ErrSignatureInvalid or ErrSignatureExpired.
func VerifySignature(secret []byte, header string, body []byte, now time.Time, tolerance time.Duration) error {
	if tolerance <= 0 {
		tolerance = DefaultSignatureTolerance
	}
	var ts string
	var sigs [][]byte
	for part := range strings.SplitSeq(header, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return ErrSignatureInvalid
		}
		switch k {
		case "t":
			if ts != "" {
				return ErrSignatureInvalid
			}
			ts = v
		case "v1":
			if s, err := hex.DecodeString(v); err == nil {
				sigs = append(sigs, s)
			}
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || len(sigs) == 0 || len(secret) == 0 {
		return ErrSignatureInvalid
	}
	want := signature(secret, ts, body)
	match := false
	for _, s := range sigs {
		if hmac.Equal(s, want) {
			match = true
		}
	}
	if !match {
		return ErrSignatureInvalid
	}
	if d := now.Sub(time.Unix(sec, 0)); d > tolerance || d < -tolerance {
		return ErrSignatureExpired
	}
	return nil
}
