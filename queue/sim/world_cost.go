package sim

import "github.com/mergequeue/mq/queue"

// What the World's calls would cost on GitHub.
//
// GitHub limits what an installation may send: 5,000 requests an hour in
// all, and among them at most 80 content-creating requests a minute and
// 500 an hour (its documented secondary limits; POST, PATCH, PUT and
// DELETE requests and GraphQL mutations). To tell whether a policy fits,
// the World charges every port call it serves with the requests the real
// client (githubx.Client) sends for the same call and the same state of
// the repository, as writes (content-creating) and reads:
//
//	call                 writes                                reads
//	GetPullRequest       –                                     1  GET pulls/{n}
//	BranchHead           –                                     1  GET branches/{b}
//	RequiredChecks       –                                     1  GET …/required_status_checks
//	Checks               –                                     2  GET commits/{sha}/statuses, …/check-runs
//	Permission           –                                     1
//	FindComment          –                                     1  (one page: the World keeps no comments)
//	FindCheckRun         –                                     1
//	ListBranches         –                                     1 per 100 branches listed (at least 1)
//	Contains, DiffFiles  –                                     1  GET compare
//	TreeSHA              –                                     1, or 0 for a commit the client built or
//	                                                              read before (githubx caches trees)
//	MergePullRequest     1  PUT pulls/{n}/merge                –
//	DeleteBranch         1  DELETE git/refs/heads/{b}          –
//	UpsertComment        1  PATCH, or POST to create           –
//	UpsertCheckRun       1  PATCH, or POST to create           –
//	AddReaction          1                                     –
//	DeleteBranches       1 GraphQL updateRefs per 100 names;   1 the first time (the repository's
//	                     when one of them is missing, GitHub   node id, kept by the client)
//	                     refuses the batch and each name is
//	                     deleted alone: +1 DELETE per name
//	BuildBranch          see buildCost                         1 the first time it publishes with
//	                                                              deletions (node id)
//	BuildBranch (git)    –                                     –  (see gitBuildCost: git requests only)
//	FirstParents         –                                     1 per commit read (GET git/commits)
//	FastForward          1  PATCH git/refs/heads/{b}           –  (with git builds: a push, git requests only)
//
// A request GitHub refuses (a 409 merge conflict, a 422 "reference already
// exists", a refused mutation) counts: it was sent. Not charged: the
// installation token (one POST an hour, authenticated as the app) and the
// requests of the periodic safety-net reads the simulator does not run
// (see runner_ours.go).

// GitHubCost counts GitHub API requests: Writes are the content-creating
// ones (POST, PATCH, PUT, DELETE, GraphQL mutations), Reads the others.
// Git counts the git smart HTTP requests of the git builder (fetches and
// pushes): neither, as GitHub counts them in no API limit.
type GitHubCost struct {
	Writes, Reads int
	Git           int
}

// Calls is the number of requests in all.
func (c GitHubCost) Calls() int { return c.Writes + c.Reads }

func (c GitHubCost) plus(o GitHubCost) GitHubCost {
	return GitHubCost{Writes: c.Writes + o.Writes, Reads: c.Reads + o.Reads, Git: c.Git + o.Git}
}

// fixedCosts are the calls whose cost does not depend on the repository's
// state (see the table above).
var fixedCosts = map[string]GitHubCost{
	"GetPullRequest":   {Reads: 1},
	"BranchHead":       {Reads: 1},
	"RequiredChecks":   {Reads: 1},
	"Checks":           {Reads: 2},
	"Permission":       {Reads: 1},
	"FindComment":      {Reads: 1},
	"FindCheckRun":     {Reads: 1},
	"Contains":         {Reads: 1},
	"DiffFiles":        {Reads: 1},
	"MergePullRequest": {Writes: 1},
	"DeleteBranch":     {Writes: 1},
	"UpsertComment":    {Writes: 1},
	"UpsertCheckRun":   {Writes: 1},
	"AddReaction":      {Writes: 1},
}

// listPage is GitHub's largest page, which the client asks for.
const listPage = 100

// maxRefUpdates is how many refs one GraphQL updateRefs changes (the
// client's batch).
const maxRefUpdates = 100

// listCost is a paged list of n items: one read per page, at least one.
func listCost(n int) GitHubCost {
	return GitHubCost{Reads: max(1, (n+listPage-1)/listPage)}
}

// treeCost is TreeSHA: free for a commit whose tree the client knows.
func treeCost(cached bool) GitHubCost {
	if cached {
		return GitHubCost{}
	}
	return GitHubCost{Reads: 1}
}

// setRefWrites is the client's setRef: POST git/refs, and when the ref
// exists already (422) a PATCH that moves it.
func setRefWrites(exists bool) int {
	if exists {
		return 2
	}
	return 1
}

// moveRefWrites is the client's moveRef, which moves a lane: a PATCH that
// moves it, and when it does not exist (422) a POST git/refs that creates
// it.
func moveRefWrites(exists bool) int {
	if exists {
		return 1
	}
	return 2
}

// nodeIDCost is the read of the repository's node id that precedes the
// client's first GraphQL mutation.
func nodeIDCost(known bool) GitHubCost {
	if known {
		return GitHubCost{}
	}
	return GitHubCost{Reads: 1}
}

// buildFacts are what decide the cost of one BuildBranch: the spec, and
// what GitHub holds and answers while it runs.
type buildFacts struct {
	spec queue.BranchSpec
	// laneAt is where the lane (spec.Temp with KeepTemp) points before the
	// build; "" when it does not exist.
	laneAt string
	// merges is the number of POST /merges that decide the result: one per
	// head, or up to and including the head that conflicted.
	merges int
	// published: the build got to publish spec.Name (no conflict, not a
	// probe).
	published bool
	// nameExists: spec.Name exists when it is published.
	nameExists bool
	// deleteRefused: a branch of spec.Delete is missing, so GitHub refuses
	// the updateRefs that publishes and deletes at once.
	deleteRefused bool
	// nodeIDKnown: the client read the repository's node id before.
	nodeIDKnown bool
	// fetch: the git builder's clone lacked a commit of the build.
	fetch bool
}

// buildCost is what githubx.Client.BuildBranch sends:
//
//   - The scratch ref. Without KeepTemp: created (it has a fresh name) and
//     deleted at the end, whatever happened: 2 writes. A lane (KeepTemp)
//     that spec.TempAt says is at From: nothing; one it says is elsewhere:
//     moved (moveRef: 1 write if it exists, 2 if it does not); one at
//     From by spec.TempAt but really elsewhere: the first merge shows it,
//     and the lane is moved and that merge made again (1 + moveRef).
//   - One POST /merges per head merged, the conflicting one included.
//   - The publish: with spec.Delete, one GraphQL updateRefs (after the
//     node id read, the first time); when GitHub refuses it, or without
//     spec.Delete, setRef on spec.Name (1 write, 2 if it exists).
func buildCost(f buildFacts) GitHubCost {
	s := f.spec
	var c GitHubCost
	switch {
	case !s.KeepTemp:
		c.Writes += 2
	case s.TempAt != s.From:
		c.Writes += moveRefWrites(f.laneAt != "")
	case f.laneAt != s.From && f.merges > 0:
		c.Writes += 1 + moveRefWrites(f.laneAt != "")
	}
	c.Writes += f.merges
	if !f.published {
		return c
	}
	if len(s.Delete) > 0 {
		c = c.plus(nodeIDCost(f.nodeIDKnown))
		c.Writes++
		if !f.deleteRefused {
			return c
		}
	}
	c.Writes += setRefWrites(f.nameExists)
	return c
}

// deleteBatchCost is one batch of DeleteBranches (at most maxRefUpdates
// names): one updateRefs, and when GitHub refuses it (a name is missing)
// one DELETE per name.
func deleteBatchCost(names int, refused, nodeIDKnown bool) GitHubCost {
	c := nodeIDCost(nodeIDKnown)
	c.Writes++
	if refused {
		c.Writes += names
	}
	return c
}

// gitRequests are the HTTP requests of one git fetch or push over smart
// HTTP: the ref discovery (GET info/refs) and the exchange (POST
// git-upload-pack or git-receive-pack).
const gitRequests = 2

// gitClone is what the git builder's clone holds: the commits it fetched
// or built, so that a fetch is charged only for a commit new to it.
type gitClone struct {
	has map[string]bool
}

// SetGitBuilds makes the World charge BuildBranch as the git builder
// (githubx.WithGitBuilds) sends it instead of the merges API's requests
// (gitBuildCost). The branches built are the same.
func (w *World) SetGitBuilds(on bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !on {
		w.git = nil
		return
	}
	w.git = &gitClone{has: map[string]bool{}}
}

// buildCostOf is what one build cost with the World's builder. Caller
// holds w.mu.
func (w *World) buildCostOf(f buildFacts) GitHubCost {
	if w.git == nil {
		return buildCost(f)
	}
	need := []string{f.spec.From}
	for _, h := range f.spec.Heads {
		need = append(need, h.SHA)
	}
	f.fetch = false
	for _, sha := range need {
		if !w.git.has[sha] {
			f.fetch, w.git.has[sha] = true, true
		}
	}
	return gitBuildCost(f)
}

// gitBuildCost is what the git builder sends for one BuildBranch: no API
// request at all. The merges are made in its clone (no scratch ref, no
// POST /merges), a probe stays there; a fetch when a commit is new to
// the clone (one fetch brings all of them) and one push that publishes
// spec.Name and deletes spec.Delete together: git requests only. (A
// clone's first use also costs the installation token, one POST an hour
// made as the App, which is not charged, as for the REST client.)
func gitBuildCost(f buildFacts) GitHubCost {
	var c GitHubCost
	if f.fetch {
		c.Git += gitRequests
	}
	if f.published {
		c.Git += gitRequests
	}
	return c
}
