package fakegithub

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// docsURL is the documentation_url GitHub puts in error bodies.
const docsURL = "https://docs.github.com/rest"

// maxBody bounds request bodies.
const maxBody = 25 << 20

// apiError is a client-visible failure with GitHub's status and message.
type apiError struct {
	status int
	msg    string
}

func (e *apiError) Error() string { return fmt.Sprintf("%d %s", e.status, e.msg) }

func errNotFound(msg string) *apiError { return &apiError{status: http.StatusNotFound, msg: msg} }
func errValidation(msg string) *apiError {
	return &apiError{status: http.StatusUnprocessableEntity, msg: msg}
}

// reqCtx is one request being handled.
type reqCtx struct {
	s      *Server
	w      http.ResponseWriter
	r      *http.Request
	params map[string]string
	repo   *repo // set for /repos/{owner}/{repo}/… routes
	// actor is who the credentials act for (the App's bot or a user); ""
	// on public routes. Writes are attributed to it.
	actor string
}

// setStdHeaders sets the headers every GitHub API response carries.
func setStdHeaders(h http.Header) {
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("X-GitHub-Media-Type", "github.v3; format=json")
	h.Set("X-GitHub-Request-Id", strconv.FormatInt(time.Now().UnixNano(), 16))
	if h.Get("X-RateLimit-Remaining") == "" {
		h.Set("X-RateLimit-Limit", "5000")
		h.Set("X-RateLimit-Remaining", "4999")
		h.Set("X-RateLimit-Used", "1")
		h.Set("X-RateLimit-Reset", strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10))
		h.Set("X-RateLimit-Resource", "core")
	}
}

// writeJSON writes v as the JSON body with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	setStdHeaders(w.Header())
	body, err := json.Marshal(v)
	if err != nil {
		status, body = http.StatusInternalServerError, []byte(`{"message":"failed to encode response"}`)
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// writeError writes GitHub's error body {"message", "documentation_url"}.
func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"message": msg, "documentation_url": docsURL})
}

func (c *reqCtx) json(status int, v any) { writeJSON(c.w, status, v) }

func (c *reqCtx) error(status int, msg string) { writeError(c.w, status, msg) }

// fail answers err: an *apiError with its status, anything else as 500.
func (c *reqCtx) fail(err error) {
	var ae *apiError
	if errors.As(err, &ae) {
		c.error(ae.status, ae.msg)
		return
	}
	c.error(http.StatusInternalServerError, "Server Error: "+err.Error())
}

func (c *reqCtx) noContent() {
	setStdHeaders(c.w.Header())
	c.w.Header().Del("Content-Type")
	c.w.WriteHeader(http.StatusNoContent)
}

// decode reads the JSON body into v (an empty body is "{}"); on bad JSON it
// answers 400 and returns false.
func (c *reqCtx) decode(v any) bool {
	body, err := io.ReadAll(io.LimitReader(c.r.Body, maxBody))
	if err != nil {
		c.error(http.StatusBadRequest, "Problems reading request body")
		return false
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return true
	}
	if err := json.Unmarshal(body, v); err != nil {
		c.error(http.StatusBadRequest, "Problems parsing JSON")
		return false
	}
	return true
}

// intParam parses a numeric path parameter; on failure it answers 404.
func (c *reqCtx) intParam(name string) (int64, bool) {
	n, err := strconv.ParseInt(c.params[name], 10, 64)
	if err != nil || n <= 0 {
		c.error(http.StatusNotFound, "Not Found")
		return 0, false
	}
	return n, true
}

// page slices items by the page/per_page query parameters (default 30,
// max 100) and sets GitHub's Link header.
func page[T any](c *reqCtx, items []T) []T {
	q := c.r.URL.Query()
	per, err := strconv.Atoi(q.Get("per_page"))
	if err != nil || per <= 0 {
		per = 30
	}
	if per > 100 {
		per = 100
	}
	pg, err := strconv.Atoi(q.Get("page"))
	if err != nil || pg <= 0 {
		pg = 1
	}
	last := (len(items) + per - 1) / per
	if last == 0 {
		last = 1
	}
	link := func(n int, rel string) string {
		u := url.URL{Scheme: "http", Host: c.r.Host, Path: c.r.URL.Path}
		qq := c.r.URL.Query()
		qq.Set("page", strconv.Itoa(n))
		qq.Set("per_page", strconv.Itoa(per))
		u.RawQuery = qq.Encode()
		return fmt.Sprintf("<%s>; rel=%q", u.String(), rel)
	}
	var links []string
	if pg < last {
		links = append(links, link(pg+1, "next"), link(last, "last"))
	}
	if pg > 1 {
		links = append(links, link(1, "first"), link(pg-1, "prev"))
	}
	if len(links) > 0 {
		v := links[0]
		for _, l := range links[1:] {
			v += ", " + l
		}
		c.w.Header().Set("Link", v)
	}
	start := (pg - 1) * per
	if start >= len(items) {
		return []T{}
	}
	end := start + per
	if end > len(items) {
		end = len(items)
	}
	return items[start:end]
}
