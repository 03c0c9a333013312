package fakegithub

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// activeFault is an injected fault and how many more requests it hits.
type activeFault struct {
	Fault
	left int // < 0: forever
}

// InjectFault makes the next f.Times requests matching f.Method and
// f.PathContains answer f.Status (after authentication; the call is still
// counted). Faults are consumed in injection order.
func (s *Server) InjectFault(f Fault) {
	left := f.Times
	if left == 0 {
		left = 1
	}
	s.mu.Lock()
	s.faults = append(s.faults, &activeFault{Fault: f, left: left})
	s.mu.Unlock()
}

// ClearFaults removes every pending fault.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	s.faults = nil
	s.mu.Unlock()
}

// takeFault consumes one hit of the first fault matching the request.
func (s *Server) takeFault(method, path string) *Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, f := range s.faults {
		if f.Method != "" && !strings.EqualFold(f.Method, method) {
			continue
		}
		if f.PathContains != "" && !strings.Contains(path, f.PathContains) {
			continue
		}
		if f.left > 0 {
			f.left--
			if f.left == 0 {
				s.faults = append(s.faults[:i:i], s.faults[i+1:]...)
			}
		}
		out := f.Fault
		return &out
	}
	return nil
}

// writeFault answers an injected fault in GitHub's shape for its status.
func (s *Server) writeFault(w http.ResponseWriter, f *Fault, rt *route) {
	h := w.Header()
	msg := f.Message
	body := map[string]string{"documentation_url": docsURL}
	switch {
	case f.Status == http.StatusTooManyRequests || f.Status == http.StatusForbidden && f.RetryAfter > 0:
		if msg == "" {
			msg = "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."
		}
		body["documentation_url"] = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"
		if f.RetryAfter > 0 {
			h.Set("Retry-After", strconv.Itoa(f.RetryAfter))
		}
	case f.Status == http.StatusForbidden:
		if msg == "" {
			msg = "API rate limit exceeded for installation ID " + strconv.FormatInt(s.installationID, 10) + "."
		}
		body["documentation_url"] = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-primary-rate-limits"
		h.Set("X-RateLimit-Limit", "5000")
		h.Set("X-RateLimit-Remaining", "0")
		h.Set("X-RateLimit-Used", "5000")
		h.Set("X-RateLimit-Reset", strconv.FormatInt(time.Now().Add(time.Second).Unix(), 10))
		h.Set("X-RateLimit-Resource", "core")
	default:
		if f.RetryAfter > 0 {
			h.Set("Retry-After", strconv.Itoa(f.RetryAfter))
		}
	}
	if msg == "" {
		msg = defaultFaultMessage(f.Status, rt)
	}
	body["message"] = msg
	writeJSON(w, f.Status, body)
}

// defaultFaultMessage is GitHub's usual message for an injected status.
func defaultFaultMessage(status int, rt *route) string {
	switch {
	case status == http.StatusMethodNotAllowed && strings.HasSuffix(rt.pattern, "/merge"):
		return "Base branch was modified. Review and try the merge again."
	case status == http.StatusConflict && strings.HasSuffix(rt.pattern, "/merge"):
		return "Head branch was modified. Review and try the merge again."
	case status == http.StatusConflict:
		return "Merge conflict"
	case status == http.StatusUnprocessableEntity:
		return "Validation Failed"
	case status == http.StatusNotFound:
		return "Not Found"
	case status >= 500:
		return "Server Error"
	default:
		return http.StatusText(status)
	}
}
