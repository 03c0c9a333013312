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
	// UsedDefaultPriorityName is typed string by the seed while the domain
	// keeps a bool. Decision: when the submitter gave no priority it is the
	// name of the default priority that was applied (the entry's
	// priorityName, "medium"); when a priority was given it is null. A
	// client testing it for presence and one reading it as a name both get
	// a truthful answer, and its JSON type is always string or null.
	UsedDefaultPriorityName *string `json:"usedDefaultPriorityName"`
	SkipTheLine             bool    `json:"skipTheLine"`
	NoBatch                 bool    `json:"noBatch"`
	PRNumber                int     `json:"prNumber"`
	PRTitle                 string  `json:"prTitle"`
	PRSHA                   string  `json:"prSha"`
	PRBaseBranch            string  `json:"prBaseBranch"`
	PRAuthor                string  `json:"prAuthor"`
}

// newPullRequestJSON renders e. prSha is the head the entry was submitted
// with (the only one the queue will test or merge); skipTheLine is true for
// priority 0 (urgent).
func newPullRequestJSON(e *queue.Entry) pullRequestJSON {
	var usedDefault *string
	if e.UsedDefaultPriorityName {
		name := e.PriorityName
		if name == "" {
			name = defaultPriorityName
		}
		usedDefault = &name
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
