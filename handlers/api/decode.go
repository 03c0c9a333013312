package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"

	"github.com/mergequeue/mq/handlers/bodydeadline"
	"github.com/mergequeue/mq/queue"
)

// readJSON reads the request body, never more than MaxBodyBytes (a larger
// body is an *http.MaxBytesError: 413), and decodes it into dst with
// decodeJSON. A body cut by the server's minimum-rate read deadline
// (package bodydeadline) is a 408. The Content-Type header is not enforced:
// clients that omit it still send JSON.
func readJSON(w http.ResponseWriter, r *http.Request, dst any) error {
	if r.ContentLength > MaxBodyBytes {
		return &http.MaxBytesError{Limit: MaxBodyBytes}
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		var tooSlow *bodydeadline.TooSlowError
		switch {
		case errors.As(err, &tooBig):
			return tooBig
		case errors.As(err, &tooSlow):
			return &apiError{Status: http.StatusRequestTimeout, Msg: tooSlow.Error()}
		}
		return badRequestf("failed to read request body: %v", err)
	}
	return decodeJSON(body, dst)
}

// decodeJSON decodes one JSON object into dst, ignoring unknown fields. Every
// failure is a 400 *apiError naming the offending field where there is one.
func decodeJSON(body []byte, dst any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return badRequestf("malformed JSON: empty request body")
	}
	err := json.Unmarshal(body, dst)
	if err == nil {
		return nil
	}
	var ae *apiError
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.As(err, &syntax):
		return badRequestf("malformed JSON at byte %d: %v", syntax.Offset, syntax)
	case errors.As(err, &typ):
		if typ.Field == "" {
			return badRequestf("request body must be a JSON object, got %s", typ.Value)
		}
		return badRequestf("invalid field %s: expected %s, got %s", jsonPath(typ.Field, reflect.TypeOf(dst)),
			jsonKind(typ.Type.Kind().String()), typ.Value)
	}
	return badRequestf("malformed JSON: %v", err)
}

// jsonPath removes from an encoding/json field path the Go names of the
// embedded structs it passes through ("prRequest.queueRequest.repo.owner"
// becomes "repo.owner"), leaving the path the client wrote.
func jsonPath(field string, t reflect.Type) string {
	embedded := map[string]bool{}
	collectEmbedded(t, embedded, 0)
	parts := strings.Split(field, ".")
	kept := parts[:0]
	for _, p := range parts {
		if !embedded[p] {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, ".")
}

// collectEmbedded records the names of anonymous struct fields reachable
// from t.
func collectEmbedded(t reflect.Type, names map[string]bool, depth int) {
	for t != nil && (t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct || depth > 8 {
		return
	}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous && f.Tag.Get("json") == "" {
			names[f.Name] = true
		}
		collectEmbedded(f.Type, names, depth+1)
	}
}

// jsonKind names a Go kind the way a JSON client thinks of it.
func jsonKind(kind string) string {
	switch {
	case strings.HasPrefix(kind, "int"), strings.HasPrefix(kind, "uint"):
		return "integer"
	case kind == "float32", kind == "float64":
		return "number"
	case kind == "struct", kind == "map":
		return "object"
	case kind == "slice", kind == "array":
		return "array"
	case kind == "bool":
		return "boolean"
	}
	return kind
}

// repoField is the seed §2.1 repository identifier.
type repoField struct {
	Host  string `json:"host"`
	Owner string `json:"owner"`
	Name  string `json:"name"`
}

// queueRequest holds the fields every queue operation takes (seed §2.2).
type queueRequest struct {
	Repo         repoField `json:"repo"`
	TargetBranch string    `json:"targetBranch"`
}

// validate reports the first missing field (an empty string is missing),
// then the first field that breaks the naming rules of
// queue.QueueKey.Validate (host, owner, name, branch), as a 400 naming the
// field and the rule. Every operation validates before it reads the store
// or calls GitHub, so a hostile name ("..", "acme/../evil", a NUL, a bidi
// override) never reaches either.
func (q *queueRequest) validate() error {
	for _, f := range []struct{ name, value string }{
		{"repo.host", q.Repo.Host},
		{"repo.owner", q.Repo.Owner},
		{"repo.name", q.Repo.Name},
		{"targetBranch", q.TargetBranch},
	} {
		if f.value == "" {
			return badRequestf("%s is required", f.name)
		}
	}
	key := queue.QueueKey{Repo: queue.Repo{Host: q.Repo.Host, Owner: q.Repo.Owner, Name: q.Repo.Name}, Branch: q.TargetBranch}
	if err := key.Validate(); err != nil {
		return badRequestf("%v", err)
	}
	return nil
}

// queueKey turns a validated request into a queue key on the served host:
// another host is 404, a repository outside the token's scope 403. The key
// carries the configured spelling of the host; owner, name and branch are
// passed through as sent, once validate accepted them.
func (a *API) queueKey(ctx context.Context, q queueRequest) (queue.QueueKey, error) {
	key, err := a.resolveKey(q)
	if err != nil {
		return key, err
	}
	if err := authorize(ctx, key.Repo); err != nil {
		return queue.QueueKey{}, err
	}
	return key, nil
}

// resolveKey is queueKey without the token scope check, for requests
// authenticated otherwise (x-forked-workflow-run-id).
func (a *API) resolveKey(q queueRequest) (queue.QueueKey, error) {
	if err := q.validate(); err != nil {
		return queue.QueueKey{}, err
	}
	if !strings.EqualFold(q.Repo.Host, a.host) {
		return queue.QueueKey{}, notFoundf("unknown repository host %q: this service serves %s", truncate(q.Repo.Host), a.host)
	}
	repo := queue.Repo{Host: a.host, Owner: q.Repo.Owner, Name: q.Repo.Name}
	return queue.QueueKey{Repo: repo, Branch: q.TargetBranch}, nil
}

// prField is the request's "pr" object.
type prField struct {
	Number prNumber `json:"number"`
}

// prRequest holds the fields of the PR operations: repo, targetBranch and
// pr.number.
type prRequest struct {
	queueRequest
	PR prField `json:"pr"`
}

func (p *prRequest) validate() error {
	if err := p.queueRequest.validate(); err != nil {
		return err
	}
	if p.PR.Number == 0 {
		return badRequestf("pr.number is required")
	}
	return nil
}

// parseEnum is queue.ParseEnum with its error as a 400.
func parseEnum[T ~string](field, s string, allowed ...T) (T, error) {
	v, err := queue.ParseEnum(field, s, allowed...)
	if err != nil {
		return v, badRequestf("%v", err)
	}
	return v, nil
}

// truncate shortens client-supplied text quoted in error messages.
func truncate(s string) string {
	const limit = 64
	if len(s) <= limit {
		return s
	}
	return fmt.Sprintf("%s…", strings.ToValidUTF8(s[:limit], ""))
}
