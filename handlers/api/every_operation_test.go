package api

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"

	"github.com/mergequeue/mq/handlers/api/apitoken"
)

// operations lists the routes, sorted.
func operations() []string {
	var ops []string
	for op := range New(nil, nil, nil, Options{}).(*API).routes {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	return ops
}

func TestTwelveOperations(t *testing.T) {
	t.Parallel()
	want := "cancelPullRequest createQueue deleteQueue getMergeQueueMetrics getMergeQueueTestingDetails getQueue " +
		"getSubmittedPullRequest listPullRequests restartTestsOnPullRequest setImpactedTargets submitPullRequest updateQueue"
	if got := strings.Join(operations(), " "); got != want {
		t.Errorf("operations = %s\nwant %s", got, want)
	}
}

// zeros is an endless body.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}

func TestEveryOperationRejectsBadRequests(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	for _, op := range operations() {
		method := New(nil, nil, nil, Options{}).(*API).routes[op].method
		t.Run(op, func(t *testing.T) {
			for _, tok := range []struct {
				secret, want string
			}{{"", "missing API token"}, {"mq_unknown", apitoken.RefusalMessage}, {secretExpired, apitoken.RefusalMessage},
				{secretRevoked, apitoken.RefusalMessage}} {
				wantError(t, h.do(method, "/v1/"+op, tok.secret, strings.NewReader(body())), http.StatusUnauthorized, tok.want)
			}
			if method != http.MethodPost {
				return
			}
			for _, bad := range []string{`{"repo":`, `[]`, `"x"`, ``, `{"repo":{"host":1,"owner":"o","name":"w"},"targetBranch":"main"}`} {
				wantError(t, h.post(op, bad), http.StatusBadRequest)
			}
			// Oversize: refused from Content-Length, the body is never read.
			rec := httptest.NewRecorder()
			req := httptest.NewRequest(method, "/v1/"+op, io.LimitReader(zeros{}, MaxBodyBytes+1))
			req.ContentLength = MaxBodyBytes + 1
			req.Header.Set(TokenHeader, secretAll)
			New(h.svc, h.svc, h.tokens, Options{Now: h.nowFunc()}).ServeHTTP(rec, req)
			if rec.Code != http.StatusRequestEntityTooLarge {
				t.Errorf("oversize body: %d, want 413", rec.Code)
			}
		})
	}
}
