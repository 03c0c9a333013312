package api

import (
	"encoding/base64"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/readside"
)

// FuzzCursor checks decodeCursor on any string (a 400 on one line, or a
// position after the epoch with an ID that encodes back to itself) and
// that every cursor encodeCursor makes decodes to its position.
func FuzzCursor(f *testing.F) {
	at := time.Date(2026, 7, 23, 1, 2, 3, 456789012, time.UTC)
	good := encodeCursor(at, "01J3ZK")
	raw := base64.RawURLEncoding.EncodeToString
	for _, c := range []string{
		good, good + "==", " " + good + " ", good[:len(good)-1], strings.ToUpper(good), "", "=", "v1",
		raw([]byte("v1:0:x")), raw([]byte("v1:-5:x")), raw([]byte("v1:1:")), raw([]byte("v2:1:x")),
		raw([]byte("v1:9223372036854775807:a:b:c")), raw([]byte("v1:9223372036854775808:x")),
		raw([]byte("v1:+1:x")), raw([]byte("v1:1:\n")), raw([]byte("v1:1:\xff")), "!!!!", "a\nb",
		base64.StdEncoding.EncodeToString([]byte("v1:1:x?>")),
	} {
		f.Add(c, at.UnixNano(), "01J3ZK")
	}
	f.Add(good, int64(1), ":")
	f.Add(good, int64(-1), "x")
	f.Add(good, int64(0), "")
	f.Add(good, int64(1<<63-1), "\xff\x00")
	f.Fuzz(func(t *testing.T, c string, nanos int64, id string) {
		gotAt, gotID, err := decodeCursor(c)
		if err != nil {
			wantRejected(t, err, false, c)
		} else {
			if gotAt.UnixNano() <= 0 || gotAt.Location() != time.UTC || gotID == "" {
				t.Fatalf("decodeCursor(%q) = %v, %q", c, gotAt, gotID)
			}
			again, againID, err := decodeCursor(encodeCursor(gotAt, gotID))
			if err != nil || !again.Equal(gotAt) || againID != gotID {
				t.Fatalf("cursor %q (%v, %q) re-encodes as %v, %q, %v", c, gotAt, gotID, again, againID, err)
			}
		}
		if nanos <= 0 || id == "" {
			return
		}
		want := time.Unix(0, nanos).UTC()
		back, backID, err := decodeCursor(encodeCursor(want, id))
		if err != nil || !back.Equal(want) || backID != id {
			t.Fatalf("encodeCursor(%v, %q) decodes as %v, %q, %v", want, id, back, backID, err)
		}
	})
}

// FuzzParseInstant checks since/until parsing: a 400 on one line, or a UTC
// instant the store can hold that survives the wire format (to the
// millisecond) and RFC 3339.
func FuzzParseInstant(f *testing.F) {
	for _, s := range []string{
		"2026-07-23T01:32:50.000Z", "2026-07-23T01:32:50Z", "2026-07-23T03:32:50+02:00",
		"2026-07-23T01:32:50.123456789Z", "2026-07-23T01:32:50", "2026-07-23T01:32", "2026-07-23",
		" 2026-07-23 ", "2026-07-23T01:32:50.5", "1969-12-31T23:59:59Z", "0000-01-01", "9999-12-31T23:59:59Z",
		"2262-04-11T23:47:16.854775807Z", "2026-02-30", "2026-07-23 01:32:50", "yesterday", "", "1753234370",
		"2026-07-23T01:32:50-24:00", "2026-07-23T01:32:50+23:59", "2026-07-23T24:00:00Z", "2026-07-23T01:32:50z",
		"2026-07-23T01:32:50.Z", "\xff2026-07-23", "2026-07-23\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := parseInstant("since", s)
		if err != nil {
			wantRejected(t, err, false, s)
			return
		}
		if got.Location() != time.UTC || got.Before(earliestInstant) || got.After(latestInstant) {
			t.Fatalf("parseInstant(%q) = %v, outside what the store holds", s, got)
		}
		if back, err := parseInstant("since", timestamp(got)); err != nil || !back.Equal(got.Truncate(time.Millisecond)) {
			t.Fatalf("%v does not survive the wire format %q: %v, %v", got, timestamp(got), back, err)
		}
		if back, err := parseInstant("since", got.Format(time.RFC3339Nano)); err != nil || !back.Equal(got) {
			t.Fatalf("%v does not survive RFC 3339: %v, %v", got, back, err)
		}
	})
}

// FuzzListPullRequestsQuery feeds any body through listPullRequests'
// decoding and query building: a 400 on one line, or a query with a page
// size in 1..MaxListTake, known states, an ordered time range and a cursor
// position after the epoch.
func FuzzListPullRequestsQuery(f *testing.F) {
	cursor := `"` + encodeCursor(time.Date(2026, 7, 23, 1, 2, 3, 0, time.UTC), "01J3ZK") + `"`
	for _, s := range []string{
		body(),
		body(`"state":"merged"`, `"take":10`),
		body(`"state":["TESTING","pending"]`, `"since":"2026-07-01","until":"2026-07-23T01:32:50.000Z"`),
		body(`"state":[]`, `"cursor":`+cursor, `"take":100`),
		body(`"state":null`, `"since":null`, `"until":null`, `"cursor":null`, `"take":null`),
		body(`"cursor":""`),
		body(`"state":"bogus"`),
		body(`"state":["merged",null]`),
		body(`"state":["merged",1]`),
		body(`"state":{"merged":true}`),
		body(`"state":"\u0000"`),
		body(`"since":"2026-07-23","until":"2026-07-01"`),
		body(`"since":"1900-01-01","until":"3000-01-01"`),
		body(`"since":12`),
		body(`"take":0`), body(`"take":101`), body(`"take":-1`), body(`"take":1.5`), body(`"take":"5"`),
		body(`"take":9223372036854775808`),
		body(`"cursor":"!!"`), body(`"cursor":5`),
		`{"state":"merged"}`, `[]`, `null`, `{`, "{\"since\":\"\xff\"}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var req listPullRequestsRequest
		err := decodeJSON(b, &req)
		var q queue.EntryQuery
		var take int
		if err == nil {
			q, take, err = req.query()
		}
		if err != nil {
			wantRejected(t, err, false, b)
			return
		}
		if take < 1 || take > readside.MaxListTake || q.Limit != take+1 {
			t.Fatalf("take %d, limit %d from %q", take, q.Limit, b)
		}
		for _, st := range q.States {
			if !slices.Contains(queue.AllEntryStates, st) {
				t.Fatalf("unknown state %q from %q", st, b)
			}
		}
		for _, at := range []time.Time{q.Since, q.Until} {
			if !at.IsZero() && (at.Location() != time.UTC || at.Before(earliestInstant) || at.After(latestInstant)) {
				t.Fatalf("time %v from %q is outside what the store holds", at, b)
			}
		}
		if !q.Since.IsZero() && !q.Until.IsZero() && q.Since.After(q.Until) {
			t.Fatalf("since %v after until %v from %q", q.Since, q.Until, b)
		}
		if (q.AfterID == "") != q.AfterAt.IsZero() || (!q.AfterAt.IsZero() && q.AfterAt.UnixNano() <= 0) {
			t.Fatalf("cursor position %v, %q from %q", q.AfterAt, q.AfterID, b)
		}
	})
}
