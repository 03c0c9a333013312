// Package fakegithub is a stateful fake of the GitHub REST API and webhooks,
// backed by real bare git repositories, for end-to-end tests and the
// `bot sandbox` command.
//
// A go-github v66 client whose BaseURL is Server.URL()+"/" (or
// Server.URL()+"/api/v3/") works against it unchanged: responses are
// marshalled from go-github types, status codes and error messages follow
// GitHub's documented behaviour for the subset of endpoints the merge queue
// uses (repositories, branches and protection, git refs and commits,
// compare, the merges API, pull requests and their merge, issue comments,
// reactions and labels, collaborator permissions, commit statuses, check
// runs, workflow runs, the contents API's file writes, the GitHub App
// installation token flow and the App manifest flow).
//
// Guarantees:
//   - Commits, trees, merges and conflicts are real: every commit is
//     written with git plumbing and every merge uses `git merge-tree
//     --write-tree`, so tree SHAs can be compared with what the bot tested.
//   - Webhooks are delivered in the order the events happened, one at a
//     time, signed with the webhook secret, and never retried (as GitHub).
//   - A simulated CI runs on every `mq-merge/**` branch update, with
//     automatic or held completion.
//   - Every call is counted by route pattern and faults (5xx, rate limits,
//     "applied then failed") can be injected per method and path.
//   - GitHub's secondary rate limits can be enforced on each installation,
//     scaled down for tests (Options.Limits, SecondaryLimits): a request
//     over a limit is refused in GitHub's shape and applied not at all, and
//     the windows the refusals announced, and any request that arrived
//     inside one, are recorded (LimitReport).
//   - One GitHub App at a time is installed on every repository: the one New
//     creates, or the last one created through the manifest flow (POST
//     /settings/apps/new, then POST /app-manifests/{code}/conversions), which
//     then signs JWTs with its key, acts as "<slug>[bot]" and receives the
//     webhooks at its hook URL, signed with its secret.
//   - Writes are attributed to whoever the credentials act for: the App's
//     bot for an installation token, a person for a personal access token
//     from IssueUserToken (so a sandbox user can open PRs, comment and label
//     over HTTP as themselves).
//   - All exported methods are safe for concurrent use.
package fakegithub
