package app

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mergequeue/mq/queue"
)

// autoTuneBuckets are the buckets, in seconds, of autoTune's choices: 10 ms
// to its default budget of 2 minutes and past it.
var autoTuneBuckets = []float64{0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300}

// autoTuneMetrics measure autoTune's choices (queue/service's tuner).
type autoTuneMetrics struct {
	choices *prometheus.HistogramVec
}

func newAutoTuneMetrics() *autoTuneMetrics {
	return &autoTuneMetrics{choices: prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "mq_autotune_choice_seconds",
		Help: "How long autoTune's choices of a queue's settings took, by outcome: chosen (finished, at its budget " +
			"at the latest with the best candidate so far, whether or not it changed anything) or abandoned (still " +
			"running at twice its budget; the tuning in force was kept).",
		Buckets: autoTuneBuckets,
	}, []string{"outcome"})}
}

func (m *autoTuneMetrics) register(r *prometheus.Registry) { r.MustRegister(m.choices) }

// choice records one choice (service.TuneOptions.OnChoice).
func (m *autoTuneMetrics) choice(_ queue.QueueKey, took time.Duration, abandoned bool) {
	outcome := "chosen"
	if abandoned {
		outcome = "abandoned"
	}
	m.choices.WithLabelValues(outcome).Observe(took.Seconds())
}
