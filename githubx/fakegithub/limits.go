package fakegithub

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// SecondaryLimits make the fake enforce GitHub's secondary rate limits
// (docs: "Rate limits for the REST API") on each installation's requests
// (those made with an installation token), scaled as a test wants: a zero
// count is no limit, and the windows are as long as Minute and Hour. A
// request over a limit is refused as GitHub refuses it, applying nothing:
// 403 (or 429, see TooManyRequestsEvery) with GitHub's secondary-limit
// message and documentation_url, and a retry-after header. The refusal
// opens a window of RetryAfter in which every request of the installation
// is refused again and recorded as having arrived inside it
// (Server.LimitReport).
type SecondaryLimits struct {
	// Concurrent bounds the requests being served at once.
	Concurrent int
	// PointsPerMinute bounds the points of the requests accepted in any
	// Minute: GET, HEAD and OPTIONS cost 1, other methods 5.
	PointsPerMinute int
	// WritesPerMinute and WritesPerHour bound the content-generating
	// requests (POST, PATCH, PUT, DELETE) accepted in any Minute and Hour.
	WritesPerMinute int
	WritesPerHour   int
	// Minute and Hour are the window lengths (default 1m and 1h).
	Minute, Hour time.Duration
	// RetryAfter is the wait a refusal announces, rounded up to whole
	// seconds (default 60s). Negative: the header is left out, as GitHub
	// sometimes does; the window is then one Minute (a client must wait at
	// least a minute).
	RetryAfter time.Duration
	// TooManyRequestsEvery makes every n-th refusal a 429 instead of a 403
	// (0: always 403).
	TooManyRequestsEvery int
	// UndisclosedEvery refuses every n-th write the counts allow, as GitHub
	// may "for undisclosed reasons" (0: never); its window's Limit is
	// "undisclosed".
	UndisclosedEvery int
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// LimitWindow is one window a refusal announced: no request of the
// installation may arrive from Start until End.
type LimitWindow struct {
	Start, End time.Time
	// Status is the refusal's (403 or 429); RetryAfter what its header
	// said (0: no header).
	Status     int
	RetryAfter time.Duration
	// Limit is what was exceeded: "concurrent", "points_per_minute",
	// "writes_per_minute", "writes_per_hour", or "undisclosed".
	Limit string
}

// LimitedRequest is a request refused because it arrived inside a window.
type LimitedRequest struct {
	Route string // "METHOD /pattern", as Calls counts it
	At    time.Time
}

// LimitReport is what an installation's limits did.
type LimitReport struct {
	// Accepted and AcceptedWrites count the requests served;
	// Refusals those refused (inside a window or opening one).
	Accepted, AcceptedWrites, Refusals int
	// Windows are the windows announced, in order.
	Windows []LimitWindow
	// Inside are the requests that arrived inside an announced window.
	Inside []LimitedRequest
}

// secondaryDocs is the documentation_url of GitHub's secondary-limit
// refusals.
const secondaryDocs = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"

// limiter is one installation's secondary limits.
type limiter struct {
	lim SecondaryLimits

	mu       sync.Mutex
	inflight int
	accepted []limitArrival // within the longest window
	open     LimitWindow    // the last window announced (zero: none)
	allowed  int            // writes the counts allowed (UndisclosedEvery)
	report   LimitReport
}

type limitArrival struct {
	at     time.Time
	points int
	write  bool
}

func newLimiter(l SecondaryLimits) *limiter {
	if l.Minute <= 0 {
		l.Minute = time.Minute
	}
	if l.Hour <= 0 {
		l.Hour = time.Hour
	}
	if l.RetryAfter == 0 {
		l.RetryAfter = time.Minute
	}
	if l.Now == nil {
		l.Now = time.Now
	}
	return &limiter{lim: l}
}

// refusal is how a refused request is answered.
type refusal struct {
	status     int
	retryAfter time.Duration // 0: no header
}

// admit decides on a request of method to route arriving now: nil when it
// is served (call done once it is), else how to refuse it.
func (l *limiter) admit(method, route string) (*refusal, func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.lim.Now()
	if w := l.open; now.Before(w.End) {
		l.report.Inside = append(l.report.Inside, LimitedRequest{Route: route, At: now})
		return l.refuseLocked(w.Status, secondsUntil(now, w.End), w.RetryAfter == 0), nil
	}
	write := method != http.MethodGet && method != http.MethodHead && method != http.MethodOptions
	points := 1
	if write {
		points = 5
	}
	exceeded := l.exceededLocked(now, points, write)
	if exceeded == "" && write && l.lim.UndisclosedEvery > 0 {
		if l.allowed++; l.allowed%l.lim.UndisclosedEvery == 0 {
			exceeded = "undisclosed"
		}
	}
	if exceeded == "" {
		l.inflight++
		l.accepted = append(l.accepted, limitArrival{at: now, points: points, write: write})
		l.report.Accepted++
		if write {
			l.report.AcceptedWrites++
		}
		return nil, l.done
	}
	status := http.StatusForbidden
	if n := l.lim.TooManyRequestsEvery; n > 0 && (l.report.Refusals+1)%n == 0 {
		status = http.StatusTooManyRequests
	}
	w := LimitWindow{Start: now, Status: status, Limit: exceeded}
	if l.lim.RetryAfter > 0 {
		w.RetryAfter = time.Duration(math.Ceil(l.lim.RetryAfter.Seconds())) * time.Second
		w.End = now.Add(w.RetryAfter)
	} else {
		w.End = now.Add(l.lim.Minute)
	}
	l.report.Windows = append(l.report.Windows, w)
	l.open = w
	return l.refuseLocked(status, w.RetryAfter, w.RetryAfter == 0), nil
}

func (l *limiter) refuseLocked(status int, retryAfter time.Duration, noHeader bool) *refusal {
	l.report.Refusals++
	if noHeader {
		retryAfter = 0
	}
	return &refusal{status: status, retryAfter: retryAfter}
}

func (l *limiter) done() {
	l.mu.Lock()
	l.inflight--
	l.mu.Unlock()
}

// exceededLocked names the limit a request of points (a write or not)
// arriving at now would exceed ("" if none), forgetting arrivals no window
// counts any more.
func (l *limiter) exceededLocked(now time.Time, points int, write bool) string {
	longest := max(l.lim.Minute, l.lim.Hour)
	kept := l.accepted[:0]
	var pts, wMinute, wHour int
	for _, a := range l.accepted {
		age := now.Sub(a.at)
		if age >= longest {
			continue
		}
		kept = append(kept, a)
		if age < l.lim.Minute {
			pts += a.points
			if a.write {
				wMinute++
			}
		}
		if a.write && age < l.lim.Hour {
			wHour++
		}
	}
	l.accepted = kept
	switch {
	case l.lim.Concurrent > 0 && l.inflight >= l.lim.Concurrent:
		return "concurrent"
	case l.lim.PointsPerMinute > 0 && pts+points > l.lim.PointsPerMinute:
		return "points_per_minute"
	case write && l.lim.WritesPerMinute > 0 && wMinute >= l.lim.WritesPerMinute:
		return "writes_per_minute"
	case write && l.lim.WritesPerHour > 0 && wHour >= l.lim.WritesPerHour:
		return "writes_per_hour"
	}
	return ""
}

// secondsUntil is the whole seconds, rounded up, from now to end (at
// least 1).
func secondsUntil(now, end time.Time) time.Duration {
	return time.Duration(max(math.Ceil(end.Sub(now).Seconds()), 1)) * time.Second
}

func (l *limiter) snapshot() LimitReport {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.report
	r.Windows = append([]LimitWindow(nil), r.Windows...)
	r.Inside = append([]LimitedRequest(nil), r.Inside...)
	return r
}

// writeRefusal answers a refused request in GitHub's shape.
func writeRefusal(w http.ResponseWriter, rf *refusal) {
	if rf.retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(rf.retryAfter/time.Second)))
	}
	writeJSON(w, rf.status, map[string]string{
		"message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. " +
			"If you reach out to GitHub Support for help, please include the request ID " + strings.ToUpper(strconv.FormatInt(time.Now().UnixNano(), 16)) + ".",
		"documentation_url": secondaryDocs,
	})
}

// SetSecondaryLimits makes the fake enforce l on every installation from
// now on (nil: none), starting with empty windows.
func (s *Server) SetSecondaryLimits(l *SecondaryLimits) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limits = nil
	if l != nil {
		s.limits = newLimiter(*l)
	}
}

// LimitReport is what the secondary limits did to installation id's
// requests (empty when none are enforced or id is not an installation).
func (s *Server) LimitReport(id int64) LimitReport {
	s.mu.Lock()
	l := s.limits
	s.mu.Unlock()
	if l == nil || id != s.installationID {
		return LimitReport{}
	}
	return l.snapshot()
}

// limiterFor returns the limiter of the installation r's credentials act
// for (nil: no limits, or not an installation token).
func (s *Server) limiterFor(r *http.Request) *limiter {
	scheme, cred, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	scheme = strings.ToLower(scheme)
	if scheme != "token" && scheme != "bearer" {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.tokens[strings.TrimSpace(cred)]; !ok {
		return nil
	}
	return s.limits
}
