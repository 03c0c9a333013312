package api

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/handlers/api/apitoken"
	"github.com/mergequeue/mq/handlers/requestid"
	"github.com/mergequeue/mq/queue"
)

// MaxBodyBytes is the largest request body accepted (seed §8: 20 MiB).
// Larger bodies are answered 413 and never read past this size.
const MaxBodyBytes = 20 << 20

// Options configure the API.
type Options struct {
	// Host is the GitHub host whose repositories the API serves
	// (queue.DefaultHost when empty, or a GitHub Enterprise host). Requests naming another
	// repo.host are answered 404.
	Host string
	// WebURL is GitHub's web URL, under which pull request links are built
	// (pullURL): https://github.com, a GitHub Enterprise server's, or a
	// fake GitHub's ("" = https://<repo.host>).
	WebURL string
	// Now is the clock (time.Now when nil); it decides token expiry.
	Now func() time.Time
	// Logger receives one event per failed request; the zero value logs
	// nothing.
	Logger zerolog.Logger
	// ForkRuns bound requests authenticated by ForkedRunHeader alone (zero
	// fields: DefaultForkRunLimits).
	ForkRuns ForkRunLimits
}

// API serves /v1/<operation>. Construct it with New.
type API struct {
	svc    Service
	reads  Reads
	tokens apitoken.Store
	host   string
	webURL string
	now    func() time.Time
	log    zerolog.Logger
	routes map[string]route
	forks  *forkGuard
}

// route is one operation: the only method it answers and its handler. A
// handler returns an error instead of writing one; ServeHTTP maps it (see
// errors.go).
type route struct {
	method string
	serve  func(w http.ResponseWriter, r *http.Request) error
	// forkAuth lets a request without a token through to the handler when
	// it carries ForkedRunHeader; the handler must then confirm the run
	// (see forkedRunFrom).
	forkAuth bool
	// write marks an operation that changes something: a read-only token
	// is refused (403) before it runs.
	write bool
}

// New returns the /v1 handler over the queue's use cases (svc, for the
// operations that change something) and its read side (reads, for those
// that do not). It serves "/v1/<operation>" and, when mounted behind
// http.StripPrefix, "/<operation>".
func New(svc Service, reads Reads, tokens apitoken.Store, opts Options) http.Handler {
	a := &API{svc: svc, reads: reads, tokens: tokens, host: opts.Host, webURL: strings.TrimRight(opts.WebURL, "/"), now: opts.Now, log: opts.Logger,
		forks: newForkGuard(opts.ForkRuns)}
	if a.host == "" {
		a.host = queue.DefaultHost
	}
	if a.now == nil {
		a.now = time.Now
	}
	// One line per operation; each handler lives in its own file.
	a.routes = map[string]route{
		"submitPullRequest":           {method: http.MethodPost, serve: a.submitPullRequest, write: true},
		"cancelPullRequest":           {method: http.MethodPost, serve: a.cancelPullRequest, write: true},
		"restartTestsOnPullRequest":   {method: http.MethodPost, serve: a.restartTestsOnPullRequest, write: true},
		"getSubmittedPullRequest":     {method: http.MethodPost, serve: a.getSubmittedPullRequest},
		"setImpactedTargets":          {method: http.MethodPost, serve: a.setImpactedTargets, forkAuth: true, write: true},
		"getMergeQueueTestingDetails": {method: http.MethodPost, serve: a.getMergeQueueTestingDetails},
		"createQueue":                 {method: http.MethodPost, serve: a.createQueue, write: true},
		"deleteQueue":                 {method: http.MethodPost, serve: a.deleteQueue, write: true},
		"getQueue":                    {method: http.MethodPost, serve: a.getQueue},
		"updateQueue":                 {method: http.MethodPost, serve: a.updateQueue, write: true},
		"listPullRequests":            {method: http.MethodPost, serve: a.listPullRequests},
		"getMergeQueueMetrics":        {method: http.MethodGet, serve: a.getMergeQueueMetrics},
	}
	return a
}

// ServeHTTP routes, checks the method, authenticates, then runs the
// operation. Unknown operations are 404 and wrong methods 405, both before
// authentication; a read-only token is 403 on a write operation, before it
// reads the body; a panic in an operation is answered 500.
func (a *API) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	op := operationName(r.URL.Path)
	log := requestid.Annotate(r.Context(), a.log.With()).Str("operation", op).Logger()
	ctx := log.WithContext(r.Context())
	r = r.WithContext(ctx)

	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler { //nolint:errorlint // a panic value, not a returned error: net/http compares it the same way
				panic(p)
			}
			log.Error().Interface("panic", p).Msg("REST operation panicked")
			writeText(w, http.StatusInternalServerError, internalErrorMessage)
		}
	}()

	rt, ok := a.routes[op]
	if !ok {
		a.writeError(w, r, notFoundf("unknown operation %q", op))
		return
	}
	if r.Method != rt.method {
		w.Header().Set("Allow", rt.method)
		a.writeError(w, r, &apiError{Status: http.StatusMethodNotAllowed,
			Msg: "method " + r.Method + " not allowed; use " + rt.method})
		return
	}
	if rt.forkAuth && r.Header.Get(TokenHeader) == "" && r.Header.Get(ForkedRunHeader) != "" {
		runID, err := parseForkedRunID(r.Header.Get(ForkedRunHeader))
		if err != nil {
			a.writeError(w, r, err)
			return
		}
		log = log.With().Int64("forked_workflow_run_id", runID).Logger()
		ctx = withForkedRun(log.WithContext(ctx), runID)
		// Before the body is read: anyone can send the header.
		release, err := a.forks.admit(r, a.now())
		if err != nil {
			a.writeError(w, r.WithContext(ctx), err)
			return
		}
		defer release()
	} else {
		tok, err := a.authenticate(r)
		if err != nil {
			a.writeError(w, r, err)
			return
		}
		log = log.With().Str("token_id", tok.ID).Str("token_name", tok.Name).Logger()
		ctx = withToken(log.WithContext(ctx), tok)
		if rt.write && tok.ReadOnly {
			a.writeError(w, r.WithContext(ctx), readOnlyRefusal(tok, op))
			return
		}
	}
	if err := rt.serve(w, r.WithContext(ctx)); err != nil {
		a.writeError(w, r.WithContext(ctx), err)
	}
}

// operationName is the path after the optional "/v1" prefix, without
// surrounding slashes.
func operationName(path string) string {
	path = strings.TrimPrefix(path, "/v1/")
	return strings.Trim(path, "/")
}

// loggerFrom returns the request's logger.
func loggerFrom(ctx context.Context) *zerolog.Logger { return zerolog.Ctx(ctx) }
