package dashboard

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"net/http"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/queue"
)

// webFS holds the dashboard's templates and static assets (plain CSS and a
// little vanilla JS: no build step). Only the assets are served
// (static.go).
//
//go:embed web
var webFS embed.FS

// dashboardFuncs are the helpers templates format with. Times are shown in
// UTC; durations rounded to what a reader needs.
var dashboardFuncs = template.FuncMap{
	"utc":   func(t time.Time) string { return fmtUTC(t, "2006-01-02 15:04") },
	"utcs":  func(t time.Time) string { return fmtUTC(t, "2006-01-02 15:04:05") },
	"since": func(t time.Time) string { return "" }, // replaced per request (injected clock)
	"short": shortSHA,
	"dur":   fmtDuration,
	"span": func(d time.Duration) string {
		if d%(24*time.Hour) == 0 && d > 24*time.Hour {
			return fmt.Sprintf("%d days", d/(24*time.Hour))
		}
		return fmt.Sprintf("%d hours", d/time.Hour)
	},
}

func fmtUTC(t time.Time, layout string) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(layout)
}

func shortSHA(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}

// fmtDuration writes d as "45s", "12m", "3h05m" or "2d04h".
func fmtDuration(d time.Duration) string {
	switch {
	case d < 0:
		return "0s"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd%02dh", int(d.Hours())/24, int(d.Hours())%24)
}

// pageTemplate parses the layout, the shared queue views and one page.
func pageTemplate(page string) *template.Template {
	return template.Must(template.New(page).Funcs(dashboardFuncs).
		ParseFS(webFS, "web/layout.html", "web/queues.html", "web/"+page))
}

var (
	homeTmpl    = pageTemplate("home.html")
	prTmpl      = pageTemplate("pr.html")
	loginTmpl   = pageTemplate("login.html")
	historyTmpl = pageTemplate("history.html")
	chartsTmpl  = pageTemplate("charts.html")
)

// pageData is what the layout renders: Body is the page's own view.
type pageData struct {
	Title  string
	Viewer viewer
	// Live is the fragment URL live.js refreshes ("" = none).
	Live string
	Body any
}

// render executes tmpl's layout (or the named template) into a buffer
// first, so a failure answers 500 instead of half a page.
func (d *Dashboard) render(w http.ResponseWriter, r *http.Request, status int, tmpl *template.Template, name string, data any) {
	page, ok := d.execute(w, r, tmpl, name, data)
	if !ok {
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(page)
}

// execute renders the named template of tmpl, with "since" on the injected
// clock, or logs the failure and answers 500 itself.
func (d *Dashboard) execute(w http.ResponseWriter, r *http.Request, tmpl *template.Template, name string, data any) ([]byte, bool) {
	t, err := tmpl.Clone()
	if err == nil {
		now := d.clock()
		t = t.Funcs(template.FuncMap{"since": func(at time.Time) string {
			if at.IsZero() {
				return ""
			}
			return fmtDuration(now.Sub(at))
		}})
	}
	var buf bytes.Buffer
	if err == nil {
		err = t.ExecuteTemplate(&buf, name, data)
	}
	if err != nil {
		zerolog.Ctx(r.Context()).Error().Err(err).Str("path", r.URL.Path).Msg("dashboard: failed to render")
		http.Error(w, "internal error", http.StatusInternalServerError)
		return nil, false
	}
	return buf.Bytes(), true
}

// clock is the injected clock.
func (d *Dashboard) clock() time.Time { return d.now() }

// ghLinks builds web links on the repository's GitHub: under the
// configured web URL (GitHub Enterprise, the sandbox's fake GitHub), else
// https://<host>.
type ghLinks struct{ base string }

func (d *Dashboard) links(repo queue.Repo) ghLinks {
	base := strings.TrimRight(d.cfg.WebURL, "/")
	if base == "" {
		base = "https://" + repo.Host
	}
	return ghLinks{base: base}
}

func (l ghLinks) repo(r queue.Repo) string { return l.base + "/" + r.Owner + "/" + r.Name }
func (l ghLinks) pull(r queue.Repo, n int) string {
	return fmt.Sprintf("%s/pull/%d", l.repo(r), n)
}
func (l ghLinks) tree(r queue.Repo, branch string) string { return l.repo(r) + "/tree/" + branch }
func (l ghLinks) commit(r queue.Repo, sha string) string  { return l.repo(r) + "/commit/" + sha }

// user is login's profile ("" when login is, as for an unknown author).
func (l ghLinks) user(login string) string {
	if login == "" {
		return ""
	}
	return l.base + "/" + login
}
