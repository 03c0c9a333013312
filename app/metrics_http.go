package app

import (
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mergequeue/mq/handlers/api"
	"github.com/mergequeue/mq/handlers/requestid"
)

// httpMetrics count the requests the process serves, by route: the
// ServeMux pattern that matched (for the REST API, /v1/ and the operation,
// when it is one the API serves), never the raw path.
type httpMetrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	inFlight prometheus.Gauge
	apiOps   map[string]bool
}

// Route labels of requests no pattern matched.
const (
	routeUnmatched  = "unmatched"
	routeUnknownAPI = "/v1/{unknown}"
)

func newHTTPMetrics() *httpMetrics {
	m := &httpMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mq_http_requests_total",
			Help: "HTTP requests served, by route pattern, method and status code.",
		}, []string{"route", "method", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "mq_http_request_duration_seconds",
			Help:    "Time from a request's arrival to the end of its response, by route pattern and method.",
			Buckets: latencyBuckets,
		}, []string{"route", "method"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "mq_http_requests_in_flight",
			Help: "HTTP requests being served.",
		}),
		apiOps: map[string]bool{},
	}
	for _, op := range api.Operations() {
		m.apiOps[op] = true
	}
	return m
}

func (m *httpMetrics) register(r *prometheus.Registry) {
	r.MustRegister(m.requests, m.duration, m.inFlight)
}

// observed wraps mux for serving: every request gets a request id (the
// outermost layer, so that even a refused body's response carries one),
// then inner (the body deadline), then the metrics, innermost so that they
// see the pattern mux matched.
func (a *App) observed(mux *http.ServeMux, inner func(http.Handler) http.Handler) http.Handler {
	return requestid.Middleware(a.log, inner(a.metrics.http.instrument(mux)))
}

// instrument counts and times each request mux serves, labelled by the
// pattern it matched.
func (m *httpMetrics) instrument(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		m.inFlight.Inc()
		sw := &statusWriter{ResponseWriter: w}
		defer func() {
			m.inFlight.Dec()
			route, method := m.route(r), methodLabel(r.Method)
			status := sw.status
			if status == 0 {
				status = http.StatusOK
			}
			if p := recover(); p != nil {
				status = http.StatusInternalServerError
				defer panic(p)
			}
			m.requests.WithLabelValues(route, method, statusLabel(status)).Inc()
			m.duration.WithLabelValues(route, method).Observe(time.Since(start).Seconds())
		}()
		mux.ServeHTTP(sw, r)
	})
}

// route is the request's label: the pattern ServeMux set on r (it sets it
// on the request it was given), refined to the operation under /v1/.
func (m *httpMetrics) route(r *http.Request) string {
	switch r.Pattern {
	case "":
		return routeUnmatched
	case "/v1/":
		op := strings.Trim(strings.TrimPrefix(r.URL.Path, "/v1/"), "/")
		if m.apiOps[op] {
			return "/v1/" + op
		}
		return routeUnknownAPI
	}
	return r.Pattern
}

// statusWriter remembers the status code written.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection (flushes,
// deadlines) through the wrapper.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush passes flushes through (server-sent events on the dashboard).
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}
