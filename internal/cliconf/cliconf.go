// Package cliconf is the one configuration layer of jobq's commands: a kong resolver that gives
// each flag its value from, in this order, the command line (kong), its JOBQ_ variable (kong's env
// tag), a variable it was called before this release (with a deprecation warning), a configuration
// file, then its default, and remembers where each value came from (jobq config prints it).
//
// It reads these tags of a kong field besides kong's own:
//
//	oldenv:"A,B"   variables read before this release; each, when it is the one read, prints one
//	               warning naming the JOBQ_ variable that replaces it (docs/configuration.md)
//	secret:""      a credential: masked by Mask, and refused in a configuration file
//	keepempty:""   an empty variable is a value ("" = off), not "unset"
//	configfile:""  this flag names a TOML file whose table (the tag's value) holds values for the
//	               flags beside it, keyed by flag name with _ for -
//	nofile:""      never read from the configuration file
//	setting:"S"    the zero value means "the database's setting S" (jobq.settings)
//
// An empty variable counts as unset unless keepempty, as a variable a container passes through
// empty ("X: ${X:-}") should not override the default.
package cliconf

import (
	"fmt"
	"io"
	"maps"
	"net/url"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/alecthomas/kong"
)

// Kind is where a value came from.
type Kind string

// The kinds of source, in the order they win.
const (
	FromFlag     Kind = "flag"
	FromEnv      Kind = "env"
	FromFile     Kind = "file"
	FromDefault  Kind = "default"
	FromDatabase Kind = "database"
)

// Source is where one flag's value came from.
type Source struct {
	Kind Kind
	// Name is the variable (FromEnv), the file's path (FromFile) or the setting (FromDatabase).
	Name string
	// Replacement is, for a variable read under its old name, the JOBQ_ variable to use instead.
	Replacement string
}

// String is the source as jobq config prints it: "flag", "env JOBQ_X", "env X (deprecated: use
// JOBQ_Y)", "file PATH", "default", "database (setting S)".
func (s Source) String() string {
	switch {
	case s.Kind == FromEnv && s.Replacement != "":
		return fmt.Sprintf("env %s (deprecated: use %s)", s.Name, s.Replacement)
	case s.Kind == FromDatabase:
		return fmt.Sprintf("database (setting %s)", s.Name)
	case s.Name != "":
		return string(s.Kind) + " " + s.Name
	default:
		return string(s.Kind)
	}
}

// FileLoader reads the table of a configuration file as flag values keyed by flag name (dashes),
// each as the flag would take it on the command line, and the problems of the file. table is the
// configfile tag's value.
type FileLoader func(path, table string) (values map[string]string, problems []string)

// Resolver is the kong resolver of this package. Give the same one to kong.Resolvers and
// kong.Bind; read Sources and Problems after Parse.
type Resolver struct {
	// Stderr receives the deprecation warnings, each once; nil discards them.
	Stderr io.Writer
	// Prefix starts each warning ("jobq: ").
	Prefix string
	// Load reads configuration files; nil: a configfile flag is an error.
	Load FileLoader

	mu       sync.Mutex
	warned   map[string]bool
	sources  map[*kong.Flag]Source
	files    map[string]*file
	problems []string
	checked  map[string]bool
}

type file struct {
	values   map[string]string
	problems []string
}

var _ kong.Resolver = (*Resolver)(nil)

// Validate is part of kong.Resolver.
func (r *Resolver) Validate(*kong.Application) error { return nil }

// Resolve is part of kong.Resolver: kong calls it for each flag not given on the command line.
func (r *Resolver) Resolve(ctx *kong.Context, parent *kong.Path, flag *kong.Flag) (any, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.sources == nil {
		r.sources = map[*kong.Flag]Source{}
	}
	src, value, ok := r.lookup(ctx, parent, flag)
	r.sources[flag] = src
	switch {
	case src.Kind == FromEnv && src.Replacement == "":
		return nil, nil // kong's env tag read it
	case src.Kind == FromFile && parseValue(flag, value) != nil:
		// A value the flag refuses is a problem of the file (Problems), not a parse error that
		// would hide the file's other problems: the default stands.
		r.sources[flag] = Source{Kind: FromDefault}
		if kongReadEmptyEnv(flag) {
			return defaultValue(flag), nil
		}
		return nil, nil
	case ok:
		return value, nil
	case kongReadEmptyEnv(flag):
		// kong parsed an empty variable; an empty variable is unset: the default.
		return defaultValue(flag), nil
	default:
		return nil, nil
	}
}

// lookup finds a flag's value below the command line: its variable, an old name, the file.
func (r *Resolver) lookup(ctx *kong.Context, parent *kong.Path, flag *kong.Flag) (Source, string, bool) {
	keepEmpty := flag.Tag.Has("keepempty")
	for _, name := range flag.Envs {
		if v, set := os.LookupEnv(name); set && (v != "" || keepEmpty) {
			return Source{Kind: FromEnv, Name: name}, v, true
		}
	}
	for _, old := range OldEnvs(flag) {
		if v, set := os.LookupEnv(old); set && (v != "" || keepEmpty) {
			replacement := "--" + flag.Name
			if len(flag.Envs) > 0 {
				replacement = flag.Envs[0]
			}
			r.warn(old, replacement)
			return Source{Kind: FromEnv, Name: old, Replacement: replacement}, v, true
		}
	}
	if path, table, ok := r.configFile(ctx, parent); ok && !flag.Tag.Has("nofile") && !flag.Tag.Has("configfile") {
		if v, found := r.load(path, table).values[flag.Name]; found && !flag.Tag.Has("secret") {
			return Source{Kind: FromFile, Name: path}, v, true
		}
	}
	if s := flag.Tag.Get("setting"); s != "" {
		return Source{Kind: FromDatabase, Name: s}, "", false
	}
	return Source{Kind: FromDefault}, "", false
}

// OldEnvs are the variables a flag was read from before this release (its oldenv tag).
func OldEnvs(flag *kong.Flag) []string {
	var names []string
	for _, n := range strings.Split(flag.Tag.Get("oldenv"), ",") {
		if n = strings.TrimSpace(n); n != "" {
			names = append(names, n)
		}
	}
	return names
}

// Getenv returns the value of the variable name, else of the first of old that is set (empty
// counts as unset), printing r's deprecation warning for an old name: for the variables that are
// no flag (passwords).
func (r *Resolver) Getenv(name string, old ...string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	for _, o := range old {
		if v := os.Getenv(o); v != "" {
			r.mu.Lock()
			r.warn(o, name)
			r.mu.Unlock()
			return v
		}
	}
	return ""
}

// warn prints the deprecation warning of old once. r.mu is held.
func (r *Resolver) warn(old, replacement string) {
	if r.warned == nil {
		r.warned = map[string]bool{}
	}
	if r.warned[old] || r.Stderr == nil {
		return
	}
	r.warned[old] = true
	fmt.Fprintf(r.Stderr, "%swarning: %s is deprecated and will not be read after this release: use %s (docs/configuration.md)\n", r.Prefix, old, replacement)
}

// configFile finds the configfile flag among the flags of parent's node, and its path: from the
// command line, the variable or an old name. ok is false without one.
func (r *Resolver) configFile(ctx *kong.Context, parent *kong.Path) (path, table string, ok bool) {
	for _, f := range parent.Flags {
		if !f.Tag.Has("configfile") {
			continue
		}
		table = f.Tag.Get("configfile")
		if v, given := commandLine(ctx, f); given {
			path = v
		} else {
			_, path, _ = r.lookup(ctx, &kong.Path{}, f)
		}
		return path, table, path != "" && r.Load != nil
	}
	return "", "", false
}

// commandLine returns the value of flag given on the command line.
func commandLine(ctx *kong.Context, flag *kong.Flag) (string, bool) {
	for _, p := range ctx.Path {
		if p.Flag == flag && !p.Resolved {
			return fmt.Sprint(ctx.FlagValue(flag)), true
		}
	}
	return "", false
}

// load reads a file once, and checks its keys against the flags the first time.
func (r *Resolver) load(path, table string) *file {
	if r.files == nil {
		r.files = map[string]*file{}
	}
	if f, ok := r.files[path]; ok {
		return f
	}
	values, problems := r.Load(path, table)
	f := &file{values: values, problems: problems}
	r.files[path] = f
	return f
}

// checkFile adds the problems of the file's keys: a key that is no flag of the command, a secret,
// a value the flag refuses (checked even where the command line or a variable wins). r.mu is held.
func (r *Resolver) checkFile(ctx *kong.Context) {
	if r.checked == nil {
		r.checked = map[string]bool{}
	}
	for _, p := range ctx.Path {
		path, table, ok := r.configFile(ctx, p)
		if !ok || r.checked[path] {
			continue
		}
		r.checked[path] = true
		f := r.load(path, table)
		r.problems = append(r.problems, f.problems...)
		byName := map[string]*kong.Flag{}
		for _, fl := range p.Flags {
			byName[fl.Name] = fl
		}
		for _, name := range slices.Sorted(maps.Keys(f.values)) {
			key := strings.ReplaceAll(name, "-", "_")
			where := fmt.Sprintf("%s: [%s] %s", path, table, key)
			fl := byName[name]
			switch {
			case fl == nil || fl.Tag.Has("nofile") || fl.Tag.Has("configfile") || fl.Hidden:
				r.problems = append(r.problems, where+": unknown key (a ["+table+"] key is a flag of the command's -h, with _ for -)")
			case fl.Tag.Has("secret"):
				env := "the environment"
				if len(fl.Envs) > 0 {
					env = fl.Envs[0]
				}
				r.problems = append(r.problems, where+": a secret: set it in the environment ("+env+"), never in the file")
			default:
				if err := parseValue(fl, f.values[name]); err != nil {
					r.problems = append(r.problems, fmt.Sprintf("%s = %q: %v", where, f.values[name], err))
				}
			}
		}
	}
}

// parseValue parses value as flag would, into a scratch value.
func parseValue(flag *kong.Flag, value string) error {
	scratch := reflect.New(flag.Target.Type()).Elem()
	return flag.Parse(kong.ScanFromTokens(kong.Token{Type: kong.FlagValueToken, Value: value}), scratch)
}

// Problems are the problems of the configuration files of the parsed command line, one a line
// naming the file and the key. Call it after Parse.
func (r *Resolver) Problems(ctx *kong.Context) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.checkFile(ctx)
	return append([]string(nil), r.problems...)
}

// Source is where flag's value came from in the last Parse.
func (r *Resolver) Source(flag *kong.Flag) Source {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s, ok := r.sources[flag]; ok {
		return s
	}
	return Source{Kind: FromFlag}
}

// kongReadEmptyEnv reports whether kong's env tag handling found the first set variable of flag
// empty (kong parses it as the value).
func kongReadEmptyEnv(flag *kong.Flag) bool {
	if flag.Tag.Has("keepempty") {
		return false
	}
	for _, name := range flag.Envs {
		if v, set := os.LookupEnv(name); set {
			return v == ""
		}
	}
	return false
}

// defaultValue is the flag's default as a command-line value: its default tag, else the zero
// value of its type.
func defaultValue(flag *kong.Flag) string {
	if flag.HasDefault {
		return flag.Default
	}
	return fmt.Sprint(reflect.Zero(flag.Target.Type()).Interface())
}

var passwordInDSN = regexp.MustCompile(`(?i)(password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)`)

// Mask hides the password of a database URL (a flag named *database-url:
// postgres://user:***@host/db, or password=*** in a keyword/value string) and every other secret
// whole ("***"); it leaves other values as they are.
func Mask(flag *kong.Flag, value string) string {
	switch {
	case value == "":
		return value
	case strings.HasSuffix(flag.Name, "database-url"):
		return MaskURL(value)
	case flag.Tag.Has("secret"):
		return "***"
	default:
		return value
	}
}

// MaskURL hides the password of a PostgreSQL connection string; a value that is not one is
// hidden whole.
func MaskURL(value string) string {
	if u, err := url.Parse(value); err == nil && u.Scheme != "" && u.Host != "" {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "***")
		}
		q := u.Query()
		if q.Has("password") {
			q.Set("password", "***")
			u.RawQuery = q.Encode()
		}
		return strings.ReplaceAll(u.String(), "%2A%2A%2A", "***")
	}
	if strings.Contains(value, "=") {
		return passwordInDSN.ReplaceAllString(value, "${1}***")
	}
	return "***"
}
