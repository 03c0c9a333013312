package api

import (
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/mergequeue/mq/handlers/api/apitoken"
	"github.com/mergequeue/mq/queue"
)

// testSHA is a full commit SHA for setImpactedTargets requests.
const testSHA = "0123456789abcdef0123456789abcdef01234567"

func targetsBody(pr, sha, targets string) string {
	return body(`"pr":{"number":`+pr+`,"sha":"`+sha+`"}`, `"impactedTargets":`+targets)
}

func TestSetImpactedTargets(t *testing.T) {
	t.Parallel()
	many := make([]string, 100000)
	for i := range many {
		many[i] = fmt.Sprintf("//services/pkg%05d:test", i)
	}
	manyJSON := `["` + strings.Join(many, `","`) + `"]`
	tests := []struct {
		name string
		body string
		want queue.TargetsUpdate
	}{
		{"list", targetsBody("12", testSHA, `["//a","//b"]`), queue.TargetsUpdate{PRNumber: 12, SHA: testSHA, List: []string{"//a", "//b"}}},
		{"empty list", targetsBody("12", testSHA, `[]`), queue.TargetsUpdate{PRNumber: 12, SHA: testSHA, List: []string{}}},
		{"ALL", targetsBody("12", testSHA, `"ALL"`), queue.TargetsUpdate{PRNumber: 12, SHA: testSHA, All: true}},
		{"IMPACTS_ALL", targetsBody("12", testSHA, `"IMPACTS_ALL"`), queue.TargetsUpdate{PRNumber: 12, SHA: testSHA, All: true}},
		{"all in any case", targetsBody("12", testSHA, `"all"`), queue.TargetsUpdate{PRNumber: 12, SHA: testSHA, All: true}},
		{"number as string", targetsBody(`"12"`, testSHA, `["//a"]`), queue.TargetsUpdate{PRNumber: 12, SHA: testSHA, List: []string{"//a"}}},
		{"upper-case SHA normalised", targetsBody("12", strings.ToUpper(testSHA), `[]`), queue.TargetsUpdate{PRNumber: 12, SHA: testSHA, List: []string{}}},
		{"100k targets", targetsBody("12", testSHA, manyJSON), queue.TargetsUpdate{PRNumber: 12, SHA: testSHA, List: many}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			wantEmptyObject(t, h.post("setImpactedTargets", tt.body))
			var got []queue.TargetsUpdate
			h.svc.recorded(func(m *moreFakes) { got = m.targets })
			if len(got) != 1 {
				t.Fatalf("SetImpactedTargets called %d times", len(got))
			}
			want := tt.want
			// A token request: the service reads the PR; the token is the source.
			want.Key, want.VerifyPR, want.Source = testKey, true, queue.TargetsFromToken
			if !reflect.DeepEqual(got[0], want) {
				t.Errorf("update = %+v, want %+v", got[0].Key, want.Key)
				t.Errorf("update: number %d sha %s all %v list %d; want number %d sha %s all %v list %d",
					got[0].PRNumber, got[0].SHA, got[0].All, len(got[0].List), want.PRNumber, want.SHA, want.All, len(want.List))
			}
		})
	}
}

func TestSetImpactedTargetsErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		body    string
		svcErr  error
		status  int
		want    string
		reaches bool
	}{
		{"unknown queue", targetsBody("12", testSHA, `[]`), fmt.Errorf("load: %w", queue.ErrNotFound), http.StatusNotFound, "no queue", true},
		{"store failure", targetsBody("12", testSHA, `[]`), errors.New("disk full"), http.StatusInternalServerError, "internal error", true},
		{"PR unknown on GitHub", targetsBody("12", testSHA, `[]`), fmt.Errorf("read: %w", queue.ErrPRNotFound), http.StatusNotFound,
			"pull request #12 not found on GitHub in octo/widgets", true},
		{"missing sha", body(`"pr":{"number":12}`, `"impactedTargets":[]`), nil, http.StatusBadRequest, "pr.sha is required", false},
		{"short sha", targetsBody("12", "abc123", `[]`), nil, http.StatusBadRequest, "pr.sha", false},
		{"non-hex sha", targetsBody("12", strings.Repeat("g", 40), `[]`), nil, http.StatusBadRequest, "pr.sha", false},
		{"sha wrong type", body(`"pr":{"number":12,"sha":7}`, `"impactedTargets":[]`), nil, http.StatusBadRequest, "pr.sha", false},
		{"missing number", body(`"pr":{"sha":"`+testSHA+`"}`, `"impactedTargets":[]`), nil, http.StatusBadRequest, "pr.number is required", false},
		{"missing targets", body(`"pr":{"number":12,"sha":"` + testSHA + `"}`), nil, http.StatusBadRequest, "impactedTargets is required", false},
		{"null targets", targetsBody("12", testSHA, `null`), nil, http.StatusBadRequest, "impactedTargets is required", false},
		{"other string", targetsBody("12", testSHA, `"SOME"`), nil, http.StatusBadRequest, `"SOME"`, false},
		{"numbers in the list", targetsBody("12", testSHA, `[1,2]`), nil, http.StatusBadRequest, "array of strings", false},
		{"object", targetsBody("12", testSHA, `{"a":1}`), nil, http.StatusBadRequest, "impactedTargets", false},
		{"malformed JSON", `{"pr":`, nil, http.StatusBadRequest, "malformed JSON", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			h.svc.configureMore(func(m *moreFakes) { m.targetsErr = tt.svcErr })
			wantError(t, h.post("setImpactedTargets", tt.body), tt.status, tt.want)
			var n int
			h.svc.recorded(func(m *moreFakes) { n = len(m.targets) })
			if (n > 0) != tt.reaches {
				t.Errorf("service reached = %v, want %v", n > 0, tt.reaches)
			}
		})
	}
}

// forkedRequest posts setImpactedTargets with headers.
func (h *harness) forkedRequest(b string, headers map[string]string) response {
	h.t.Helper()
	req, err := http.NewRequest(http.MethodPost, h.srv.URL+"/v1/setImpactedTargets", strings.NewReader(b))
	if err != nil {
		h.t.Fatal(err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := h.srv.Client().Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	return response{status: resp.StatusCode, header: resp.Header, body: readAll(h.t, resp)}
}

func TestForkedWorkflowRunAuth(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		headers    map[string]string
		body       string
		confirmErr error
		status     int
		want       string
		confirmed  bool // ConfirmForkedRun was asked
		stored     bool
	}{
		{"confirmed run", map[string]string{ForkedRunHeader: "4242"}, targetsBody(`"12"`, testSHA, `"ALL"`), nil,
			http.StatusOK, "", true, true},
		{"repo outside any token scope is fine", map[string]string{ForkedRunHeader: "4242"},
			`{"repo":{"host":"github.com","owner":"someone","name":"else"},"targetBranch":"main","pr":{"number":12,"sha":"` + testSHA + `"},"impactedTargets":[]}`,
			nil, http.StatusOK, "", true, true},
		{"not confirmed", map[string]string{ForkedRunHeader: "4242"}, targetsBody("12", testSHA, `[]`),
			fmt.Errorf("run completed: %w", queue.ErrRunNotConfirmed), http.StatusUnauthorized, "workflow run 4242", true, false},
		{"GitHub unreachable", map[string]string{ForkedRunHeader: "4242"}, targetsBody("12", testSHA, `[]`),
			fmt.Errorf("502: %w", queue.ErrTransient), http.StatusInternalServerError, "internal error", true, false},
		{"header not a number", map[string]string{ForkedRunHeader: "abc"}, targetsBody("12", testSHA, `[]`), nil,
			http.StatusUnauthorized, ForkedRunHeader, false, false},
		{"header zero", map[string]string{ForkedRunHeader: "0"}, targetsBody("12", testSHA, `[]`), nil,
			http.StatusUnauthorized, ForkedRunHeader, false, false},
		{"bad body is 400 before asking GitHub", map[string]string{ForkedRunHeader: "4242"}, targetsBody("12", "abc", `[]`), nil,
			http.StatusBadRequest, "pr.sha", false, false},
		{"other host is 404 before asking GitHub", map[string]string{ForkedRunHeader: "4242"},
			`{"repo":{"host":"gitlab.com","owner":"o","name":"w"},"targetBranch":"main","pr":{"number":12,"sha":"` + testSHA + `"},"impactedTargets":[]}`,
			nil, http.StatusNotFound, "gitlab.com", false, false},
		{"PR unknown on GitHub is 404", map[string]string{ForkedRunHeader: "4242"}, targetsBody("12", testSHA, `[]`),
			fmt.Errorf("pull request #12: %w: %w", queue.ErrRunNotConfirmed, queue.ErrPRNotFound), http.StatusNotFound,
			"pull request #12 not found on GitHub in octo/widgets", true, false},
		{"hostile owner is 400 before asking GitHub", map[string]string{ForkedRunHeader: "4242"},
			`{"repo":{"host":"github.com","owner":"acme/../evil","name":"w"},"targetBranch":"main","pr":{"number":12,"sha":"` + testSHA + `"},"impactedTargets":[]}`,
			nil, http.StatusBadRequest, "invalid field repo.owner", false, false},
		{"hostile name is 400 before asking GitHub", map[string]string{ForkedRunHeader: "4242"},
			`{"repo":{"host":"github.com","owner":"acme","name":"../../app/installations"},"targetBranch":"main","pr":{"number":12,"sha":"` + testSHA + `"},"impactedTargets":[]}`,
			nil, http.StatusBadRequest, "invalid field repo.name", false, false},
		{"hostile branch is 400 before asking GitHub", map[string]string{ForkedRunHeader: "4242"},
			`{"repo":{"host":"github.com","owner":"acme","name":"w"},"targetBranch":"a..b","pr":{"number":12,"sha":"` + testSHA + `"},"impactedTargets":[]}`,
			nil, http.StatusBadRequest, "invalid field targetBranch", false, false},
		{"bad PR number is 400 before asking GitHub", map[string]string{ForkedRunHeader: "4242"}, targetsBody(`"12/../1"`, testSHA, `[]`), nil,
			http.StatusBadRequest, "pr.number", false, false},
		{"a token wins over the header", map[string]string{ForkedRunHeader: "4242", TokenHeader: secretAll}, targetsBody("12", testSHA, `[]`), nil,
			http.StatusOK, "", false, true},
		{"an invalid token is not rescued by the header", map[string]string{ForkedRunHeader: "4242", TokenHeader: "mq_nope"}, targetsBody("12", testSHA, `[]`), nil,
			http.StatusUnauthorized, apitoken.RefusalMessage, false, false},
		{"neither", nil, targetsBody("12", testSHA, `[]`), nil, http.StatusUnauthorized, "missing API token", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			h.svc.configureMore(func(m *moreFakes) { m.confirmErr = tt.confirmErr })
			r := h.forkedRequest(tt.body, tt.headers)
			if tt.status == http.StatusOK {
				wantEmptyObject(t, r)
			} else {
				wantError(t, r, tt.status, tt.want)
			}
			var confirms []confirmCall
			var stored int
			h.svc.recorded(func(m *moreFakes) { confirms, stored = m.confirms, len(m.targets) })
			if (len(confirms) > 0) != tt.confirmed {
				t.Errorf("confirm asked = %v, want %v", len(confirms) > 0, tt.confirmed)
			}
			if tt.confirmed && (confirms[0].RunID != 4242 || confirms[0].PRNumber != 12 || confirms[0].SHA != testSHA) {
				t.Errorf("confirm call = %+v", confirms[0])
			}
			if (stored > 0) != tt.stored {
				t.Errorf("stored = %v, want %v", stored > 0, tt.stored)
			}
		})
	}
}

func TestForkedRunHeaderOnlyForSetImpactedTargets(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	for op, rt := range New(nil, nil, nil, Options{}).(*API).routes {
		if op == "setImpactedTargets" {
			continue
		}
		req, err := http.NewRequest(rt.method, h.srv.URL+"/v1/"+op, strings.NewReader(targetsBody("12", testSHA, `[]`)))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set(ForkedRunHeader, "4242")
		resp, err := h.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s with only %s: status %d, want 401", op, ForkedRunHeader, resp.StatusCode)
		}
	}
}
