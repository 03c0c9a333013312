package apitoken

import (
	"testing"

	"github.com/mergequeue/mq/queue"
)

func TestAllows(t *testing.T) {
	t.Parallel()
	widgets := queue.Repo{Host: "github.com", Owner: "octo", Name: "widgets"}
	tests := []struct {
		name string
		tok  Token
		repo queue.Repo
		want bool
	}{
		{"unscoped: every repository", Token{}, widgets, true},
		{"empty scopes: every repository", Token{Repos: []string{}, Owners: []string{}}, widgets, true},
		{"its repository", Token{Repos: []string{"octo/widgets"}}, widgets, true},
		{"its repository, any case", Token{Repos: []string{"Octo/Widgets"}}, queue.Repo{Owner: "OCTO", Name: "widgets"}, true},
		{"another repository", Token{Repos: []string{"octo/widgets"}}, queue.Repo{Owner: "octo", Name: "gadgets"}, false},
		{"same name, other owner", Token{Repos: []string{"octo/widgets"}}, queue.Repo{Owner: "acme", Name: "widgets"}, false},
		{"its owner", Token{Owners: []string{"ACME"}}, queue.Repo{Owner: "acme", Name: "anything"}, true},
		{"another owner", Token{Owners: []string{"acme"}}, widgets, false},
		{"owner is not a prefix", Token{Owners: []string{"oct"}}, widgets, false},
		{"repos or owners", Token{Repos: []string{"acme/x"}, Owners: []string{"octo"}}, widgets, true},
		{"a host-qualified scope matches nothing", Token{Repos: []string{"github.com/octo/widgets"}}, widgets, false},
	}
	for _, tt := range tests {
		if got := tt.tok.Allows(tt.repo); got != tt.want {
			t.Errorf("%s: Allows(%s) = %v, want %v", tt.name, tt.repo.FullName(), got, tt.want)
		}
	}
}
