package fakegithub

import (
	"strings"
)

// authKind says which credential a route requires.
type authKind int

const (
	authToken authKind = iota // an installation token the fake issued
	authApp                   // an App JWT
	authNone                  // public (fake CI pages)
)

// route is one endpoint. Patterns are "/"-separated segments; "{name}"
// matches one segment and "{name...}" one or more (it may be followed by
// literal segments, e.g. "/commits/{ref...}/status").
type route struct {
	method  string
	pattern string
	key     string // "METHOD /pattern" with "{x...}" written "{x}": the call-count key
	segs    []string
	auth    authKind
	repo    bool // pattern starts with /repos/{owner}/{repo}: 404 if absent
	handler func(*reqCtx)
}

func newRoute(method, pattern string, auth authKind, h func(*reqCtx)) *route {
	return &route{
		method:  method,
		pattern: pattern,
		key:     method + " " + strings.ReplaceAll(pattern, "...}", "}"),
		segs:    strings.Split(strings.Trim(pattern, "/"), "/"),
		auth:    auth,
		repo:    strings.HasPrefix(pattern, "/repos/{owner}/{repo}"),
		handler: h,
	}
}

// match finds the first route (in declaration order) matching method and
// path, with its parameters.
func (s *Server) match(method, path string) (*route, map[string]string) {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	for _, rt := range s.routes {
		if rt.method != method {
			continue
		}
		if params, ok := matchSegs(rt.segs, segs); ok {
			return rt, params
		}
	}
	return nil, nil
}

// matchSegs matches path segments against pattern segments.
func matchSegs(pat, segs []string) (map[string]string, bool) {
	rest := -1
	for i, p := range pat {
		if strings.HasPrefix(p, "{") && strings.HasSuffix(p, "...}") {
			rest = i
			break
		}
	}
	params := map[string]string{}
	one := func(p, v string) bool {
		if strings.HasPrefix(p, "{") && strings.HasSuffix(p, "}") {
			if v == "" {
				return false
			}
			params[p[1:len(p)-1]] = v
			return true
		}
		return p == v
	}
	if rest < 0 {
		if len(pat) != len(segs) {
			return nil, false
		}
		for i := range pat {
			if !one(pat[i], segs[i]) {
				return nil, false
			}
		}
		return params, true
	}
	suffix := pat[rest+1:]
	if len(segs) < len(pat) {
		return nil, false
	}
	for i := 0; i < rest; i++ {
		if !one(pat[i], segs[i]) {
			return nil, false
		}
	}
	tail := segs[len(segs)-len(suffix):]
	for i := range suffix {
		if !one(suffix[i], tail[i]) {
			return nil, false
		}
	}
	middle := segs[rest : len(segs)-len(suffix)]
	for _, m := range middle {
		if m == "" {
			return nil, false
		}
	}
	name := pat[rest]
	params[name[1:len(name)-4]] = strings.Join(middle, "/")
	return params, true
}

// buildRoutes declares every endpoint. More specific patterns come first.
func (s *Server) buildRoutes() []*route {
	const R = "/repos/{owner}/{repo}"
	get, post, patch, put, del := "GET", "POST", "PATCH", "PUT", "DELETE"
	return []*route{
		// GitHub App (JWT).
		newRoute(get, "/app", authApp, s.handleGetApp),
		newRoute(get, "/app/installations", authApp, s.handleListInstallations),
		newRoute(get, "/app/installations/{id}", authApp, s.handleGetInstallation),
		newRoute(post, "/app/installations/{id}/access_tokens", authApp, s.handleCreateToken),
		newRoute(get, R+"/installation", authApp, s.handleRepoInstallation),
		newRoute(get, "/orgs/{org}/installation", authApp, s.handleGetInstallation),
		newRoute(get, "/users/{user}/installation", authApp, s.handleGetInstallation),

		// The App manifest flow: a browser posts the form, the code is the credential.
		newRoute(post, "/settings/apps/new", authNone, s.handleNewAppFromManifest),
		newRoute(post, "/organizations/{org}/settings/apps/new", authNone, s.handleNewAppFromManifest),
		newRoute(post, "/app-manifests/{code}/conversions", authNone, s.handleManifestConversion),

		// The App's OAuth web flow (user sign-in) and the signed-in user.
		newRoute(get, "/login/oauth/authorize", authNone, s.handleOAuthAuthorize),
		newRoute(post, "/login/oauth/access_token", authNone, s.handleOAuthAccessToken),
		newRoute(get, "/user", authToken, s.handleGetAuthenticatedUser),
		newRoute(get, "/user/installations", authToken, s.handleUserInstallations),
		newRoute(get, "/user/installations/{id}/repositories", authToken, s.handleUserInstallationRepos),

		// GraphQL (the updateRefs mutation only).
		newRoute(post, "/graphql", authToken, s.handleGraphQL),
		newRoute(post, "/api/graphql", authToken, s.handleGraphQL),

		// Fake CI pages.
		newRoute(get, "/ci/runs/{id}", authNone, s.handleCIPage),

		// Repository, branches, protection, permissions.
		newRoute(get, R, authToken, handleGetRepo),
		newRoute(get, R+"/branches/{branch...}/protection/required_status_checks", authToken, handleGetRequiredChecks),
		newRoute(get, R+"/branches/{branch...}/protection", authToken, handleGetProtection),
		newRoute(get, R+"/branches/{branch...}", authToken, handleGetBranch),
		newRoute(get, R+"/branches", authToken, handleListBranches),
		newRoute(get, R+"/collaborators/{user}/permission", authToken, handleGetPermission),
		newRoute(put, R+"/contents/{path...}", authToken, handlePutContents),

		// Git refs and commits.
		newRoute(get, R+"/git/ref/{ref...}", authToken, handleGetRef),
		newRoute(get, R+"/git/refs/{ref...}", authToken, handleGetRefs),
		newRoute(get, R+"/git/refs", authToken, handleGetRefs),
		newRoute(get, R+"/git/matching-refs/{ref...}", authToken, handleMatchingRefs),
		newRoute(post, R+"/git/refs", authToken, handleCreateRef),
		newRoute(patch, R+"/git/refs/{ref...}", authToken, handleUpdateRef),
		newRoute(del, R+"/git/refs/{ref...}", authToken, handleDeleteRef),
		newRoute(get, R+"/git/commits/{sha}", authToken, handleGetGitCommit),
		newRoute(get, R+"/commits/{ref...}/status", authToken, handleCombinedStatus),
		newRoute(get, R+"/commits/{ref...}/statuses", authToken, handleListStatuses),
		newRoute(get, R+"/commits/{ref...}/check-runs", authToken, handleListCheckRuns),
		newRoute(get, R+"/commits/{ref...}", authToken, handleGetCommit),
		newRoute(get, R+"/compare/{basehead...}", authToken, handleCompare),
		newRoute(post, R+"/merges", authToken, handleMerge),

		// Pull requests.
		newRoute(get, R+"/pulls", authToken, handleListPulls),
		newRoute(post, R+"/pulls", authToken, handleCreatePull),
		newRoute(get, R+"/pulls/{number}", authToken, handleGetPull),
		newRoute(patch, R+"/pulls/{number}", authToken, handleUpdatePull),
		newRoute(put, R+"/pulls/{number}/merge", authToken, handleMergePull),
		newRoute(get, R+"/pulls/{number}/merge", authToken, handleIsMerged),

		// Issues: comments, reactions, labels.
		newRoute(get, R+"/issues/comments/{id}", authToken, handleGetComment),
		newRoute(patch, R+"/issues/comments/{id}", authToken, handleEditComment),
		newRoute(post, R+"/issues/comments/{id}/reactions", authToken, handleCreateReaction),
		newRoute(get, R+"/issues/comments/{id}/reactions", authToken, handleListReactions),
		newRoute(get, R+"/issues/{number}", authToken, handleGetIssue),
		newRoute(get, R+"/issues/{number}/comments", authToken, handleListComments),
		newRoute(post, R+"/issues/{number}/comments", authToken, handleCreateComment),
		newRoute(get, R+"/issues/{number}/labels", authToken, handleListLabels),
		newRoute(post, R+"/issues/{number}/labels", authToken, handleAddLabels),
		newRoute(del, R+"/issues/{number}/labels/{name...}", authToken, handleRemoveLabel),

		// Statuses, check runs, workflow runs.
		newRoute(post, R+"/statuses/{sha}", authToken, handleCreateStatus),
		newRoute(get, R+"/statuses/{ref...}", authToken, handleListStatuses),
		newRoute(post, R+"/check-runs", authToken, handleCreateCheckRun),
		newRoute(get, R+"/check-runs/{id}", authToken, handleGetCheckRun),
		newRoute(patch, R+"/check-runs/{id}", authToken, handleUpdateCheckRun),
		newRoute(get, R+"/actions/runs/{id}", authToken, handleGetWorkflowRun),
		newRoute(get, R+"/actions/runs", authToken, handleListWorkflowRuns),
		newRoute(post, R+"/actions/runs/{id}/rerun-failed-jobs", authToken, handleRerunFailedJobs),
		newRoute(post, R+"/check-suites/{id}/rerequest", authToken, handleRerequestCheckSuite),
	}
}
