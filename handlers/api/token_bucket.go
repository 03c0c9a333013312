package api

import (
	"sync"
	"time"
)

// Rate is a token bucket: Burst tokens at most, one more every Every.
type Rate struct {
	Burst int
	Every time.Duration
}

// tokenBuckets holds one token bucket per key, all with the same Rate. A
// key whose bucket has refilled is forgotten when room is needed, so at
// most max keys are kept: past that, with every kept bucket partly used,
// a new key waits like an empty bucket. Safe for concurrent use.
type tokenBuckets struct {
	rate Rate
	max  int

	mu      sync.Mutex
	buckets map[string]*bucket
}

// bucket is a key's tokens as of at.
type bucket struct {
	tokens float64
	at     time.Time
}

func newTokenBuckets(rate Rate, max int) *tokenBuckets {
	return &tokenBuckets{rate: rate, max: max, buckets: map[string]*bucket{}}
}

// take removes a token from key's bucket at now. Without one it takes
// nothing and reports how long until a token is there.
func (tb *tokenBuckets) take(key string, now time.Time) (bool, time.Duration) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	b, ok := tb.buckets[key]
	if !ok {
		if len(tb.buckets) >= tb.max {
			tb.forgetFull(now)
		}
		if len(tb.buckets) >= tb.max {
			return false, tb.rate.Every
		}
		b = &bucket{tokens: float64(tb.rate.Burst), at: now}
		tb.buckets[key] = b
	}
	tb.refill(b, now)
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	return false, time.Duration((1 - b.tokens) * float64(tb.rate.Every))
}

// refill adds the tokens earned since b.at (a clock that went back earns
// nothing).
func (tb *tokenBuckets) refill(b *bucket, now time.Time) {
	if elapsed := now.Sub(b.at); elapsed > 0 {
		b.tokens += float64(elapsed) / float64(tb.rate.Every)
		b.at = now
	}
	if burst := float64(tb.rate.Burst); b.tokens > burst {
		b.tokens = burst
	}
}

// forgetFull drops the buckets that are full at now: a new bucket for
// their key would be the same. Caller holds tb.mu.
func (tb *tokenBuckets) forgetFull(now time.Time) {
	for k, b := range tb.buckets {
		tb.refill(b, now)
		if b.tokens >= float64(tb.rate.Burst) {
			delete(tb.buckets, k)
		}
	}
}
