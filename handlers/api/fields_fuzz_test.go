package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mergequeue/mq/queue"
)

// wantRejected fails unless err is what the API answers 400 with: an
// *apiError, or with inputOK also a *queue.InputError (the queue's range
// checks), whose message reaches the client as one non-empty line of UTF-8.
func wantRejected(t *testing.T, err error, inputOK bool, in any) {
	t.Helper()
	var ae *apiError
	var ie *queue.InputError
	if !errors.As(err, &ae) && !(inputOK && errors.As(err, &ie)) {
		t.Fatalf("input %q: error %T %v is not an *apiError", in, err, err)
	}
	status, msg := statusOf(err)
	if status != http.StatusBadRequest {
		t.Fatalf("input %q: status %d (%q), want 400", in, status, msg)
	}
	if strings.TrimSpace(msg) == "" {
		t.Fatalf("input %q: empty error message", in)
	}
	rec := httptest.NewRecorder()
	writeText(rec, status, msg)
	sent := rec.Body.String()
	if strings.Count(sent, "\n") != 1 || !strings.HasSuffix(sent, "\n") || strings.ContainsAny(sent, "\r\u2028\u2029") {
		t.Fatalf("input %q: message %q is not one line", in, sent)
	}
	if !utf8.ValidString(sent) {
		t.Fatalf("input %q: message %q is not UTF-8", in, sent)
	}
}

// decodeValue decodes one JSON value with numbers kept as written.
func decodeValue(t *testing.T, b []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("decode %q: %v", b, err)
	}
	return v
}

// FuzzPRNumber feeds any JSON text as pr.number through decodeJSON, the
// path every PR operation takes. A value is accepted only as null, a JSON
// integer or a numeric string in 1..2^31-1, and round-trips; anything else
// is a 400 on one line.
func FuzzPRNumber(f *testing.F) {
	for _, s := range []string{
		`12`, `"12"`, `" 12 "`, `"007"`, `null`, `2147483647`, `2147483648`, `"2147483648"`,
		`0`, `"0"`, `-1`, `"-1"`, `"+1"`, `1.0`, `1e2`, `""`, `"abc"`, `true`, `{}`, `[1]`,
		`"1\n2"`, `"\u0661"`, `"١٢"`, `99999999999999999999999999`, `"\ud800"`, "\"\xff\"", `1}`, ``,
		`"12\u00a0"`, `[` + strings.Repeat("1,", 40) + `1]`, `{"number":{"number":1}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, value []byte) {
		body := []byte(`{"pr":{"number":` + string(value) + `}}`)
		var req prRequest
		if err := decodeJSON(body, &req); err != nil {
			wantRejected(t, err, false, value)
			return
		}
		n := int(req.PR.Number)
		if n < 0 || n > maxPRNumber {
			t.Fatalf("accepted pr.number %d from %q", n, value)
		}
		if n > 0 {
			for _, again := range []string{strconv.Itoa(n), strconv.Quote(strconv.Itoa(n))} {
				var back prRequest
				if err := decodeJSON([]byte(`{"pr":{"number":`+again+`}}`), &back); err != nil || back.PR.Number != req.PR.Number {
					t.Fatalf("%d does not round-trip through %s: %d, %v", n, again, back.PR.Number, err)
				}
			}
		}
		if !json.Valid(value) {
			return // the body was valid only with what followed the value
		}
		switch v := decodeValue(t, value).(type) {
		case nil:
			if n != 0 {
				t.Fatalf("null decoded as %d", n)
			}
		case json.Number:
			if v.String() != strconv.Itoa(n) {
				t.Fatalf("accepted %s as %d", v, n)
			}
		case string:
			s := strings.TrimSpace(v)
			if strings.Trim(s, "0123456789") != "" || strings.TrimLeft(s, "0") != strconv.Itoa(n) {
				t.Fatalf("accepted %q as %d", v, n)
			}
		default:
			t.Fatalf("accepted a %T (%s) as pr.number %d", v, value, n)
		}
	})
}

// FuzzPriorityField feeds any JSON text as priority through decodeJSON and
// then the queue's ParsePriority, the path of submitPullRequest. Together
// they accept only the default, an integer 0–255 or a known name; a numeric
// value is canonical and round-trips; every refusal is a 400 on one line.
func FuzzPriorityField(f *testing.F) {
	for _, s := range []string{
		`"urgent"`, `"High"`, `" low "`, `""`, `null`, `0`, `"0"`, `"000"`, `100`, `255`, `"42"`,
		`256`, `"256"`, `"-1"`, `"+5"`, `"99999999999999999999999"`, `-1`, `-0`, `1.5`, `0.5`,
		`1e2`, `false`, `{"name":"high"}`, `"medium\n"`, `"\tmedium"`, `"ｈｉｇｈ"`, `"0x10"`,
		`"\u0000"`, "\"\xffhigh\"", `[1,` + "\n" + `2]`, `00`, `"1_0"`, `"٣"`, `-9223372036854775809`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, value []byte) {
		body := []byte(`{"priority":` + string(value) + `}`)
		var req submitRequest
		if err := decodeJSON(body, &req); err != nil {
			wantRejected(t, err, false, value)
			return
		}
		got := req.Priority.Value
		if strings.TrimSpace(got) != got {
			t.Fatalf("priority %q from %q is not trimmed", got, value)
		}
		numeric := false
		if v, err := strconv.Atoi(got); err == nil {
			numeric = true
			if v < 0 || v > maxPriority || strconv.Itoa(v) != got {
				t.Fatalf("accepted priority %q from %q", got, value)
			}
		}
		quoted, err := json.Marshal(got)
		if err != nil {
			t.Fatal(err)
		}
		var back submitRequest
		if err := decodeJSON([]byte(`{"priority":`+string(quoted)+`}`), &back); err != nil || back.Priority != req.Priority {
			t.Fatalf("priority %q does not round-trip: %q, %v", got, back.Priority.Value, err)
		}

		v, name, usedDefault, err := queue.ParsePriority(got)
		if err != nil {
			if numeric || got == "" {
				t.Fatalf("the queue refused the API's priority %q: %v", got, err)
			}
			wantRejected(t, err, true, value)
			return
		}
		if v < 0 || v > queue.PriorityMax || usedDefault != (got == "") || name != queue.PriorityName(v) {
			t.Fatalf("ParsePriority(%q) = %d, %q, %v", got, v, name, usedDefault)
		}
		if !numeric && got != "" && !strings.EqualFold(got, name) {
			t.Fatalf("accepted unknown priority name %q as %d", got, v)
		}
	})
}
