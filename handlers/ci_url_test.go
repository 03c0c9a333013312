package handlers

import (
	"context"
	"testing"
)

// ciURLCases are target_url / details_url values CI reports, with the URL
// the queue may record: only absolute http(s) URLs, canonical; anything
// else is dropped.
var ciURLCases = []struct{ raw, want string }{
	{"https://ci.example/build/7", "https://ci.example/build/7"},
	{"javascript:alert(1)", ""},
	{"<!channel>", ""},
	{"](http://evil)", ""},
	{"![x](http://evil/x.png)", ""},
	{"https://user:pw@ci.example/", ""},
	{"https://ci.example/a](http://evil)", "https://ci.example/a%5D%28http://evil%29"},
}

// A status's target_url, which code on a fork PR's test branch can set,
// reaches the queue only as a validated http(s) URL.
func TestStatusTargetURLIsValidated(t *testing.T) {
	t.Parallel()
	for _, c := range ciURLCases {
		svc := newFakeService()
		payload := patchJSON(t, loadExample(t, "status/payload.json"), func(m map[string]any) {
			m["state"], m["target_url"] = "failure", c.raw
		})
		if err := NewStatusHandler(testConfig(), svc).Handle(context.Background(), "status", "d", payload); err != nil {
			t.Fatal(err)
		}
		if len(svc.checks) != 1 || svc.checks[0].URL != c.want {
			t.Errorf("target_url %q recorded as %+v, want URL %q", c.raw, svc.checks, c.want)
		}
	}
}

// A check run's URLs are validated the same way: html_url first, else
// details_url, each only if it is a valid http(s) URL.
func TestCheckRunURLIsValidated(t *testing.T) {
	t.Parallel()
	for _, c := range ciURLCases {
		svc := newFakeService()
		payload := patchJSON(t, loadExample(t, "check_run/completed.payload.json"), func(m map[string]any) {
			obj(m, "check_run")["html_url"] = c.raw
			obj(m, "check_run")["details_url"] = c.raw
		})
		if err := NewCheckRunHandler(testConfig(), svc).Handle(context.Background(), "check_run", "d", payload); err != nil {
			t.Fatal(err)
		}
		if len(svc.checks) != 1 || svc.checks[0].URL != c.want {
			t.Errorf("check run URL %q recorded as %+v, want %q", c.raw, svc.checks, c.want)
		}
	}
	svc := newFakeService()
	payload := patchJSON(t, loadExample(t, "check_run/completed.payload.json"), func(m map[string]any) {
		obj(m, "check_run")["html_url"] = "javascript:alert(1)"
		obj(m, "check_run")["details_url"] = "https://ci.example/d"
	})
	if err := NewCheckRunHandler(testConfig(), svc).Handle(context.Background(), "check_run", "d", payload); err != nil {
		t.Fatal(err)
	}
	if len(svc.checks) != 1 || svc.checks[0].URL != "https://ci.example/d" {
		t.Errorf("checks %+v, want the valid details_url", svc.checks)
	}
}
