package inbox_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mergequeue/mq/handlers/inbox"
	"github.com/mergequeue/mq/queue/sqlite/sqlitetest"
)

// benchSecret signs the benchmark's deliveries. The benchmark is an external
// test: it stores into queue/sqlite, which imports this package.
const benchSecret = "s3cret"

// BenchmarkWebhookIngestLoopback measures deliveries acknowledged per
// second over loopback HTTP, each verified and durably stored in SQLite
// before its 2xx (SPEC §10), with 4 concurrent senders per CPU and a 6 KB
// body (the size of a typical status event).
func BenchmarkWebhookIngestLoopback(b *testing.B) {
	store := sqlitetest.Open(b)
	r, err := inbox.NewReceiver(benchSecret, store, func() {})
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(r)
	defer srv.Close()
	client := srv.Client()
	client.Transport.(*http.Transport).MaxIdleConnsPerHost = 64
	body := []byte(`{"state":"success","context":"ci/test","description":"` + strings.Repeat("x", 6000) + `"}`)
	sig := inbox.Sign([]byte(benchSecret), body)
	var seq atomic.Int64
	b.SetParallelism(4)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req, _ := http.NewRequest(http.MethodPost, srv.URL+"/api/github/hook", bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set(inbox.HeaderEvent, "status")
			req.Header.Set(inbox.HeaderDelivery, fmt.Sprintf("bench-%d", seq.Add(1)))
			req.Header.Set(inbox.HeaderSignature, sig)
			resp, err := client.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				b.Errorf("status %d", resp.StatusCode)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "deliveries/s")
}
