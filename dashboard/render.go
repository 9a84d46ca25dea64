package dashboard

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io/fs"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jobqdev/jobq/operator"
)

//go:embed templates/*.html
var templateFiles embed.FS

//go:embed static
var staticFiles embed.FS

// page is what every template receives.
type page struct {
	Name     string // the template, and the nav entry shown as current
	Title    string
	Base     string
	Login    string // "" when not signed in
	Operator bool   // signed in as a member of jobq_operator
	StoreID  string // signed in as a store's staff
	CanSign  bool   // signing in is enabled
	CSRF     string
	Now      time.Time // the database's now()
	Refresh  int64     // live refresh period in milliseconds
	Flash    string
	FlashBad bool
	Path     string // this page's path and query, for forms that come back to it
	Version  string
	Data     any
}

// CanAct says whether the visitor may see action buttons: signed in (the database still decides
// whether each action is allowed).
func (p page) CanAct() bool { return p.Login != "" }

// renderer holds the parsed templates: the layout with each page.
type renderer struct {
	pages map[string]*template.Template
}

func newRenderer(opts Options) (*renderer, error) {
	funcs := template.FuncMap{
		"ago": ago,
		"abs": absTime,
		"iso": func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
		"dur": duration,
		"secs": func(d *operator.Seconds) string {
			if d == nil {
				return "–"
			}
			return duration(d.Duration())
		},
		"str":      deref,
		"short":    short,
		"chart":    chart,
		"spark":    spark,
		"num":      number,
		"join":     strings.Join,
		"controls": controls,
		"deref64": func(p *int64) int64 {
			if p == nil {
				return 0
			}
			return *p
		},
		"add":      func(a, b int) int { return a + b },
		"stateBad": func(s string) bool { return s == "dead" || s == "lost" || s == "detached" },
	}
	layout, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFiles, "templates/layout.html", "templates/partials.html")
	if err != nil {
		return nil, fmt.Errorf("dashboard: templates: %w", err)
	}
	names, err := fs.Glob(templateFiles, "templates/*.html")
	if err != nil {
		return nil, err
	}
	r := &renderer{pages: map[string]*template.Template{}}
	for _, name := range names {
		base := strings.TrimSuffix(strings.TrimPrefix(name, "templates/"), ".html")
		if base == "layout" || base == "partials" {
			continue
		}
		t, err := template.Must(layout.Clone()).ParseFS(templateFiles, name)
		if err != nil {
			return nil, fmt.Errorf("dashboard: template %s: %w", name, err)
		}
		r.pages[base] = t
	}
	return r, nil
}

// render writes page p: the whole document, or only its <main> when the browser's live refresh
// asks for the fragment.
func (r *renderer) render(w http.ResponseWriter, req *http.Request, status int, p page) {
	t, ok := r.pages[p.Name]
	if !ok {
		http.Error(w, "no such page", http.StatusInternalServerError)
		return
	}
	name := "layout"
	if req.Header.Get("X-Jobq-Fragment") == "main" {
		name = "main"
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, name, p); err != nil {
		http.Error(w, "render: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("X-Jobq-Now", p.Now.UTC().Format(time.RFC3339Nano))
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// ago is a time relative to the database's now, for the server-rendered page (the browser keeps
// it current).
func ago(now, t time.Time) string {
	d := now.Sub(t)
	if d < 0 {
		return "in " + duration(-d)
	}
	return duration(d) + " ago"
}

func absTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") }

// duration is d rounded for people: 850ms, 12s, 4m 5s, 3h 2m, 5d 4h.
func duration(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.0fs", math.Floor(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm %ds", int(d.Minutes()), int(d.Seconds())%60)
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh %dm", int(d.Hours()), int(d.Minutes())%60)
	default:
		return fmt.Sprintf("%dd %dh", int(d.Hours())/24, int(d.Hours())%24)
	}
}

// controls is a queue's flow controls (the limits object of jobq.queue_summary and jobq.stats) in
// the words a person reads on the overview, e.g. "≤ 5 running · ≤ 1 per store · 100 / 1m · fair";
// "" when it has none.
func controls(l map[string]any) string {
	var parts []string
	count := func(v any) string {
		if f, ok := v.(float64); ok {
			return number(int64(f))
		}
		return fmt.Sprint(v)
	}
	if v, ok := l["max_running"]; ok {
		parts = append(parts, "≤ "+count(v)+" running")
	}
	if v, ok := l["max_running_per_store"]; ok {
		parts = append(parts, "≤ "+count(v)+" per store")
	}
	if v, ok := l["max_running_per_partition"]; ok {
		parts = append(parts, "≤ "+count(v)+" per "+fmt.Sprint(l["partition_key"]))
	}
	if v, ok := l["max_started"]; ok {
		parts = append(parts, count(v)+" / "+window(l["started_per"]))
	}
	if v, ok := l["max_started_per_store"]; ok {
		parts = append(parts, count(v)+" / "+window(l["store_started_per"])+" per store")
	}
	if l["fair"] == true {
		parts = append(parts, "fair")
	}
	return strings.Join(parts, " · ")
}

// window is a rate limit's window, an interval as PostgreSQL writes it ("00:01:00", "00:00:00.5",
// "1 day"), as a short duration: 1m, 500ms, 24h. Anything else is shown as it is.
func window(v any) string {
	s, _ := v.(string)
	var d time.Duration
	rest := s
	if days, hms, ok := strings.Cut(s, " day"); ok {
		n, err := strconv.Atoi(days)
		if err != nil {
			return s
		}
		d = time.Duration(n) * 24 * time.Hour
		rest = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(hms, "s"), ","))
	}
	if rest != "" {
		hms := strings.Split(rest, ":")
		if len(hms) != 3 {
			return s
		}
		h, err1 := strconv.Atoi(hms[0])
		m, err2 := strconv.Atoi(hms[1])
		sec, err3 := strconv.ParseFloat(hms[2], 64)
		if err1 != nil || err2 != nil || err3 != nil {
			return s
		}
		d += time.Duration(h)*time.Hour + time.Duration(m)*time.Minute + time.Duration(sec*float64(time.Second))
	}
	out := d.String() // 1m0s, 1h30m0s, 500ms
	if strings.HasSuffix(out, "m0s") {
		out = strings.TrimSuffix(out, "0s")
	}
	if strings.HasSuffix(out, "h0m") {
		out = strings.TrimSuffix(out, "0m")
	}
	return out
}

// short cuts s (a string or *string) to n characters.
func short(v any, n int) string {
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case *string:
		s = deref(x)
	default:
		s = fmt.Sprint(v)
	}
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

func number(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return s
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteRune(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func indentJSON(raw []byte) string {
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		return string(raw)
	}
	return buf.String()
}

func sortEvents(ev []event) {
	sort.SliceStable(ev, func(i, j int) bool { return ev[i].At.Before(ev[j].At) })
}

// chart draws the last hour as an inline SVG: per minute, succeeded jobs as a bar up and failed
// attempts (the last attempts of the jobs that died among them) as a bar down from the middle line. Only numbers go into it.
func chart(ms []minute) template.HTML {
	const w, h, mid = 600, 160, 100
	var maxUp, maxDown int64 = 1, 1
	for _, m := range ms {
		maxUp = max(maxUp, m.Succeeded)
		maxDown = max(maxDown, m.Failed)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %d %d" role="img" aria-label="jobs per minute over the last hour">`, w, h)
	fmt.Fprintf(&b, `<line class="axis" x1="0" y1="%d" x2="%d" y2="%d"/>`, mid, w, mid)
	bw := float64(w) / float64(max(len(ms), 1))
	for i, m := range ms {
		x := float64(i) * bw
		if m.Succeeded > 0 {
			bh := float64(mid-4) * float64(m.Succeeded) / float64(maxUp)
			fmt.Fprintf(&b, `<rect class="ok" x="%.1f" y="%.1f" width="%.1f" height="%.1f"><title>%s: %d succeeded</title></rect>`,
				x+0.5, float64(mid)-bh, bw-1, bh, m.At.UTC().Format("15:04"), m.Succeeded)
		}
		if bad := m.Failed; bad > 0 {
			bh := float64(h-mid-4) * float64(bad) / float64(maxDown)
			fmt.Fprintf(&b, `<rect class="bad" x="%.1f" y="%d" width="%.1f" height="%.1f"><title>%s: %d failed attempts, %d jobs dead</title></rect>`,
				x+0.5, mid, bw-1, bh, m.At.UTC().Format("15:04"), m.Failed, m.Dead)
		}
	}
	fmt.Fprintf(&b, `<text x="2" y="12">%s/min</text><text x="2" y="%d">%s/min</text>`, number(maxUp), h-4, number(maxDown))
	if len(ms) > 0 {
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%s UTC</text>`, w-2, mid-4, ms[len(ms)-1].At.UTC().Format("15:04"))
		fmt.Fprintf(&b, `<text x="%d" y="%d">%s</text>`, 40, mid-4, ms[0].At.UTC().Format("15:04"))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// spark draws one queue's last hour as a small inline SVG: succeeded per minute up, failed
// attempts down.
func spark(ms []minute) template.HTML {
	if ms == nil {
		return template.HTML(`<span class="muted">–</span>`)
	}
	const w, h, mid = 120, 24, 16
	var maxUp, maxDown int64 = 1, 1
	for _, m := range ms {
		maxUp = max(maxUp, m.Succeeded)
		maxDown = max(maxDown, m.Failed)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="spark" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="last hour">`, w, h, w, h)
	for i, m := range ms {
		x := float64(i) * 2
		if m.Succeeded > 0 {
			bh := float64(mid-1) * float64(m.Succeeded) / float64(maxUp)
			fmt.Fprintf(&b, `<rect class="ok" x="%.0f" y="%.1f" width="1.6" height="%.1f"/>`, x, float64(mid)-bh, bh)
		}
		if m.Failed > 0 {
			bh := float64(h-mid-1) * float64(m.Failed) / float64(maxDown)
			fmt.Fprintf(&b, `<rect class="bad" x="%.0f" y="%d" width="1.6" height="%.1f"/>`, x, mid, bh)
		}
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}
