package fakegithub

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/google/go-github/v66/github"
)

// labelsJSON renders a PR's labels. Caller holds r.mu.
func (r *repo) labelsJSON(pr *pullRequest) []*github.Label {
	out := []*github.Label{}
	for _, l := range pr.labels {
		out = append(out, r.apiLabel(l))
	}
	return out
}

// addLabel adds a label (no-op if present), sending "labeled". Caller holds
// r.mu.
func (r *repo) addLabel(pr *pullRequest, label, sender string) {
	for _, l := range pr.labels {
		if strings.EqualFold(l, label) {
			return
		}
	}
	pr.labels = append(pr.labels, label)
	pr.updatedAt = time.Now().UTC()
	r.emitPR(pr, "labeled", sender, func(ev *github.PullRequestEvent) { ev.Label = r.apiLabel(label) })
}

// removeLabel removes a label, sending "unlabeled"; false if absent.
// Caller holds r.mu.
func (r *repo) removeLabel(pr *pullRequest, label, sender string) bool {
	for i, l := range pr.labels {
		if strings.EqualFold(l, label) {
			pr.labels = append(pr.labels[:i:i], pr.labels[i+1:]...)
			pr.updatedAt = time.Now().UTC()
			r.emitPR(pr, "unlabeled", sender, func(ev *github.PullRequestEvent) { ev.Label = r.apiLabel(l) })
			return true
		}
	}
	return false
}

func handleListLabels(c *reqCtx) {
	r := c.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	pr, ok := c.prOrFail()
	if !ok {
		return
	}
	c.json(http.StatusOK, page(c, r.labelsJSON(pr)))
}

// parseLabels accepts ["a"], {"labels":["a"]} and {"labels":[{"name":"a"}]}.
func parseLabels(raw json.RawMessage) ([]string, bool) {
	var list []string
	if json.Unmarshal(raw, &list) == nil {
		return list, true
	}
	var obj struct {
		Labels json.RawMessage `json:"labels"`
	}
	if json.Unmarshal(raw, &obj) != nil || obj.Labels == nil {
		return nil, false
	}
	if json.Unmarshal(obj.Labels, &list) == nil {
		return list, true
	}
	var named []struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(obj.Labels, &named) != nil {
		return nil, false
	}
	for _, n := range named {
		list = append(list, n.Name)
	}
	return list, true
}

func handleAddLabels(c *reqCtx) {
	var raw json.RawMessage
	if !c.decode(&raw) {
		return
	}
	labels, ok := parseLabels(raw)
	if !ok {
		c.error(http.StatusUnprocessableEntity, "Validation Failed: labels must be a list of names")
		return
	}
	r := c.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	pr, ok := c.prOrFail()
	if !ok {
		return
	}
	for _, l := range labels {
		if l != "" {
			r.addLabel(pr, l, c.actor)
		}
	}
	c.json(http.StatusOK, r.labelsJSON(pr))
}

func handleRemoveLabel(c *reqCtx) {
	r := c.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	pr, ok := c.prOrFail()
	if !ok {
		return
	}
	if !r.removeLabel(pr, c.params["name"], c.actor) {
		c.error(http.StatusNotFound, "Label does not exist")
		return
	}
	c.json(http.StatusOK, r.labelsJSON(pr))
}
