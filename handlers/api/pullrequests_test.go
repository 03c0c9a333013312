package api

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/mergequeue/mq/queue"
)

func TestSubmitPullRequest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		extra    []string
		number   int
		priority string
		noBatch  bool
	}{
		{"number", []string{`"pr":{"number":12}`}, 12, "", false},
		{"numeric string", []string{`"pr":{"number":"12"}`}, 12, "", false},
		{"padded string", []string{`"pr":{"number":" 7 "}`}, 7, "", false},
		{"priority name", []string{`"pr":{"number":1}`, `"priority":"HIGH"`}, 1, "HIGH", false},
		{"priority number", []string{`"pr":{"number":1}`, `"priority":0`}, 1, "0", false},
		{"priority max", []string{`"pr":{"number":1}`, `"priority":255`}, 1, "255", false},
		{"priority numeric string", []string{`"pr":{"number":1}`, `"priority":"010"`}, 1, "10", false},
		{"priority null", []string{`"pr":{"number":1}`, `"priority":null`}, 1, "", false},
		{"noBatch", []string{`"pr":{"number":1}`, `"noBatch":true`}, 1, "", true},
		{"noBatch null", []string{`"pr":{"number":1}`, `"noBatch":null`}, 1, "", false},
		{"unknown fields", []string{`"pr":{"number":3,"sha":"abc"}`, `"foo":1`}, 3, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			wantEmptyObject(t, h.post("submitPullRequest", body(tt.extra...)))
			subs := h.svc.calls().submits
			if len(subs) != 1 {
				t.Fatalf("Submit called %d times", len(subs))
			}
			want := queue.SubmitRequest{Key: testKey, PRNumber: tt.number, Priority: tt.priority, NoBatch: tt.noBatch, Source: "api"}
			if subs[0] != want {
				t.Errorf("request = %+v, want %+v", subs[0], want)
			}
		})
	}
}

func TestSubmitPullRequestErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		body   string
		svcErr error
		status int
		want   string
	}{
		{"missing pr", body(), nil, http.StatusBadRequest, "pr.number is required"},
		{"null number", body(`"pr":{"number":null}`), nil, http.StatusBadRequest, "pr.number is required"},
		{"zero", body(`"pr":{"number":0}`), nil, http.StatusBadRequest, "pr.number"},
		{"negative", body(`"pr":{"number":-4}`), nil, http.StatusBadRequest, "pr.number"},
		{"fraction", body(`"pr":{"number":1.5}`), nil, http.StatusBadRequest, "pr.number"},
		{"exponent", body(`"pr":{"number":1e3}`), nil, http.StatusBadRequest, "pr.number"},
		{"too large", body(`"pr":{"number":99999999999}`), nil, http.StatusBadRequest, "pr.number"},
		{"word string", body(`"pr":{"number":"twelve"}`), nil, http.StatusBadRequest, "pr.number"},
		{"empty string", body(`"pr":{"number":""}`), nil, http.StatusBadRequest, "pr.number"},
		{"hash string", body(`"pr":{"number":"#12"}`), nil, http.StatusBadRequest, "pr.number"},
		{"boolean", body(`"pr":{"number":true}`), nil, http.StatusBadRequest, "pr.number"},
		{"pr not object", body(`"pr":12`), nil, http.StatusBadRequest, "invalid field pr: expected object, got number"},
		{"owner not string", `{"repo":{"host":"github.com","owner":7,"name":"w"},"targetBranch":"main","pr":{"number":1}}`, nil, http.StatusBadRequest, "invalid field repo.owner: expected string"},
		{"priority too high", body(`"pr":{"number":1}`, `"priority":256`), nil, http.StatusBadRequest, "priority"},
		{"priority negative", body(`"pr":{"number":1}`, `"priority":-1`), nil, http.StatusBadRequest, "priority"},
		{"priority fraction", body(`"pr":{"number":1}`, `"priority":1.5`), nil, http.StatusBadRequest, "priority"},
		{"priority string too high", body(`"pr":{"number":1}`, `"priority":"300"`), nil, http.StatusBadRequest, "priority"},
		{"priority boolean", body(`"pr":{"number":1}`, `"priority":true`), nil, http.StatusBadRequest, "priority"},
		{"priority list", body(`"pr":{"number":1}`, `"priority":["high"]`), nil, http.StatusBadRequest, "priority"},
		{"noBatch string", body(`"pr":{"number":1}`, `"noBatch":"yes"`), nil, http.StatusBadRequest, "noBatch"},
		{"unknown priority name", body(`"pr":{"number":1}`, `"priority":"asap"`), queue.Inputf(`priority "asap" is not one of urgent, high, medium, low`), http.StatusBadRequest, `"asap"`},
		{"unknown queue", body(`"pr":{"number":1}`), fmt.Errorf("x: %w", queue.ErrNotFound), http.StatusNotFound, "no queue"},
		{"unknown PR", body(`"pr":{"number":1}`), fmt.Errorf("x: %w", queue.ErrPRNotFound), http.StatusNotFound, "pull request #1 not found"},
		{"service failure", body(`"pr":{"number":1}`), errors.New("timeout"), http.StatusInternalServerError, "internal error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			h.svc.configure(func(f *fakeService) { f.submitErr = tt.svcErr })
			wantError(t, h.post("submitPullRequest", tt.body), tt.status, tt.want)
			reached := len(h.svc.calls().submits) > 0
			if wantReached := tt.svcErr != nil; reached != wantReached {
				t.Errorf("service reached = %v, want %v", reached, wantReached)
			}
		})
	}
}

func TestCancelPullRequest(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	wantEmptyObject(t, h.post("cancelPullRequest", body(`"pr":{"number":"42"}`)))
	cancels := h.svc.calls().cancels
	if len(cancels) != 1 {
		t.Fatalf("Cancel called %d times", len(cancels))
	}
	c := cancels[0]
	if c.Key != testKey || c.PRNumber != 42 || c.Reason != queue.ReasonUserRequested || c.Detail == "" {
		t.Errorf("cancel = %+v", c)
	}
}

func TestCancelPullRequestErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		body   string
		svcErr error
		status int
		want   string
	}{
		{"not active", body(`"pr":{"number":5}`), fmt.Errorf("cancel: %w", queue.ErrNotActive), http.StatusNotFound, "#5 is not active"},
		{"unknown queue", body(`"pr":{"number":5}`), queue.ErrNotFound, http.StatusNotFound, "no queue"},
		{"missing number", body(`"pr":{}`), nil, http.StatusBadRequest, "pr.number is required"},
		{"bad number", body(`"pr":{"number":"5a"}`), nil, http.StatusBadRequest, "pr.number"},
		{"service failure", body(`"pr":{"number":5}`), errors.New("locked"), http.StatusInternalServerError, "internal error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			h.svc.configure(func(f *fakeService) { f.cancelErr = tt.svcErr })
			wantError(t, h.post("cancelPullRequest", tt.body), tt.status, tt.want)
		})
	}
}
