package fakegithub

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// The fake's GraphQL endpoint (POST /graphql) answers the one mutation the
// queue sends, updateRefs (create, move and delete several refs of one
// repository at once, atomically), in GitHub's shape: HTTP 200 with "data",
// plus "errors" when it refused, in which case nothing was applied. Any
// other document is answered with an error, as GitHub answers a field it
// does not know.

// graphQLError is one entry of a GraphQL answer's "errors".
type graphQLError struct {
	Type    string `json:"type,omitempty"`
	Message string `json:"message"`
}

func writeGraphQL(c *reqCtx, data any, errs ...graphQLError) {
	body := map[string]any{"data": data}
	if len(errs) > 0 {
		body["errors"] = errs
	}
	c.json(http.StatusOK, body)
}

func (s *Server) handleGraphQL(c *reqCtx) {
	var body struct {
		Query     string         `json:"query"`
		Variables map[string]any `json:"variables"`
	}
	if !c.decode(&body) {
		return
	}
	q := strings.Join(strings.Fields(body.Query), " ")
	if !strings.HasPrefix(q, "mutation") || !strings.Contains(q, "updateRefs(input:") {
		writeGraphQL(c, nil, graphQLError{Type: "UNSUPPORTED", Message: "the fake GitHub answers only the updateRefs mutation"})
		return
	}
	var in struct {
		RepositoryID string `json:"repositoryId"`
		RefUpdates   []struct {
			Name      string `json:"name"`
			AfterOid  string `json:"afterOid"`
			BeforeOid string `json:"beforeOid"`
			Force     bool   `json:"force"`
		} `json:"refUpdates"`
	}
	raw, ok := body.Variables["input"]
	if !ok || !remarshal(raw, &in) {
		writeGraphQL(c, nil, graphQLError{Type: "INVALID", Message: "Variable $input of type UpdateRefsInput! was provided invalid value"})
		return
	}
	r, err := s.repoByNodeID(in.RepositoryID)
	if err != nil {
		writeGraphQL(c, map[string]any{"updateRefs": nil}, graphQLError{Type: "NOT_FOUND", Message: fmt.Sprintf("Could not resolve to a node with the global id of '%s'", in.RepositoryID)})
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	type change struct{ ref, old, next string }
	var changes []change
	refuse := func(msg string) {
		writeGraphQL(c, map[string]any{"updateRefs": nil}, graphQLError{Type: "UNPROCESSABLE", Message: msg})
	}
	for _, u := range in.RefUpdates {
		if !strings.HasPrefix(u.Name, "refs/") || fullRef(u.Name) == "" {
			refuse(fmt.Sprintf("%s is not a valid ref name", u.Name))
			return
		}
		old, exists, err := r.git.refSHA(u.Name)
		if err != nil {
			c.fail(err)
			return
		}
		if !exists {
			old = ""
		}
		if u.BeforeOid != "" && u.BeforeOid != zeroSHA && u.BeforeOid != old || u.BeforeOid == zeroSHA && exists {
			refuse(fmt.Sprintf("%s does not point at %s", u.Name, u.BeforeOid))
			return
		}
		if u.AfterOid == zeroSHA || u.AfterOid == "" {
			if !exists {
				refuse(fmt.Sprintf("A ref named %s does not exist", u.Name))
				return
			}
			changes = append(changes, change{u.Name, old, ""})
			continue
		}
		sha, ok, err := r.git.resolveCommit(u.AfterOid)
		if err != nil {
			c.fail(err)
			return
		}
		if !ok || !isHex(u.AfterOid) {
			refuse(fmt.Sprintf("Object %s does not exist", u.AfterOid))
			return
		}
		if exists && !u.Force {
			ff, err := r.git.isAncestor(old, sha)
			if err != nil {
				c.fail(err)
				return
			}
			if !ff {
				refuse(fmt.Sprintf("Update of %s is not a fast forward", u.Name))
				return
			}
		}
		changes = append(changes, change{u.Name, old, sha})
	}
	for _, ch := range changes {
		if err := r.moveRef(ch.ref, ch.old, ch.next, c.actor); err != nil {
			c.fail(err)
			return
		}
	}
	writeGraphQL(c, map[string]any{"updateRefs": map[string]any{"clientMutationId": nil}})
}

// repoByNodeID finds a repository by its node id ("R_<id>").
func (s *Server) repoByNodeID(id string) (*repo, error) {
	n, err := strconv.ParseInt(strings.TrimPrefix(id, "R_"), 10, 64)
	if err != nil || !strings.HasPrefix(id, "R_") {
		return nil, fmt.Errorf("no repository with node id %q", id)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.repos {
		if r.id == n {
			return r, nil
		}
	}
	return nil, fmt.Errorf("no repository with node id %q", id)
}

// remarshal decodes a JSON-decoded value into out.
func remarshal(v any, out any) bool {
	b, err := json.Marshal(v)
	return err == nil && json.Unmarshal(b, out) == nil
}
