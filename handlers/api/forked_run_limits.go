package api

import (
	"fmt"
	"math"
	"net/http"
	"net/netip"
	"strconv"
	"time"

	"github.com/mergequeue/mq/queue"
)

// ForkRunLimits bound the work a request authenticated by ForkedRunHeader
// alone (no token: anyone can send one) may cause. Zero fields take the
// defaults (DefaultForkRunLimits).
type ForkRunLimits struct {
	// PerAddress is each remote address's token bucket (an IPv6 address
	// counts by its /64): every such request takes a token before its body
	// is read, or is answered 429 with Retry-After. Behind a reverse proxy
	// every request has the proxy's address, and the bucket is shared.
	PerAddress Rate
	// PerRepository is each repository's token bucket, taken once the
	// queue is known to exist and only when GitHub must be asked (a
	// confirmation costs two GitHub calls); 429 with Retry-After past it.
	PerRepository Rate
	// InFlight is how many such requests may be read and served at once;
	// past it 429 (Retry-After: 1). It bounds the memory unauthenticated
	// bodies (up to MaxBodyBytes each) may hold.
	InFlight int
	// Confirmed and Refused are how long GitHub's answer about a (run id,
	// repository, PR, SHA) is reused without asking again: a confirmed run
	// is accepted that long, even if it finished or the PR's head moved
	// meanwhile; a refusal is repeated that long.
	Confirmed, Refused time.Duration
	// MaxKeys caps the addresses, repositories and answers kept (each).
	MaxKeys int
}

// DefaultForkRunLimits are the limits used for zero fields: 120 requests
// per address, then one a second; 20 GitHub confirmations per repository,
// then one every 12 s (two GitHub calls each: at most 640 calls in the
// first hour, 600 an hour after, of an installation's 5000); 8 requests at
// once; a confirmation kept 1 min, a refusal 30 s; 10000 keys.
var DefaultForkRunLimits = ForkRunLimits{
	PerAddress:    Rate{Burst: 120, Every: time.Second},
	PerRepository: Rate{Burst: 20, Every: 12 * time.Second},
	InFlight:      8,
	Confirmed:     time.Minute,
	Refused:       30 * time.Second,
	MaxKeys:       10000,
}

func (l ForkRunLimits) withDefaults() ForkRunLimits {
	d := DefaultForkRunLimits
	if l.PerAddress.Burst <= 0 || l.PerAddress.Every <= 0 {
		l.PerAddress = d.PerAddress
	}
	if l.PerRepository.Burst <= 0 || l.PerRepository.Every <= 0 {
		l.PerRepository = d.PerRepository
	}
	if l.InFlight <= 0 {
		l.InFlight = d.InFlight
	}
	if l.Confirmed <= 0 {
		l.Confirmed = d.Confirmed
	}
	if l.Refused <= 0 {
		l.Refused = d.Refused
	}
	if l.MaxKeys <= 0 {
		l.MaxKeys = d.MaxKeys
	}
	return l
}

// forkGuard applies ForkRunLimits.
type forkGuard struct {
	inFlight chan struct{}
	perAddr  *tokenBuckets
	perRepo  *tokenBuckets
	verdicts *runVerdicts
}

func newForkGuard(l ForkRunLimits) *forkGuard {
	l = l.withDefaults()
	return &forkGuard{
		inFlight: make(chan struct{}, l.InFlight),
		perAddr:  newTokenBuckets(l.PerAddress, l.MaxKeys),
		perRepo:  newTokenBuckets(l.PerRepository, l.MaxKeys),
		verdicts: newRunVerdicts(l.Confirmed, l.Refused, l.MaxKeys),
	}
}

// admit lets a request without a token in before its body is read: a slot
// among those in flight and a token of its address's bucket, else a 429.
// release gives the slot back once the request is answered.
func (g *forkGuard) admit(r *http.Request, now time.Time) (release func(), err error) {
	select {
	case g.inFlight <- struct{}{}:
	default:
		return nil, tooManyRequests(time.Second, "too many requests authenticated by "+ForkedRunHeader+" at once")
	}
	release = func() { <-g.inFlight }
	if ok, wait := g.perAddr.take(addressKey(r.RemoteAddr), now); !ok {
		release()
		return nil, tooManyRequests(wait, "too many requests authenticated by "+ForkedRunHeader+" from this address")
	}
	return release, nil
}

// askGitHub takes a token of repo's bucket before GitHub is asked to
// confirm a run for it; a 429 without one.
func (g *forkGuard) askGitHub(repo queue.Repo, now time.Time) error {
	if ok, wait := g.perRepo.take(repo.Fold().String(), now); !ok {
		return tooManyRequests(wait, fmt.Sprintf("too many workflow runs to confirm with GitHub for %s", repo.FullName()))
	}
	return nil
}

// addressKey is the rate-limit key of a remote address "ip:port": the IP,
// or its /64 for IPv6 (one host often holds a whole /64); the raw value if
// it does not parse.
func addressKey(remote string) string {
	ap, err := netip.ParseAddrPort(remote)
	if err != nil {
		return remote
	}
	ip := ap.Addr().Unmap()
	if ip.Is6() {
		if p, err := ip.Prefix(64); err == nil {
			return p.String()
		}
	}
	return ip.String()
}

// tooManyRequests is a 429 whose Retry-After is wait, in whole seconds
// (at least 1).
func tooManyRequests(wait time.Duration, msg string) error {
	secs := int(math.Ceil(wait.Seconds()))
	if secs < 1 {
		secs = 1
	}
	return &apiError{Status: http.StatusTooManyRequests, RetryAfter: secs,
		Msg: msg + "; retry after " + strconv.Itoa(secs) + " s"}
}
