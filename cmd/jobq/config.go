package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/alecthomas/kong"
	"github.com/jackc/pgx/v5"

	"github.com/jobqdev/jobq/internal/cliconf"
)

// configCmd is jobq config: the effective configuration of a command line, or of every command
// that has one, each value with where it came from.
type configCmd struct {
	JSON bool     `name:"json" help:"print JSON ({\"sections\": [{\"command\", \"settings\": [{\"flag\", \"value\", \"source\", \"env\"}]}]}) instead of a table"`
	Args []string `arg:"" optional:"" passthrough:"" placeholder:"COMMAND [FLAG...]" help:"the command line to explain (worker --queues a,b); without one, every command's configuration"`
}

// Help is the long help of jobq config.
func (c *configCmd) Help() string {
	return `Prints the configuration a command line would run with, without running it: every flag of the
command, its value and its source: flag, env NAME (an old name says which JOBQ_ variable replaces
it), file PATH (jobq worker --config), default, or database (0 means the database's setting of
that name: with the command's --database-url, its value is read from jobq.settings). Passwords in URLs and other secrets are masked. Without a command, it
prints bootstrap, migrate, worker, dashboard, compact and the operator commands' connection (as
jobq stats has it). Put --json before the command. Exit status 2 on a command line that does not
parse. See docs/configuration.md.`
}

// configSections are the commands jobq config prints without arguments: those with a
// configuration of their own; stats stands for every operator command (one --database-url).
var configSections = [][]string{{"bootstrap"}, {"migrate"}, {"worker"}, {"dashboard"}, {"compact"}, {"stats"}}

// configSetting is one flag's effective value.
type configSetting struct {
	Flag   string          `json:"flag"`
	Value  string          `json:"value"`
	Source cliconf.Source  `json:"-"`
	Where  configSourceOut `json:"source"`
	Env    string          `json:"env,omitempty"`
	raw    string          // the value unmasked
}

// configSourceOut is a source in JSON: kind (flag, env, file, default, database), name (the
// variable, file or setting), for an old variable name its replacement, and for a database
// setting that could not be read, why.
type configSourceOut struct {
	Kind        cliconf.Kind `json:"kind"`
	Name        string       `json:"name,omitempty"`
	Replacement string       `json:"replacement,omitempty"`
	Error       string       `json:"error,omitempty"`
}

// configSection is one command's settings.
type configSection struct {
	Command  string          `json:"command"`
	Settings []configSetting `json:"settings"`
}

func (c *configCmd) Run(e *env) error {
	lines := configSections
	if len(c.Args) > 0 {
		args := c.Args
		if args[0] == "--" {
			args = args[1:]
		}
		lines = [][]string{args}
	}
	var sections []configSection
	for _, args := range lines {
		s, err := explainConfig(args, e.stdout, e.stderr)
		if err != nil {
			return err
		}
		readDatabaseSettings(e.ctx, &s)
		sections = append(sections, s)
	}
	if c.JSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"sections": sections})
	}
	return printConfig(e.stdout, sections)
}

// explainConfig parses args as jobq would, without running them, and returns the flags of the
// command they select with their values and sources.
func explainConfig(args []string, stdout, stderr io.Writer) (configSection, error) {
	res := newResolver(stderr)
	parser, err := newParserWith(&cli{}, res, stdout, stderr)
	if err != nil {
		return configSection{}, err
	}
	if len(args) == 0 || !isCommand(parser, args[0]) {
		return configSection{}, usageError{fmt.Sprintf("config: %q is not a jobq command", strings.Join(args, " "))}
	}
	kctx, err := parser.Parse(args)
	if err != nil {
		var perr *kong.ParseError
		if errors.As(err, &perr) && perr.Context != nil {
			kctx = perr.Context
		}
		return configSection{}, usageError{fmt.Sprintf("config: %v\nRun \"jobq help %s\" for its arguments and flags.", err, strings.Join(commandPath(kctx), " "))}
	}
	section := configSection{Command: strings.Join(commandPath(kctx), " "), Settings: []configSetting{}}
	for _, p := range kctx.Path {
		if p.Command == nil {
			continue // the root's --help and --version
		}
		for _, f := range p.Flags {
			if f.Hidden || f.Name == "help" {
				continue
			}
			src := res.Source(f)
			s := configSetting{
				raw:    fmt.Sprint(f.Target.Interface()),
				Flag:   f.Name,
				Value:  cliconf.Mask(f, fmt.Sprint(f.Target.Interface())),
				Source: src,
				Where:  configSourceOut{Kind: src.Kind, Name: src.Name, Replacement: src.Replacement},
			}
			if len(f.Envs) > 0 {
				s.Env = f.Envs[0]
			}
			section.Settings = append(section.Settings, s)
		}
	}
	return section, nil
}

// readDatabaseSettings replaces the zero value of each setting whose source is the database with the
// database's value (jobq.settings), read with the section's --database-url when it has one. It
// connects for at most settingsTimeout; when it cannot read them the zero stays and the source says
// why.
func readDatabaseSettings(ctx context.Context, s *configSection) {
	var url string
	var names []string
	for _, st := range s.Settings {
		if st.Flag == "database-url" {
			url = st.raw
		}
		if st.Source.Kind == cliconf.FromDatabase {
			names = append(names, st.Source.Name)
		}
	}
	if url == "" || len(names) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, settingsTimeout)
	defer cancel()
	values, err := querySettings(ctx, url, names)
	for i, st := range s.Settings {
		if st.Source.Kind != cliconf.FromDatabase {
			continue
		}
		if err != nil {
			s.Settings[i].Where.Error = strings.Join(strings.Fields(err.Error()), " ") // one line
			continue
		}
		if v, ok := values[st.Source.Name]; ok {
			s.Settings[i].Value = v
		}
	}
}

// settingsTimeout bounds jobq config's read of the database's settings.
const settingsTimeout = 5 * time.Second

// querySettings reads the named settings' values from jobq.settings.
func querySettings(ctx context.Context, url string, names []string) (map[string]string, error) {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("not read: %w", explain(err))
	}
	defer conn.Close(context.WithoutCancel(ctx))
	rows, err := conn.Query(ctx, `SELECT name, value FROM jobq.settings WHERE name = ANY($1)`, names)
	if err != nil {
		return nil, fmt.Errorf("not read: %w", err)
	}
	values := map[string]string{}
	var name, value string
	_, err = pgx.ForEachRow(rows, []any{&name, &value}, func() error {
		values[name] = value
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("not read: %w", err)
	}
	return values, nil
}

// printConfig prints the sections as tables: flag, value, source.
func printConfig(w io.Writer, sections []configSection) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for i, s := range sections {
		if i > 0 {
			fmt.Fprintln(tw)
		}
		fmt.Fprintf(tw, "jobq %s\n", s.Command)
		fmt.Fprintln(tw, "  FLAG\tVALUE\tSOURCE")
		for _, st := range s.Settings {
			v := st.Value
			if v == "" {
				v = `""`
			}
			src := st.Source.String()
			if st.Where.Error != "" {
				src += ": " + st.Where.Error
			}
			fmt.Fprintf(tw, "  --%s\t%s\t%s\n", st.Flag, v, src)
		}
	}
	return tw.Flush()
}
