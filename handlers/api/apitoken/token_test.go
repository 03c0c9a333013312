package apitoken_test

import (
	"testing"

	"github.com/mergequeue/mq/handlers/api/apitoken"
	"github.com/mergequeue/mq/queue"
)

func TestAllows(t *testing.T) {
	t.Parallel()
	widgets := queue.Repo{Host: "github.com", Owner: "octo", Name: "widgets"}
	tests := []struct {
		name string
		tok  apitoken.Token
		repo queue.Repo
		want bool
	}{
		{"unscoped: every repository", apitoken.Token{}, widgets, true},
		{"empty scopes: every repository", apitoken.Token{Repos: []string{}, Owners: []string{}}, widgets, true},
		{"its repository", apitoken.Token{Repos: []string{"octo/widgets"}}, widgets, true},
		{"its repository, any case", apitoken.Token{Repos: []string{"Octo/Widgets"}}, queue.Repo{Owner: "OCTO", Name: "widgets"}, true},
		{"another repository", apitoken.Token{Repos: []string{"octo/widgets"}}, queue.Repo{Owner: "octo", Name: "gadgets"}, false},
		{"same name, other owner", apitoken.Token{Repos: []string{"octo/widgets"}}, queue.Repo{Owner: "acme", Name: "widgets"}, false},
		{"its owner", apitoken.Token{Owners: []string{"ACME"}}, queue.Repo{Owner: "acme", Name: "anything"}, true},
		{"another owner", apitoken.Token{Owners: []string{"acme"}}, widgets, false},
		{"owner is not a prefix", apitoken.Token{Owners: []string{"oct"}}, widgets, false},
		{"repos or owners", apitoken.Token{Repos: []string{"acme/x"}, Owners: []string{"octo"}}, widgets, true},
		{"a host-qualified scope matches nothing", apitoken.Token{Repos: []string{"github.com/octo/widgets"}}, widgets, false},
	}
	for _, tt := range tests {
		if got := tt.tok.Allows(tt.repo); got != tt.want {
			t.Errorf("%s: Allows(%s) = %v, want %v", tt.name, tt.repo.FullName(), got, tt.want)
		}
	}
}
