package githubx

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/go-github/v66/github"

	"github.com/mergequeue/mq/queue"
)

// GraphQLError is an answer of GitHub's GraphQL API that carries errors
// (with HTTP 200): nothing of the request was applied when the mutation is
// atomic, as updateRefs is.
type GraphQLError struct {
	Messages []string
	Types    []string
}

func (e *GraphQLError) Error() string {
	return "GitHub GraphQL API answered: " + strings.Join(e.Messages, "; ")
}

// graphQL posts one GraphQL document with its variables to the v4 endpoint
// through the installation client gh (so it goes through the same
// middlewares: path guard, retries, budget, observer) and decodes "data"
// into out. An answer with "errors" is a *GraphQLError.
func (c *Client) graphQL(ctx context.Context, gh *github.Client, query string, vars map[string]any, out any) error {
	req, err := gh.NewRequest("POST", c.cfg.V4APIURL, map[string]any{"query": query, "variables": vars})
	if err != nil {
		return fmt.Errorf("failed to build the GraphQL request: %w", err)
	}
	var res struct {
		Data   json.RawMessage `json:"data"`
		Errors []struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"errors"`
	}
	if _, err := gh.Do(ctx, req, &res); err != nil {
		return err
	}
	if len(res.Errors) > 0 {
		ge := &GraphQLError{}
		for _, e := range res.Errors {
			ge.Messages = append(ge.Messages, e.Message)
			ge.Types = append(ge.Types, e.Type)
		}
		return ge
	}
	if out == nil || len(res.Data) == 0 {
		return nil
	}
	if err := json.Unmarshal(res.Data, out); err != nil {
		return fmt.Errorf("failed to decode the GraphQL answer: %w", err)
	}
	return nil
}

// repoNodeID returns the GraphQL node id of a repository, read once (GET
// /repos/{owner}/{repo}) and kept for the life of the client: a
// repository's node id never changes.
func (c *Client) repoNodeID(ctx context.Context, gh *github.Client, repo queue.Repo) (string, error) {
	key := repoKey(repo)
	c.mu.Lock()
	id, ok := c.nodeIDs[key]
	c.mu.Unlock()
	if ok {
		return id, nil
	}
	p := escapedRepo(repo)
	r, _, err := gh.Repositories.Get(ctx, p.owner, p.name)
	if err != nil {
		return "", err
	}
	if r.GetNodeID() == "" {
		return "", errors.New("GitHub returned the repository without a node id")
	}
	c.mu.Lock()
	c.nodeIDs[key] = r.GetNodeID()
	c.mu.Unlock()
	return r.GetNodeID(), nil
}
