package app

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/rs/zerolog"
)

// GitHub sign-in learns which repositories with a queue the user can read
// by asking GitHub, with the user's own token, which repositories of the
// App's installations they can access:
//
//	GET /user/installations                       (the App's installations the user can access)
//	GET /user/installations/{id}/repositories     (their repositories the user can access)
//
// and keeping those with a queue. The calls depend on the user's
// installations and repositories (pages of userListPerPage), never on the
// number of queues, and are bounded by maxSignInListCalls; a queue on a
// repository the App is not installed on, or that the user cannot see, is
// just not listed. Past the bound the user sees what was listed so far (a
// warning is logged): access is never granted by default.
const (
	userListPerPage    = 100
	maxSignInListCalls = 20
)

// userLister lists with a user token, counting its calls against the
// bound.
type userLister struct {
	a     *App
	token string
	calls int
}

// errListBound: the sign-in used up its GitHub calls.
var errListBound = fmt.Errorf("more than %d GitHub calls needed to list the repositories", maxSignInListCalls)

// get decodes GET path?query (page by page) into out.
func (l *userLister) get(ctx context.Context, path string, page int, out any) error {
	if l.calls >= maxSignInListCalls {
		return errListBound
	}
	l.calls++
	q := url.Values{"per_page": {fmt.Sprint(userListPerPage)}, "page": {fmt.Sprint(page)}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(l.a.cfg.GitHub.V3APIURL, "/")+path+"?"+q.Encode(), nil)
	if err != nil {
		return fmt.Errorf("failed to build the request of %s: %w", path, err)
	}
	req.Header.Set("Authorization", "Bearer "+l.token)
	req.Header.Set("Accept", "application/vnd.github+json")
	if err := doJSON(req, out); err != nil {
		return fmt.Errorf("failed to list %s: %w", path, err)
	}
	return nil
}

// readableRepos returns the repositories with a queue ("owner/name", lower
// case) that the user of token can read, as GitHub lists them for the user
// among the App's installations' repositories.
func (a *App) readableRepos(ctx context.Context, token string) ([]string, error) {
	queues, err := a.store.ListQueues(ctx)
	if err != nil {
		return nil, fmt.Errorf("failed to list queues: %w", err)
	}
	queued := map[string]bool{}
	for _, q := range queues {
		queued[strings.ToLower(q.Key.Repo.FullName())] = true
	}
	if len(queued) == 0 {
		return nil, nil
	}
	l := &userLister{a: a, token: token}
	var ids []int64
	for page := 1; ; page++ {
		var res struct {
			Total         int `json:"total_count"`
			Installations []struct {
				ID int64 `json:"id"`
			} `json:"installations"`
		}
		if err := l.get(ctx, "/user/installations", page, &res); err != nil {
			return a.listedSoFar(ctx, nil, err)
		}
		for _, inst := range res.Installations {
			ids = append(ids, inst.ID)
		}
		if len(res.Installations) < userListPerPage || len(ids) >= res.Total {
			break
		}
	}
	found := map[string]bool{}
	var out []string
	for _, id := range ids {
		listed := 0
		for page := 1; len(found) < len(queued); page++ {
			var res struct {
				Total        int `json:"total_count"`
				Repositories []struct {
					FullName    string          `json:"full_name"`
					Permissions map[string]bool `json:"permissions"`
				} `json:"repositories"`
			}
			if err := l.get(ctx, fmt.Sprintf("/user/installations/%d/repositories", id), page, &res); err != nil {
				return a.listedSoFar(ctx, out, err)
			}
			for _, r := range res.Repositories {
				full := strings.ToLower(r.FullName)
				if queued[full] && !found[full] && (r.Permissions == nil || r.Permissions["pull"]) {
					found[full] = true
					out = append(out, full)
				}
			}
			listed += len(res.Repositories)
			if len(res.Repositories) < userListPerPage || listed >= res.Total {
				break
			}
		}
	}
	return out, nil
}

// listedSoFar is what readableRepos answers when listing stopped on err:
// past the call bound, the repositories found so far; on any other
// failure, the error.
func (a *App) listedSoFar(ctx context.Context, found []string, err error) ([]string, error) {
	if errors.Is(err, errListBound) {
		zerolog.Ctx(ctx).Warn().Int("found", len(found)).Int("calls", maxSignInListCalls).
			Msg("dashboard: stopped listing the GitHub user's repositories at the bound; some queues may not show")
		return found, nil
	}
	return nil, err
}
