package app

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/handlers/secheaders"
)

// Paths of the endpoints others are told about: GitHub delivers webhooks
// to WebhookPath (the App manifest and the setup page say so), and the
// health check probes HealthPath and ReadyPath.
const (
	WebhookPath = "/api/github/hook"
	HealthPath  = "/healthz"
	ReadyPath   = "/readyz"
)

// routes mounts every endpoint of SPEC §9, every request body under the
// minimum-rate read deadline (a trickling body is cut: 408 or a closed
// connection) and every response with the security headers (outermost, so
// that even a refused body's answer has them).
func (a *App) routes(webhooks, restAPI http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle(WebhookPath, webhooks)
	mux.Handle("/v1/", restAPI)
	mux.Handle("GET /metrics", promhttp.HandlerFor(a.metrics.registry, promhttp.HandlerOpts{}))
	mux.HandleFunc("GET "+HealthPath, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("GET "+ReadyPath, a.ready)
	if a.dash != nil {
		a.dash.Routes(mux)
	}
	return secheaders.Handler(secheaders.Options{HSTS: a.publicHTTPS()}, a.observed(mux, a.bodies.Handler))
}

// publicHTTPS reports whether the service's public URL is https (then
// browsers are told to use nothing else: Strict-Transport-Security).
func (a *App) publicHTTPS() bool {
	if a.cfg == nil {
		return false
	}
	u, err := url.Parse(a.cfg.Server.PublicURL)
	return err == nil && strings.EqualFold(u.Scheme, "https")
}

// ready answers 200 when the database answers.
func (a *App) ready(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if _, err := a.store.ListQueues(r.Context()); err != nil {
		zerolog.Ctx(r.Context()).Error().Err(err).Msg("readiness check failed")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte("database unavailable\n"))
		return
	}
	_, _ = w.Write([]byte("ready\n"))
}
