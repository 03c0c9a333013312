package dashboard

import (
	"context"
	"fmt"
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
// installations and repositories, never on the number of queues, and are
// bounded by maxSignInListCalls; a queue on a
// repository the App is not installed on, or that the user cannot see, is
// just not listed. Past the bound the user sees what was listed so far (a
// warning is logged): access is never granted by default.
const maxSignInListCalls = 20

// readableRepos returns the repositories with a queue ("owner/name", lower
// case) that the user of token can read, as GitHub lists them for the user
// among the App's installations' repositories. Past maxSignInListCalls,
// the repositories found so far (a warning is logged).
func (d *Dashboard) readableRepos(ctx context.Context, token string) ([]string, error) {
	queues, err := d.reads.ListQueues(ctx)
	if err != nil {
		return nil, fmt.Errorf("failed to list queues: %w", err)
	}
	queued := map[string]bool{}
	for _, q := range queues {
		queued[strings.ToLower(q.Key.Repo.FullName())] = true
	}
	found, complete, err := d.signIn.ReadableRepos(ctx, token, queued, maxSignInListCalls)
	if err != nil {
		return nil, err
	}
	if !complete {
		zerolog.Ctx(ctx).Warn().Int("found", len(found)).Int("calls", maxSignInListCalls).
			Msg("dashboard: stopped listing the GitHub user's repositories at the bound; some queues may not show")
	}
	return found, nil
}
