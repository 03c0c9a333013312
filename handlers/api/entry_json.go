package api

import "github.com/mergequeue/mq/queue"

// defaultPriorityName is reported when an entry's priority was not given.
const defaultPriorityName = "medium"

// pullRequestJSON is an entry as seed §2.4 shows it (an element of
// getQueue's enqueuedPullRequests, and the base of getSubmittedPullRequest).
// Every field is always present.
type pullRequestJSON struct {
	ID             string `json:"id"`
	State          string `json:"state"`
	StateChangedAt string `json:"stateChangedAt"`
	PriorityValue  int    `json:"priorityValue"`
	PriorityName   string `json:"priorityName"`
	// UsedDefaultPriorityName is the name of the default priority that
	// was applied when the submitter gave none ("medium"), else "". Never
	// null: the hosted API's clients type it string (see docs/api.md); ""
	// keeps "no default applied" falsy for a client testing it.
	UsedDefaultPriorityName string `json:"usedDefaultPriorityName"`
	SkipTheLine             bool   `json:"skipTheLine"`
	NoBatch                 bool   `json:"noBatch"`
	PRNumber                int    `json:"prNumber"`
	PRTitle                 string `json:"prTitle"`
	PRSHA                   string `json:"prSha"`
	PRBaseBranch            string `json:"prBaseBranch"`
	PRAuthor                string `json:"prAuthor"`
}

// newPullRequestJSON renders e. prSha is the head the entry was submitted
// with (the only one the queue will test or merge); skipTheLine is true for
// priority 0 (urgent).
func newPullRequestJSON(e *queue.Entry) pullRequestJSON {
	usedDefault := ""
	if e.UsedDefaultPriorityName {
		usedDefault = e.PriorityName
		if usedDefault == "" {
			usedDefault = defaultPriorityName
		}
	}
	return pullRequestJSON{
		ID:                      e.ID,
		State:                   string(e.State),
		StateChangedAt:          timestamp(e.StateChangedAt),
		PriorityValue:           e.PriorityValue,
		PriorityName:            e.PriorityName,
		UsedDefaultPriorityName: usedDefault,
		SkipTheLine:             e.PriorityValue == 0,
		NoBatch:                 e.NoBatch,
		PRNumber:                e.PRNumber,
		PRTitle:                 e.PR.Title,
		PRSHA:                   e.PRSHA,
		PRBaseBranch:            e.PR.BaseBranch,
		PRAuthor:                e.PR.Author,
	}
}
