package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"
)

// request performs one request of a load figure on client and returns an
// error unless it was answered as expected. worker identifies the client
// (0 ≤ worker < clients) and seq counts its requests, so that a figure can
// vary what it asks for.
type request func(ctx context.Context, client *http.Client, worker, seq int) error

// sample is what one client-count × duration measurement gave.
type sample struct {
	Requests  int           // answered as expected within the measured window
	Errors    int           // answered otherwise, or not at all
	Elapsed   time.Duration // the measured window
	Latencies []time.Duration
	FirstErr  error
}

// PerSecond is the rate of requests answered as expected.
func (s sample) PerSecond() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.Requests) / s.Elapsed.Seconds()
}

// Percentile returns the p-th percentile (0 < p ≤ 100) of the recorded
// latencies, nearest rank; 0 when none was recorded.
func (s sample) Percentile(p float64) time.Duration {
	return percentile(s.Latencies, p)
}

// percentile is the nearest-rank p-th percentile of sorted (ascending).
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(p/100*float64(len(sorted))+0.999999) - 1
	return sorted[min(max(rank, 0), len(sorted)-1)]
}

// newClient is an HTTP client whose transport keeps one connection per
// worker alive (clients ≤ maxIdle), with no proxy and no compression, so
// that the load is what a keep-alive client of the service sends.
func newClient(clients int) *http.Client {
	return &http.Client{
		Timeout: 30 * time.Second,
		Transport: &http.Transport{
			Proxy:               nil,
			DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			MaxIdleConns:        clients * 2,
			MaxIdleConnsPerHost: clients * 2,
			MaxConnsPerHost:     clients * 2,
			IdleConnTimeout:     time.Minute,
			DisableCompression:  true,
		},
	}
}

// generate runs clients workers, each sending req back to back on a
// keep-alive connection of its own (client keeps them between calls), for
// warmup (not recorded) and then for d, and returns every latency of the
// measured window, sorted. A request that started in the window counts in
// it.
func generate(ctx context.Context, client *http.Client, clients int, warmup, d time.Duration, req request) sample {
	type result struct {
		lat      []time.Duration
		errs     int
		firstErr error
	}
	results := make([]result, clients)
	start := time.Now()
	measureFrom := start.Add(warmup)
	end := measureFrom.Add(d)
	var wg sync.WaitGroup
	for w := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := &results[w]
			res.lat = make([]time.Duration, 0, 4096)
			for seq := 0; ctx.Err() == nil; seq++ {
				t0 := time.Now()
				if !t0.Before(end) {
					return
				}
				err := req(ctx, client, w, seq)
				if t0.Before(measureFrom) {
					continue
				}
				if err != nil {
					res.errs++
					if res.firstErr == nil {
						res.firstErr = err
					}
					continue
				}
				res.lat = append(res.lat, time.Since(t0))
			}
		}()
	}
	wg.Wait()
	s := sample{Elapsed: d}
	if last := time.Since(measureFrom); last > d {
		// The requests in flight at the end were counted: so was their time.
		s.Elapsed = last
	}
	for _, r := range results {
		s.Latencies = append(s.Latencies, r.lat...)
		s.Errors += r.errs
		if s.FirstErr == nil {
			s.FirstErr = r.firstErr
		}
	}
	s.Requests = len(s.Latencies)
	slices.Sort(s.Latencies)
	return s
}

// add merges o into s: counts, windows and latencies (kept sorted).
func (s *sample) add(o sample) {
	s.Requests += o.Requests
	s.Errors += o.Errors
	s.Elapsed += o.Elapsed
	if s.FirstErr == nil {
		s.FirstErr = o.FirstErr
	}
	s.Latencies = append(s.Latencies, o.Latencies...)
	slices.Sort(s.Latencies)
}

// drain reads and closes a response body, so that its connection is
// reused.
func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
}

// expect checks a response's status and drains it.
// roundTrip sends req (to the load command's own loopback servers) and
// checks its answer's status; the body is drained and closed.
func roundTrip(c *http.Client, req *http.Request, want int) error {
	resp, err := c.Do(req) //nolint:gosec // G704: the URL is the load command's own server on loopback
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return expect(resp, want)
}

func expect(resp *http.Response, want int) error {
	defer drain(resp)
	if resp.StatusCode != want {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("%s %s: status %d, want %d: %s", resp.Request.Method, resp.Request.URL.Path, resp.StatusCode, want, body)
	}
	return nil
}
