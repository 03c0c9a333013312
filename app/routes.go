package app

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/rs/zerolog"
)

// routes mounts every endpoint of SPEC §9, every request body under the
// minimum-rate read deadline (a trickling body is cut: 408 or a closed
// connection).
func (a *App) routes(webhooks, restAPI http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/api/github/hook", webhooks)
	mux.Handle("/v1/", restAPI)
	mux.Handle("GET /metrics", promhttp.HandlerFor(a.metrics.registry, promhttp.HandlerOpts{}))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("GET /readyz", a.ready)
	a.dashboardRoutes(mux)
	return a.observed(mux, a.bodies.Handler)
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
