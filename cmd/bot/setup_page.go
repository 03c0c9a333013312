package main

import (
	"context"
	"crypto/subtle"
	"fmt"
	"html/template"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mergequeue/mq/app"
	"github.com/mergequeue/mq/githubx"
)

// exchangeTimeout bounds the conversion of GitHub's code into the App.
const exchangeTimeout = time.Minute

// setupResult is how the flow ended: the App registered and its config
// written, or why not.
type setupResult struct {
	app *githubx.RegisteredApp
	err error
}

// setupPage is the local side of GitHub's App manifest flow: GET / is a
// form that posts the manifest to GitHub, GET /callback is where GitHub
// sends the browser back with a code. It completes the flow at most once,
// and only for a callback carrying its state; the outcome goes to done. It
// answers only requests whose Host is its own loopback address (hosts):
// a page on another site that rebinds its DNS name to 127.0.0.1 reaches
// the port, but with its own name in Host, so it can read neither the
// form (with the state) nor the result.
type setupPage struct {
	ctx      context.Context
	plan     *setupPlan
	manifest string // JSON
	action   string // GitHub's new-App page, with the state
	state    string
	hosts    map[string]bool // accepted Host values, lower case
	stderr   io.Writer
	done     chan setupResult // buffered: receives one result

	mu   sync.Mutex
	used bool
}

// newSetupPage serves the flow on listenAddr, the loopback host:port the
// page's listener is bound to (its port resolved).
func newSetupPage(ctx context.Context, plan *setupPlan, m appManifest, state, listenAddr string, stderr io.Writer) (*setupPage, error) {
	manifest, err := m.JSON()
	if err != nil {
		return nil, err
	}
	hosts, err := loopbackHosts(listenAddr)
	if err != nil {
		return nil, err
	}
	action := plan.webURL + "/settings/apps/new"
	if plan.org != "" {
		action = plan.webURL + "/organizations/" + url.PathEscape(plan.org) + "/settings/apps/new"
	}
	action += "?" + url.Values{"state": {state}}.Encode()
	return &setupPage{ctx: ctx, plan: plan, manifest: manifest, action: action, state: state, hosts: hosts, stderr: stderr,
		done: make(chan setupResult, 1)}, nil
}

// loopbackHosts are the Host header values naming the listener at
// listenAddr: its own host:port, and 127.0.0.1, localhost and [::1] with
// its port.
func loopbackHosts(listenAddr string) (map[string]bool, error) {
	host, port, err := net.SplitHostPort(listenAddr)
	if err != nil {
		return nil, fmt.Errorf("setup page address %q: %w", listenAddr, err)
	}
	hosts := map[string]bool{}
	for _, h := range []string{host, "127.0.0.1", "localhost", "::1"} {
		hosts[strings.ToLower(net.JoinHostPort(h, port))] = true
	}
	return hosts, nil
}

var formPage = template.Must(template.New("form").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>Register the merge queue's GitHub App</title></head>
<body style="font-family: sans-serif; max-width: 40em; margin: 3em auto">
<h1>Register the merge queue's GitHub App</h1>
<p>This sends the App's manifest (app.yml) to <b>{{.Where}}</b>. GitHub asks you
to name the App and creates it, with webhooks to <code>{{.Hook}}</code>; then it
sends you back here and <code>bot setup</code> writes <code>{{.Config}}</code>.</p>
<form action="{{.Action}}" method="post">
<input type="hidden" name="manifest" value="{{.Manifest}}">
<button type="submit">Create the GitHub App on GitHub</button>
</form>
</body></html>
`))

var resultPage = template.Must(template.New("result").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>{{.Title}}</title></head>
<body style="font-family: sans-serif; max-width: 40em; margin: 3em auto">
<h1>{{.Title}}</h1>
<p>{{.Text}}</p>
{{if .Link}}<p><a href="{{.Link}}">{{.Link}}</a></p>{{end}}
<p>You can close this page; the terminal running <code>bot setup</code> says what comes next.</p>
</body></html>
`))

// ServeHTTP serves the form and the callback, to requests for its own
// loopback Host only (421 otherwise).
func (p *setupPage) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !p.hosts[strings.ToLower(r.Host)] {
		fmt.Fprintf(p.stderr, "bot setup: refused a request for host %q (only this page's loopback address is served)\n", r.Host)
		http.Error(w, "This page answers only at its own loopback address (Host 127.0.0.1, localhost or [::1] with its port).",
			http.StatusMisdirectedRequest)
		return
	}
	switch {
	case r.URL.Path == "/" && r.Method == http.MethodGet:
		where := p.plan.webURL
		if p.plan.org != "" {
			where += " (organization " + p.plan.org + ")"
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_ = formPage.Execute(w, map[string]string{"Where": where, "Hook": p.plan.publicURL + app.WebhookPath,
			"Config": p.plan.configPath, "Action": p.action, "Manifest": p.manifest})
	case r.URL.Path == "/callback" && r.Method == http.MethodGet:
		p.callback(w, r)
	default:
		http.NotFound(w, r)
	}
}

// callback completes the flow for GitHub's redirect: the state must be the
// one this setup sent (else 403 and the setup keeps waiting), the code is
// exchanged for the App and the config is written, once (a later callback
// is 410).
func (p *setupPage) callback(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(p.state)) != 1 {
		fmt.Fprintln(p.stderr, "bot setup: refused a callback without this setup's state (a forged or stale request)")
		http.Error(w, "This request does not carry the state bot setup sent GitHub; nothing was done.", http.StatusForbidden)
		return
	}
	code := q.Get("code")
	if code == "" {
		http.Error(w, "GitHub sent no code.", http.StatusBadRequest)
		return
	}
	p.mu.Lock()
	used := p.used
	p.used = true
	p.mu.Unlock()
	if used {
		http.Error(w, "This setup already received its App.", http.StatusGone)
		return
	}
	// A browser that goes away must not lose the App: the exchange hands
	// out its key once.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(p.ctx), exchangeTimeout)
	defer cancel()
	res := p.complete(ctx, code)
	data := map[string]string{}
	if res.err != nil {
		data["Title"], data["Text"] = "The setup failed", res.err.Error()
		w.WriteHeader(http.StatusBadGateway)
	} else {
		data["Title"] = "The GitHub App " + res.app.Name + " is registered"
		data["Text"] = "bot setup wrote " + p.plan.configPath + ". Now install the App on your repositories:"
		data["Link"] = res.app.HTMLURL + "/installations/new"
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = resultPage.Execute(w, data)
	p.done <- res
}

// complete exchanges code for the App (POST
// /app-manifests/{code}/conversions, through githubx) and writes its
// config.
func (p *setupPage) complete(ctx context.Context, code string) setupResult {
	a, err := githubx.CompleteAppManifest(ctx, p.plan.apiURL, code)
	if err != nil {
		return setupResult{err: fmt.Errorf("failed to fetch the App from GitHub (POST %sapp-manifests/…/conversions): %w", p.plan.apiURL, err)}
	}
	if a.ID <= 0 || a.PEM == "" || a.WebhookSecret == "" {
		return setupResult{err: fmt.Errorf("GitHub's answer lacks the App's id, key or webhook secret (App %q)", a.Slug)}
	}
	if err := p.plan.writeFiles(a); err != nil {
		return setupResult{err: fmt.Errorf("the App %q (id %d) is registered on GitHub, but %w; delete it there "+
			"(Settings → Developer settings → GitHub Apps → Advanced) and run bot setup again", a.Slug, a.ID, err)}
	}
	return setupResult{app: a}
}
