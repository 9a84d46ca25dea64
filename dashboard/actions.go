package dashboard

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/jobqdev/jobq/operator"
)

// flash is the one-line outcome of an action, shown once on the page the action returns to.
type flash struct {
	text string
	bad  bool
}

func (s *session) setFlash(f flash) {
	s.mu.Lock()
	s.flash = &f
	s.mu.Unlock()
}

func (s *session) takeFlash() *flash {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.flash
	s.flash = nil
	return f
}

// outcome is what an action did: the flash text and where to go next ("" = back to the page the
// form came from). confirm, when set, renders a confirmation page instead.
type outcome struct {
	text     string
	redirect string
	confirm  *confirmData
}

// actFunc performs one action on the signed-in person's connection.
type actFunc func(ctx context.Context, r *http.Request, c *operator.Operator, q querier) (outcome, error)

// action wraps an actFunc: the visitor must be signed in (the dashboard is read-only until then)
// and the form must carry their CSRF token; the outcome is logged and flashed, and the browser
// is sent back to the page it came from.
func (d *Dashboard) action(fn actFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, 1<<20)
		s := d.session(r)
		if s == nil {
			d.fail(w, r, nil, http.StatusForbidden, "The dashboard is read-only until you sign in: sign in with your database login (a member of jobq_operator) to act.")
			return
		}
		if !d.checkCSRF(r, s) {
			d.log.Warn("dashboard: action refused: CSRF check failed", "login", s.login, "path", r.URL.Path)
			d.fail(w, r, s, http.StatusForbidden, "This form is out of date or did not come from this dashboard (CSRF check): nothing was done. Reload the page and try again.")
			return
		}
		var out outcome
		err := d.view(r.Context(), s, func(q querier) error {
			var err error
			out, err = fn(r.Context(), r, operator.New(q), q)
			return err
		})
		if errors.Is(err, errSessionLost) {
			d.readFailed(w, r, s, err)
			return
		}
		if out.confirm != nil && err == nil {
			p := d.newPage(w, r, s, "confirm", "Confirm")
			p.Data = out.confirm
			_ = d.view(r.Context(), s, func(q querier) error { return q.QueryRow(r.Context(), `SELECT now()`).Scan(&p.Now) })
			d.pages.render(w, r, http.StatusOK, p)
			return
		}
		if err != nil {
			msg := err.Error()
			if isPermission(err) {
				msg = "Your login may not do this: " + msg
			}
			d.log.Warn("dashboard: action failed", "login", s.login, "path", r.URL.Path, "error", msg)
			s.setFlash(flash{text: msg, bad: true})
		} else {
			d.log.Info("dashboard: action", "login", s.login, "path", r.URL.Path, "outcome", out.text)
			s.setFlash(flash{text: out.text})
		}
		target := out.redirect
		if target == "" {
			target = d.backTo(r, "/")
		}
		http.Redirect(w, r, target, http.StatusSeeOther)
	}
}

func (d *Dashboard) jobAction(ctx context.Context, r *http.Request, c *operator.Operator, q querier) (outcome, error) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return outcome{}, fmt.Errorf("%q is not a job id", r.PathValue("id"))
	}
	var state string
	switch r.PathValue("action") {
	case "retry":
		state, err = c.RetryJob(ctx, id)
	case "cancel":
		state, err = c.CancelJob(ctx, id)
	case "delete":
		state, err = c.DeleteJob(ctx, id)
		if err == nil {
			return outcome{text: fmt.Sprintf("Job %d (%s) deleted.", id, state), redirect: d.backTo(r, "/jobs")}, nil
		}
	default:
		return outcome{}, fmt.Errorf("unknown job action %q", r.PathValue("action"))
	}
	if err != nil {
		return outcome{}, err
	}
	return outcome{text: fmt.Sprintf("Job %d: %s.", id, state)}, nil
}

// confirmData is the confirmation of a bulk action: what it does to how many jobs.
type confirmData struct {
	Action string
	Count  int
	More   bool // more than bulkLimit match: this takes the newest bulkLimit
	Filter jobFilter
	Back   string
	Limit  int
}

// deadBulk retries or deletes every dead job matching the form's filter (at most bulkLimit, newest
// first). Without confirm=N it renders a confirmation with the count; with it, it acts only when
// the count still matches N or more, one jobq.retry_job / jobq.delete_job call per job, each
// audited.
func (d *Dashboard) deadBulk(ctx context.Context, r *http.Request, c *operator.Operator, q querier) (outcome, error) {
	action := r.PostFormValue("action")
	if action != "retry" && action != "delete" {
		return outcome{}, fmt.Errorf("unknown bulk action %q (retry or delete)", action)
	}
	f := parseJobFilter(r.PostForm)
	if f.Problem != "" {
		return outcome{}, errors.New(f.Problem)
	}
	var now time.Time
	if err := q.QueryRow(ctx, `SELECT now()`).Scan(&now); err != nil {
		return outcome{}, err
	}
	ids, err := matchingDead(ctx, q, f, now)
	if err != nil {
		return outcome{}, err
	}
	more := len(ids) > bulkLimit
	if more {
		ids = ids[:bulkLimit]
	}
	back := d.opts.BasePath + "/dead"
	if qs := f.Query(); qs != "" {
		back += "?" + qs
	}
	confirmed, _ := strconv.Atoi(r.PostFormValue("confirm"))
	if confirmed <= 0 {
		return outcome{confirm: &confirmData{Action: action, Count: len(ids), More: more, Filter: f, Back: back, Limit: bulkLimit}}, nil
	}
	if len(ids) == 0 {
		return outcome{text: "No dead job matches the filter any more: nothing was done.", redirect: back}, nil
	}
	done, failed := 0, 0
	var firstErr error
	for _, id := range ids {
		var err error
		if action == "retry" {
			_, err = c.RetryJob(ctx, id)
		} else {
			_, err = c.DeleteJob(ctx, id)
		}
		if err != nil {
			if isPermission(err) {
				return outcome{}, err
			}
			failed++
			if firstErr == nil {
				firstErr = fmt.Errorf("job %d: %w", id, err)
			}
			continue
		}
		done++
	}
	verb := map[string]string{"retry": "queued again", "delete": "deleted"}[action]
	text := fmt.Sprintf("%d dead jobs %s.", done, verb)
	if failed > 0 {
		text += fmt.Sprintf(" %d could not be (%v).", failed, firstErr)
	}
	return outcome{text: text, redirect: back}, nil
}

func (d *Dashboard) queueAction(ctx context.Context, r *http.Request, c *operator.Operator, q querier) (outcome, error) {
	queue := r.PathValue("queue")
	var changed bool
	var err error
	switch r.PathValue("action") {
	case "pause":
		changed, err = c.PauseQueue(ctx, queue)
	case "resume":
		changed, err = c.ResumeQueue(ctx, queue)
	default:
		return outcome{}, fmt.Errorf("unknown queue action %q", r.PathValue("action"))
	}
	if err != nil {
		return outcome{}, err
	}
	if !changed {
		return outcome{text: fmt.Sprintf("Queue %s was already %sd.", queue, r.PathValue("action"))}, nil
	}
	return outcome{text: fmt.Sprintf("Queue %s %sd.", queue, r.PathValue("action"))}, nil
}

func (d *Dashboard) workerAction(ctx context.Context, r *http.Request, c *operator.Operator, q querier) (outcome, error) {
	id := r.PathValue("id")
	switch r.PathValue("action") {
	case "drain":
		return outcome{text: "Worker " + id + " drains: it finishes its jobs and claims no more."}, c.DrainWorker(ctx, id)
	case "resume":
		return outcome{text: "Worker " + id + " resumed."}, c.ResumeWorker(ctx, id)
	case "detach":
		n, err := c.DetachWorker(ctx, id)
		return outcome{text: fmt.Sprintf("Worker %s detached; %d of its jobs affected.", id, n)}, err
	default:
		return outcome{}, fmt.Errorf("unknown worker action %q", r.PathValue("action"))
	}
}

func (d *Dashboard) demote(ctx context.Context, r *http.Request, c *operator.Operator, q querier) (outcome, error) {
	epoch, err := c.DemoteLeader(ctx)
	return outcome{text: fmt.Sprintf("Leader demoted; the next leader takes epoch %d or later.", epoch+1)}, err
}

func (d *Dashboard) scheduleAction(ctx context.Context, r *http.Request, c *operator.Operator, q querier) (outcome, error) {
	name := r.PathValue("name")
	switch r.PathValue("action") {
	case "pause":
		changed, err := c.PauseSchedule(ctx, name)
		return outcome{text: fmt.Sprintf("Schedule %s paused%s.", name, map[bool]string{false: " (it already was)"}[changed])}, err
	case "resume":
		changed, err := c.ResumeSchedule(ctx, name)
		return outcome{text: fmt.Sprintf("Schedule %s resumed%s.", name, map[bool]string{false: " (it was not paused)"}[changed])}, err
	case "run":
		id, err := c.RunScheduleNow(ctx, name)
		return outcome{text: fmt.Sprintf("Schedule %s ran now: job %d.", name, id)}, err
	default:
		return outcome{}, fmt.Errorf("unknown schedule action %q", r.PathValue("action"))
	}
}

func (d *Dashboard) settingAction(ctx context.Context, r *http.Request, c *operator.Operator, q querier) (outcome, error) {
	name := r.PathValue("name")
	stored, err := c.SetSetting(ctx, name, r.PostFormValue("value"))
	return outcome{text: fmt.Sprintf("Setting %s = %s.", name, stored)}, err
}
