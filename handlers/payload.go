package handlers

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/go-github/v66/github"

	"github.com/mergequeue/mq/queue"
)

// The payload types below hold only the fields the handlers read. Decoding
// into them (rather than go-github's full event types) means an odd value in
// a field we never use, such as an App's created_at written as
// "2018-04-25 20:42:10", cannot make us drop an event. The objects that
// become queue facts (pull requests, check runs, statuses) are decoded the
// same way by package ghfacts, the one translation of GitHub's objects that
// the REST reads use too.

type ghUser struct {
	Login string `json:"login"`
	Name  string `json:"name"`
	// Type is GitHub's account type: "User", "Bot" (a GitHub App's
	// account) or "Organization"; empty when the payload omits it.
	Type string `json:"type"`
}

// isBotAccount reports whether GitHub marks the account as a bot (a GitHub
// App's "[bot]" user).
func (u ghUser) isBotAccount() bool { return strings.EqualFold(u.Type, "Bot") }

type ghRepo struct {
	Name  string `json:"name"`
	Owner ghUser `json:"owner"`
}

type ghInstallation struct {
	ID int64 `json:"id"`
}

// ghEvent is what every event carries. Installation is nil in many
// payloads (repository webhooks); nothing depends on it but log fields.
type ghEvent struct {
	Action       string          `json:"action"`
	Repository   *ghRepo         `json:"repository"`
	Sender       ghUser          `json:"sender"`
	Installation *ghInstallation `json:"installation"`
}

func (e ghEvent) installationID() int64 {
	if e.Installation == nil {
		return 0
	}
	return e.Installation.ID
}

type ghLabel struct {
	Name string `json:"name"`
}

// errNoRepository is returned for payloads that name no repository.
var errNoRepository = errors.New("payload names no repository")

// decode parses a webhook payload; a malformed payload is a Permanent error.
func decode(eventType string, payload []byte, v any) error {
	if err := json.Unmarshal(payload, v); err != nil {
		return Permanent(fmt.Errorf("failed to parse %s payload: %w", eventType, err))
	}
	return nil
}

// repoOf names the repository of an event on the configured host, and
// returns it in go-github's form for githubapp's context helpers. A
// repository whose owner or name breaks the naming rules (Repo.Validate)
// is a Permanent error saying which rule: the delivery is recorded as
// failed with that reason and reaches neither the queue nor GitHub.
func repoOf(cfg Config, r *ghRepo) (queue.Repo, *github.Repository, error) {
	if r == nil {
		return queue.Repo{}, nil, Permanent(errNoRepository)
	}
	owner := r.Owner.Login
	if owner == "" {
		owner = r.Owner.Name // push payloads also carry the owner's name
	}
	if owner == "" || r.Name == "" {
		return queue.Repo{}, nil, Permanent(errNoRepository)
	}
	repo := queue.Repo{Host: cfg.Host, Owner: owner, Name: r.Name}
	if err := repo.Validate(); err != nil {
		return queue.Repo{}, nil, Permanent(fmt.Errorf("payload names an invalid repository: %w", err))
	}
	gr := &github.Repository{Name: github.String(r.Name), Owner: &github.User{Login: github.String(owner)}}
	return repo, gr, nil
}

// unqueueableBranch explains why no queue can target branch (it breaks
// the naming rules, so no queue with that branch can exist), or is "" for
// a valid name. Events about such a branch are ignored with that reason:
// GitHub accepts some names the rules refuse (e.g. with invisible
// characters), and a push to one is no failure.
func unqueueableBranch(branch string) string {
	if err := queue.ValidateBranch(branch); err != nil {
		return err.Error()
	}
	return ""
}
