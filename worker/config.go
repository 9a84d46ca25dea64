package worker

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/jobqdev/jobq/runner"
)

// File is a worker's configuration file (--config or $JOBQ_WORKER_CONFIG), as
// docs/worker-config.md describes it: a [worker] table with the values of flags, and one
// [handlers.<name>] table per handler name, each a command or an HTTP endpoint. The database maps
// each task to a handler name (jobq.tasks.handler; NULL: the task's own name); only this file maps
// a name to what runs, so no database write can make a worker run a program or call a URL its
// file does not list.
type File struct {
	// Path is the file's path as given; relative paths in the file are resolved against its
	// folder.
	Path string
	// Worker holds the [worker] table: flag name (dashes) to the value as the flag would take
	// it, applied to the flags set neither on the command line nor in the environment.
	Worker map[string]string
	// Handlers are the [handlers.<name>] tables, sorted by name.
	Handlers []HandlerSpec
}

// Names returns the handler names of the file, sorted.
func (f *File) Names() []string {
	names := make([]string, len(f.Handlers))
	for i, h := range f.Handlers {
		names[i] = h.Name
	}
	return names
}

// HandlerSpec is one [handlers.<name>] table: exactly one of Command and HTTP is set.
type HandlerSpec struct {
	Name    string
	Command *CommandSpec
	HTTP    *HTTPSpec

	handler runner.Handler // built by LoadFile
}

// Kind is "command" or "http".
func (h HandlerSpec) Kind() string {
	if h.Command != nil {
		return "command"
	}
	return "http"
}

// CommandSpec is a command handler as the file states it, paths resolved.
type CommandSpec struct {
	Argv       []string          // command: Argv[0] resolved to an absolute path unless Shell
	Shell      bool              // shell: Argv[0] is a script for /bin/sh -c
	Dir        string            // dir: absolute; default the file's folder
	InheritEnv []string          // inherit_env: names of the worker's variables the command gets
	Env        map[string]string // env: variables set for the command
	Timeout    time.Duration     // timeout: 0 = the handler's default
	KillGrace  time.Duration     // kill_grace: 0 = the handler's default
	OutputTail int               // output_tail: 0 = the handler's default
}

// HTTPSpec is an HTTP endpoint handler as the file states it.
type HTTPSpec struct {
	URL         string
	SecretEnv   string            // secret_env: the variable holding the signing secret
	Secret      Secret            // its value, read at load; prints as (secret)
	Timeout     time.Duration     // timeout: 0 = the handler's default
	MaxResponse int64             // max_response: 0 = the handler's default
	Headers     map[string]string // headers: sent with every call
}

// Secret is a signing secret: it prints as (secret), so no log line or problem shows it.
type Secret []byte

func (Secret) String() string { return "(secret)" }

// GoString hides the secret from %#v too.
func (Secret) GoString() string { return "(secret)" }

// ConfigError is a configuration file, or flags, with problems: every one of them, one per line.
type ConfigError struct{ Problems []string }

func (e *ConfigError) Error() string { return strings.Join(e.Problems, "\n") }

// Limits of the file's values: a handler's buffers stay bounded whatever the file says.
const (
	maxOutputTail   = 1 << 20  // output_tail: 1 MiB
	maxResponseBody = 64 << 20 // max_response: 64 MiB
	minSecretBytes  = 16       // a signing secret shorter than this is guessable
	maxHandlerName  = 100      // as a task name
	maxHandlers     = 1000     // the most names jobq.served_tasks takes
)

var (
	handlerNameRE = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`) // a task name's rule
	envNameRE     = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	headerNameRE  = regexp.MustCompile("^[A-Za-z0-9!#$%&'*+.^_`|~-]+$")
)

var (
	commandKeys = []string{"command", "shell", "dir", "inherit_env", "env", "timeout", "kill_grace", "output_tail"}
	httpKeys    = []string{"url", "secret_env", "timeout", "max_response", "headers"}
)

// LoadFile reads and checks the configuration file at path. reserved are the task names the
// program handles itself (jobq worker: ping, exec): no handler may take them. getenv reads the
// environment (the secrets named by secret_env, PATH for a bare command name). It returns the
// file, and every problem found, each a line naming the file and the key. A file that does not
// parse as TOML has that one problem.
func LoadFile(path string, reserved []string, getenv func(string) (string, bool)) (*File, []string) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, []string{fmt.Sprintf("%s: %v", path, err)}
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return nil, []string{fmt.Sprintf("%s: %v", path, errors.Unwrap(err))}
	}
	var raw map[string]any
	if _, err := toml.Decode(string(data), &raw); err != nil {
		var perr toml.ParseError
		if errors.As(err, &perr) {
			return nil, []string{fmt.Sprintf("%s:%d: %s", path, perr.Position.Line, perr.Message)}
		}
		return nil, []string{fmt.Sprintf("%s: %v", path, err)}
	}
	c := &checker{path: path, dir: filepath.Dir(abs), getenv: getenv}
	f := &File{Path: path, Worker: map[string]string{}}
	if st, err := os.Stat(abs); err == nil && st.Mode().Perm()&0o002 != 0 {
		// Whoever can write the file can make the worker run any program.
		c.problems = append(c.problems, fmt.Sprintf("%s: writable by every user: anyone could make this worker run any program (chmod o-w)", path))
	}
	for _, key := range sortedKeys(raw) {
		switch key {
		case "worker":
			c.worker(raw[key], f.Worker)
		case "handlers":
			tables, ok := raw[key].(map[string]any)
			if !ok {
				c.add("handlers", "must be tables: [handlers.<name>]")
				continue
			}
			if len(tables) > maxHandlers {
				c.add("handlers", "%d handlers: at most %d", len(tables), maxHandlers)
			}
			for _, name := range sortedKeys(tables) {
				if h, ok := c.handler(name, tables[name], reserved); ok {
					f.Handlers = append(f.Handlers, h)
				}
			}
		default:
			c.add(key, "unknown table (known: [worker], [handlers.<name>])")
		}
	}
	return f, c.problems
}

// checker collects the problems of one file.
type checker struct {
	path     string
	dir      string // the file's folder
	getenv   func(string) (string, bool)
	problems []string
}

func (c *checker) add(where, format string, args ...any) {
	c.problems = append(c.problems, fmt.Sprintf("%s: [%s] %s", c.path, where, fmt.Sprintf(format, args...)))
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// worker reads the [worker] table into flag values. Which keys are flags, and whether each value
// is one its flag takes, is checked by the configuration resolver (internal/cliconf), where the
// flags are known.
func (c *checker) worker(v any, out map[string]string) {
	t, ok := v.(map[string]any)
	if !ok {
		c.add("worker", "must be a table")
		return
	}
	for _, key := range sortedKeys(t) {
		name := strings.ReplaceAll(key, "_", "-")
		switch val := t[key].(type) {
		case string:
			out[name] = val
		case int64:
			out[name] = strconv.FormatInt(val, 10)
		case bool:
			out[name] = strconv.FormatBool(val)
		case []any: // queues = ["mail", "default"]
			if len(val) == 0 {
				c.add("worker", "%s: an empty list", key)
				continue
			}
			var parts []string
			for _, e := range val {
				s, ok := e.(string)
				if !ok {
					c.add("worker", "%s: a list of strings, got %s", key, describe(e))
					parts = nil
					break
				}
				if strings.Contains(s, ",") {
					c.add("worker", "%s: %q: a name holds no comma", key, s)
				}
				parts = append(parts, s)
			}
			if parts != nil {
				out[name] = strings.Join(parts, ",")
			}
		default:
			c.add("worker", "%s: a string, integer, boolean or list of strings, got %s", key, describe(val))
		}
	}
}

// handler checks one [handlers.<name>] table.
func (c *checker) handler(name string, v any, reserved []string) (HandlerSpec, bool) {
	where := "handlers." + name
	t, ok := v.(map[string]any)
	if !ok {
		c.add(where, "must be a table")
		return HandlerSpec{}, false
	}
	named := len(c.problems)
	if !handlerNameRE.MatchString(name) || len(name) > maxHandlerName {
		c.add(where, "%q is not a handler name: kebab-case, as a task name, at most %d characters", name, maxHandlerName)
	}
	if slices.Contains(reserved, name) {
		c.add(where, "%q is a built-in task of this worker: name the handler otherwise", name)
	}
	before := len(c.problems)
	_, hasCommand := t["command"]
	_, hasURL := t["url"]
	h := HandlerSpec{Name: name}
	switch {
	case hasCommand && hasURL:
		c.add(where, "has both command and url: a handler is one or the other")
	case !hasCommand && !hasURL:
		c.add(where, "has neither command nor url")
	case hasCommand:
		h.Command = c.command(where, t)
	default:
		h.HTTP = c.http(where, t)
	}
	if len(c.problems) > before {
		return h, false
	}
	// What the runner itself refuses (secret-looking variables among them) is a problem too.
	handler, err := buildHandler(h)
	if err != nil {
		c.add(where, "%v", err)
		return h, false
	}
	h.handler = handler
	return h, len(c.problems) == named
}

// known reports the keys of t that are not in keys, one problem each.
func (c *checker) known(where string, t map[string]any, keys []string, other []string, kind string) {
	for _, k := range sortedKeys(t) {
		switch {
		case slices.Contains(keys, k):
		case slices.Contains(other, k):
			c.add(where, "%s: applies to the other kind of handler, not to %s", k, kind)
		default:
			c.add(where, "%s: unknown key (known for %s: %s)", k, kind, strings.Join(keys, ", "))
		}
	}
}

func (c *checker) command(where string, t map[string]any) *CommandSpec {
	c.known(where, t, commandKeys, httpKeys, "a command")
	s := &CommandSpec{Dir: c.dir}
	s.Argv = c.strings(where, "command", t["command"])
	if b, ok := t["shell"]; ok {
		if v, ok := b.(bool); ok {
			s.Shell = v
		} else {
			c.add(where, "shell: true or false, got %s", describe(b))
		}
	}
	if d, ok := t["dir"]; ok {
		if v, ok := d.(string); ok && v != "" {
			s.Dir = c.resolve(v)
		} else {
			c.add(where, "dir: a path, got %s", describe(d))
		}
	}
	if st, err := os.Stat(s.Dir); err != nil {
		c.add(where, "dir: %s: %v", s.Dir, errors.Unwrap(err))
	} else if !st.IsDir() {
		c.add(where, "dir: %s is not a folder", s.Dir)
	}
	if len(s.Argv) > 0 {
		switch {
		case s.Shell && len(s.Argv) != 1:
			c.add(where, "command: with shell = true, one string: the script /bin/sh -c runs")
		case s.Shell:
		default:
			s.Argv[0] = c.program(where, s.Argv[0])
		}
	}
	if v, ok := t["inherit_env"]; ok {
		// An empty list inherits nothing; absent, runner.DefaultInheritEnv.
		if list, ok := v.([]any); ok && len(list) == 0 {
			s.InheritEnv = []string{}
		} else {
			s.InheritEnv = c.strings(where, "inherit_env", v)
		}
		for _, n := range s.InheritEnv {
			if !envNameRE.MatchString(n) {
				c.add(where, "inherit_env: %q is not a variable name", n)
			}
		}
	}
	if v, ok := t["env"]; ok {
		s.Env = c.stringMap(where, "env", v)
		for _, n := range sortedKeys(s.Env) {
			switch {
			case !envNameRE.MatchString(n):
				c.add(where, "env: %q is not a variable name", n)
			case strings.HasPrefix(n, EnvPrefix):
				c.add(where, "env: %s: JOBQ_ variables are the job's, set by the worker", n)
			}
		}
	}
	s.Timeout = c.duration(where, "timeout", t)
	s.KillGrace = c.duration(where, "kill_grace", t)
	s.OutputTail = int(c.size(where, "output_tail", t, maxOutputTail))
	return s
}

// resolve makes a path of the file absolute: relative paths are relative to the file's folder,
// never to the folder the worker was started in.
func (c *checker) resolve(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(c.dir, p)
}

// program resolves a command's program: an absolute path as is, a path with a slash against the
// file's folder, a bare name through the worker's PATH at start. It must be an executable file.
func (c *checker) program(where, p string) string {
	if !strings.Contains(p, "/") {
		path, _ := c.getenv("PATH")
		for _, dir := range filepath.SplitList(path) {
			if dir == "" || !filepath.IsAbs(dir) {
				continue // "." or a relative folder of PATH would depend on where the worker starts
			}
			if cand := filepath.Join(dir, p); isExecutable(cand) {
				return cand
			}
		}
		c.add(where, "command: %q not found in PATH (%s)", p, path)
		return p
	}
	abs := c.resolve(p)
	st, err := os.Stat(abs)
	switch {
	case err != nil:
		c.add(where, "command: %s: %v", abs, errors.Unwrap(err))
	case st.IsDir():
		c.add(where, "command: %s is a folder", abs)
	case st.Mode().Perm()&0o111 == 0:
		c.add(where, "command: %s is not executable", abs)
	case st.Mode().Perm()&0o002 != 0:
		c.add(where, "command: %s is writable by every user: anyone could change what this worker runs (chmod o-w)", abs)
	}
	return abs
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode().Perm()&0o111 != 0
}

// The [handlers.<name>] url's rules: http or https, a host, no user:password (a secret in a file
// and in every log line that names the URL: the signing secret comes from secret_env).
func (c *checker) http(where string, t map[string]any) *HTTPSpec {
	c.known(where, t, httpKeys, commandKeys, "an HTTP endpoint")
	s := &HTTPSpec{}
	raw, ok := t["url"].(string)
	if !ok {
		c.add(where, "url: a string, got %s", describe(t["url"]))
	} else if u, err := url.Parse(raw); err != nil {
		c.add(where, "url: does not parse: %v", err.(*url.Error).Err)
	} else {
		switch {
		case u.User != nil:
			c.add(where, "url: holds a user or password: put the secret in the variable secret_env names")
		case u.Scheme != "http" && u.Scheme != "https":
			c.add(where, "url: scheme %q: http or https only", u.Scheme)
		case u.Host == "":
			c.add(where, "url: no host")
		default:
			s.URL = u.String()
		}
	}
	if v, ok := t["secret_env"]; !ok {
		c.add(where, "secret_env: required: the name of the variable that holds the signing secret")
	} else if name, ok := v.(string); !ok || !envNameRE.MatchString(name) {
		c.add(where, "secret_env: a variable name, got %s", describe(v))
	} else {
		s.SecretEnv = name
		secret, set := c.getenv(name)
		switch {
		case !set || secret == "":
			c.add(where, "secret_env: %s is not set in the worker's environment", name)
		case len(secret) < minSecretBytes:
			c.add(where, "secret_env: %s holds %d bytes: a signing secret needs at least %d", name, len(secret), minSecretBytes)
		default:
			s.Secret = []byte(secret)
		}
	}
	s.Timeout = c.duration(where, "timeout", t)
	s.MaxResponse = c.size(where, "max_response", t, maxResponseBody)
	if v, ok := t["headers"]; ok {
		s.Headers = c.stringMap(where, "headers", v)
		for _, n := range sortedKeys(s.Headers) {
			lower := strings.ToLower(n)
			switch {
			case !headerNameRE.MatchString(n):
				c.add(where, "headers: %q is not a header name", n)
			case strings.HasPrefix(lower, "jobq-") || lower == "host" || lower == "content-type" || lower == "content-length" || lower == "transfer-encoding":
				c.add(where, "headers: %s is set by the worker", n)
			case strings.ContainsAny(s.Headers[n], "\r\n\x00"):
				c.add(where, "headers: %s: the value holds a line break", n)
			}
		}
	}
	return s
}

func (c *checker) strings(where, key string, v any) []string {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		c.add(where, "%s: a list of strings, got %s", key, describe(v))
		return nil
	}
	out := make([]string, 0, len(list))
	for _, e := range list {
		s, ok := e.(string)
		if !ok || s == "" {
			c.add(where, "%s: a list of non-empty strings, got %s", key, describe(e))
			return nil
		}
		out = append(out, s)
	}
	return out
}

func (c *checker) stringMap(where, key string, v any) map[string]string {
	t, ok := v.(map[string]any)
	if !ok {
		c.add(where, "%s: a table of strings, got %s", key, describe(v))
		return nil
	}
	out := map[string]string{}
	for _, k := range sortedKeys(t) {
		s, ok := t[k].(string)
		if !ok {
			c.add(where, "%s: %s: a string, got %s", key, k, describe(t[k]))
			continue
		}
		out[k] = s
	}
	return out
}

// duration reads a duration written as a string ("30s", "5m"); absent is 0 (the default).
func (c *checker) duration(where, key string, t map[string]any) time.Duration {
	v, ok := t[key]
	if !ok {
		return 0
	}
	s, ok := v.(string)
	if !ok {
		c.add(where, "%s: a duration as a string such as \"30s\", got %s", key, describe(v))
		return 0
	}
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		c.add(where, "%s: %q is not a duration (such as \"30s\", \"5m\")", key, s)
	case d < 0:
		c.add(where, "%s: %s is negative", key, s)
	default:
		return d
	}
	return 0
}

// size reads a non-negative integer of at most max; absent is 0 (the default).
func (c *checker) size(where, key string, t map[string]any, max int64) int64 {
	v, ok := t[key]
	if !ok {
		return 0
	}
	n, ok := v.(int64)
	switch {
	case !ok:
		c.add(where, "%s: an integer (bytes), got %s", key, describe(v))
	case n < 0:
		c.add(where, "%s: %d is negative", key, n)
	case n > max:
		c.add(where, "%s: %d is above the most, %d", key, n, max)
	default:
		return n
	}
	return 0
}

// describe names a TOML value's type for a problem, without printing the value (it may be a
// secret written where it should not be).
func describe(v any) string {
	switch v.(type) {
	case nil:
		return "nothing"
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case []any, []map[string]any:
		return "a list"
	case map[string]any:
		return "a table"
	case time.Time:
		return "a date"
	default:
		return fmt.Sprintf("%T", v)
	}
}
