package ghfacts

import (
	"strconv"
	"time"

	"github.com/google/go-github/v66/github"

	"github.com/mergequeue/mq/queue"
)

// The Webhook* types below hold the members of webhook objects the
// mappings read, decoded leniently: GitHub's payloads carry members in
// forms go-github cannot decode (an App's created_at written
// "2018-04-25 20:42:10"), and a member nothing reads must not make an
// event drop. Each Facts method hands the members, as go-github's type,
// to the mapping the REST reads use.

// Time is a timestamp decoded leniently: every form go-github's Timestamp
// reads (an RFC 3339 string; a number of Unix seconds, or of milliseconds
// when seconds would be past the year 3000), and strings written
// "2006-01-02 15:04:05" (UTC) or "2006-01-02 15:04:05 -0700". Anything
// else, null included, decodes to the zero time: decoding never fails.
// The time is in UTC.
type Time struct{ time.Time }

// lenientLayouts are the string forms Time reads beyond go-github's.
var lenientLayouts = []string{time.RFC3339Nano, "2006-01-02 15:04:05", "2006-01-02 15:04:05 -0700"}

// UnmarshalJSON implements json.Unmarshaler; it never fails.
func (t *Time) UnmarshalJSON(b []byte) error {
	t.Time = time.Time{}
	var ts github.Timestamp
	if err := ts.UnmarshalJSON(b); err == nil {
		t.Time = ts.UTC()
		return nil
	}
	s, err := strconv.Unquote(string(b))
	if err != nil {
		return nil
	}
	for _, layout := range lenientLayouts {
		if v, err := time.Parse(layout, s); err == nil {
			t.Time = v.UTC()
			return nil
		}
	}
	return nil
}

// timestamp is t as go-github holds it: nil for the zero time.
func (t Time) timestamp() *github.Timestamp {
	if t.IsZero() {
		return nil
	}
	return &github.Timestamp{Time: t.Time}
}

// WebhookUser is the part of a user object the mappings read.
type WebhookUser struct {
	Login string `json:"login"`
}

// WebhookRef is the part of a pull request's head or base the mappings
// read. Repo is nil when GitHub sends none (a deleted fork).
type WebhookRef struct {
	Ref  string `json:"ref"`
	SHA  string `json:"sha"`
	Repo *struct {
		FullName string `json:"full_name"`
	} `json:"repo"`
}

func (r WebhookRef) github() *github.PullRequestBranch {
	b := &github.PullRequestBranch{Ref: github.String(r.Ref), SHA: github.String(r.SHA)}
	if r.Repo != nil {
		b.Repo = &github.Repository{FullName: github.String(r.Repo.FullName)}
	}
	return b
}

// WebhookPullRequest is the part of a webhook's pull_request object the
// mappings read.
type WebhookPullRequest struct {
	Number         int         `json:"number"`
	Title          string      `json:"title"`
	Body           *string     `json:"body"`
	State          string      `json:"state"`
	Draft          bool        `json:"draft"`
	Merged         bool        `json:"merged"`
	MergeCommitSHA *string     `json:"merge_commit_sha"`
	Mergeable      *bool       `json:"mergeable"`
	MergeableState string      `json:"mergeable_state"`
	User           WebhookUser `json:"user"`
	Head           WebhookRef  `json:"head"`
	Base           WebhookRef  `json:"base"`
	UpdatedAt      Time        `json:"updated_at"`
}

// Facts is PullRequest of the object.
func (p *WebhookPullRequest) Facts() queue.PullRequest {
	return PullRequest(&github.PullRequest{
		Number:         github.Int(p.Number),
		Title:          github.String(p.Title),
		Body:           p.Body,
		State:          github.String(p.State),
		Draft:          github.Bool(p.Draft),
		Merged:         github.Bool(p.Merged),
		MergeCommitSHA: p.MergeCommitSHA,
		Mergeable:      p.Mergeable,
		MergeableState: github.String(p.MergeableState),
		User:           &github.User{Login: github.String(p.User.Login)},
		Head:           p.Head.github(),
		Base:           p.Base.github(),
		UpdatedAt:      p.UpdatedAt.timestamp(),
	})
}

// WebhookCheckRun is the part of a webhook's check_run object the
// mappings read.
type WebhookCheckRun struct {
	Name        string `json:"name"`
	HeadSHA     string `json:"head_sha"`
	Status      string `json:"status"`
	Conclusion  string `json:"conclusion"`
	HTMLURL     string `json:"html_url"`
	DetailsURL  string `json:"details_url"`
	StartedAt   Time   `json:"started_at"`
	CompletedAt Time   `json:"completed_at"`
	// ID, CheckSuite and App say which run of the check this is and how
	// to re-run it.
	ID         int64 `json:"id"`
	CheckSuite struct {
		ID int64 `json:"id"`
	} `json:"check_suite"`
	App struct {
		Slug string `json:"slug"`
	} `json:"app"`
}

// Facts is CheckRun of the object.
func (r *WebhookCheckRun) Facts() queue.CheckResult {
	return CheckRun(&github.CheckRun{
		Name:        github.String(r.Name),
		HeadSHA:     github.String(r.HeadSHA),
		Status:      github.String(r.Status),
		Conclusion:  github.String(r.Conclusion),
		HTMLURL:     github.String(r.HTMLURL),
		DetailsURL:  github.String(r.DetailsURL),
		StartedAt:   r.StartedAt.timestamp(),
		CompletedAt: r.CompletedAt.timestamp(),
		ID:          github.Int64(r.ID),
		CheckSuite:  &github.CheckSuite{ID: github.Int64(r.CheckSuite.ID)},
		App:         &github.App{Slug: github.String(r.App.Slug)},
	})
}

// WebhookStatus is the part of a status webhook the mappings read: the
// payload itself is the status, with the commit it is on.
type WebhookStatus struct {
	SHA       string `json:"sha"`
	State     string `json:"state"`
	Context   string `json:"context"`
	TargetURL string `json:"target_url"`
	CreatedAt Time   `json:"created_at"`
	UpdatedAt Time   `json:"updated_at"`
}

// Facts is Status of the payload's status on its sha.
func (s *WebhookStatus) Facts() queue.CheckResult {
	return Status(s.SHA, &github.RepoStatus{
		State:     github.String(s.State),
		Context:   github.String(s.Context),
		TargetURL: github.String(s.TargetURL),
		CreatedAt: s.CreatedAt.timestamp(),
		UpdatedAt: s.UpdatedAt.timestamp(),
	})
}
