package api

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// FuzzImpactedTargets feeds any JSON text as impactedTargets, and any
// string as pr.sha, through setImpactedTargets' decoding and validation. An
// accepted request has a full lower-case SHA and either "all" or a list
// that round-trips; every refusal is a 400 on one line.
func FuzzImpactedTargets(f *testing.F) {
	const sha = "6dcb09b5b57875f334f61aebed695e2e4193db5e"
	for _, s := range []string{
		`["//a", "//b:c"]`, `[]`, `"ALL"`, `"impacts_all"`, `"all "`, `null`, `"NONE"`, `[null]`,
		`[1]`, `["a",]`, `{}`, `true`, `0`, `[["a"]]`, `["\u0000", "\ud800", "é"]`, `"ALL\u0000"`,
		` [ "//x" ] `, `["` + strings.Repeat("x", 300) + `"]`, `[` + strings.Repeat(`"t",`, 50) + `"t"]`,
		"[\"\xff\"]", `[`, `"`,
	} {
		f.Add([]byte(s), sha)
	}
	f.Add([]byte(`"ALL"`), strings.ToUpper(sha))
	f.Add([]byte(`"ALL"`), " "+sha+"\n")
	f.Add([]byte(`[]`), strings.Repeat("a", 64))
	f.Add([]byte(`[]`), sha[:39])
	f.Add([]byte(`[]`), sha[:39]+"g")
	f.Add([]byte(`[]`), "")
	f.Add([]byte(`[]`), sha+"\u00e9")
	f.Fuzz(func(t *testing.T, value []byte, prSHA string) {
		quoted, err := json.Marshal(prSHA)
		if err != nil {
			t.Fatal(err)
		}
		b := []byte(body(`"pr":{"number":7,"sha":`+string(quoted)+`}`, `"impactedTargets":`+string(value)))
		var req setImpactedTargetsRequest
		err = decodeJSON(b, &req)
		var normal string
		if err == nil {
			normal, err = req.validate()
		}
		if err != nil {
			wantRejected(t, err, false, value)
			return
		}
		if (len(normal) != 40 && len(normal) != 64) || strings.Trim(normal, "0123456789abcdef") != "" ||
			normal != strings.ToLower(strings.TrimSpace(req.PR.SHA)) {
			t.Fatalf("accepted pr.sha %q as %q", req.PR.SHA, normal)
		}
		got := req.ImpactedTargets
		if !got.set || (got.all && got.list != nil) || (!got.all && got.list == nil) {
			t.Fatalf("accepted impactedTargets %q as %+v", value, got)
		}
		again := []byte(`"ALL"`)
		if !got.all {
			if again, err = json.Marshal(got.list); err != nil {
				t.Fatal(err)
			}
		}
		var back impactedTargets
		if err := json.Unmarshal(again, &back); err != nil || !reflect.DeepEqual(back, got) {
			t.Fatalf("%+v does not round-trip through %s: %+v, %v", got, again, back, err)
		}
		if !json.Valid(value) {
			return // the body was valid only with what followed the value
		}
		switch v := decodeValue(t, value).(type) {
		case string:
			if !got.all || (!strings.EqualFold(v, "ALL") && !strings.EqualFold(v, "IMPACTS_ALL")) {
				t.Fatalf("accepted %q as %+v", v, got)
			}
		case []any:
			if got.all || len(v) != len(got.list) {
				t.Fatalf("accepted %s as %+v", value, got)
			}
			for i, x := range v {
				if x == nil {
					x = "" // encoding/json leaves a string unchanged on null
				}
				if s, ok := x.(string); !ok || s != got.list[i] {
					t.Fatalf("accepted %s as %+v", value, got)
				}
			}
		default:
			t.Fatalf("accepted a %T (%s) as impactedTargets", v, value)
		}
	})
}
