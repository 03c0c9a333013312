package api

import (
	"testing"

	"github.com/mergequeue/mq/queue"
)

func TestPullURL(t *testing.T) {
	t.Parallel()
	repo := queue.Repo{Host: "github.com", Owner: "acme", Name: "widgets"}
	tests := []struct {
		name, webURL string
		repo         queue.Repo
		want         string
	}{
		{"no web URL: the repo host", "", repo, "https://github.com/acme/widgets/pull/7"},
		{"github.com", "https://github.com", repo, "https://github.com/acme/widgets/pull/7"},
		{"trailing slash", "https://ghe.example.com/", queue.Repo{Host: "ghe.example.com", Owner: "acme", Name: "widgets"}, "https://ghe.example.com/acme/widgets/pull/7"},
		{"a fake GitHub on loopback", "http://127.0.0.1:4321", repo, "http://127.0.0.1:4321/acme/widgets/pull/7"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := New(nil, nil, nil, Options{WebURL: tc.webURL}).(*API)
			if got := a.pullURL(tc.repo, 7); got != tc.want {
				t.Fatalf("pullURL = %q, want %q", got, tc.want)
			}
		})
	}
}
