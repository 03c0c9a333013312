package api

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/queue"
)

// internalErrorMessage is the only body a 500 ever carries.
const internalErrorMessage = "internal error"

// apiError is a failure with a status and a message safe to show to the
// client. Operations return it (or a domain error that statusOf maps).
type apiError struct {
	Status int
	Msg    string
	// RetryAfter, when positive, is sent as the Retry-After header (s).
	RetryAfter int
}

func (e *apiError) Error() string { return fmt.Sprintf("%d %s", e.Status, e.Msg) }

func badRequestf(format string, args ...any) error {
	return &apiError{Status: http.StatusBadRequest, Msg: fmt.Sprintf(format, args...)}
}

func notFoundf(format string, args ...any) error {
	return &apiError{Status: http.StatusNotFound, Msg: fmt.Sprintf(format, args...)}
}

// statusOf maps err to a status and a public message. Operations translate
// the domain errors they expect into *apiError with a precise message; the
// sentinel cases here are the fallback. Anything unrecognised is a 500 whose
// details never leave the log.
func statusOf(err error) (int, string) {
	var ae *apiError
	var ie *queue.InputError
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &ae):
		return ae.Status, ae.Msg
	case errors.As(err, &tooBig):
		return http.StatusRequestEntityTooLarge,
			fmt.Sprintf("request body larger than %d bytes", tooBig.Limit)
	case errors.As(err, &ie):
		return http.StatusBadRequest, ie.Msg
	case errors.Is(err, queue.ErrPRNotFound):
		return http.StatusNotFound, "pull request not found"
	case errors.Is(err, queue.ErrNotActive):
		return http.StatusNotFound, "pull request is not active in the queue"
	case errors.Is(err, queue.ErrNotFound):
		return http.StatusNotFound, "not found"
	case errors.Is(err, queue.ErrExists):
		return http.StatusConflict, "already exists"
	}
	return http.StatusInternalServerError, internalErrorMessage
}

// writeError answers err as a one-line text/plain body. 5xx are logged at
// error level with the full error; 4xx at debug.
func (a *API) writeError(w http.ResponseWriter, r *http.Request, err error) {
	status, msg := statusOf(err)
	log := loggerFrom(r.Context())
	var ev *zerolog.Event
	if status >= http.StatusInternalServerError {
		ev = log.Error()
	} else {
		ev = log.Debug()
	}
	ev.Err(err).Int("status", status).Msg("REST request failed")
	if ae := (*apiError)(nil); errors.As(err, &ae) && ae.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(ae.RetryAfter))
	}
	writeText(w, status, msg)
}

// writeText writes msg, flattened to one line, as a text/plain body.
func writeText(w http.ResponseWriter, status int, msg string) {
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Del("Content-Length")
	w.WriteHeader(status)
	_, _ = fmt.Fprintln(w, oneLine(msg))
}

// oneLine replaces line breaks and other control characters with spaces.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, s)
}
