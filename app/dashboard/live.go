package dashboard

import (
	"crypto/sha256"
	"encoding/hex"
	"html/template"
	"net/http"
	"strings"

	"github.com/mergequeue/mq/queue"
)

// queuesFragment renders the queue views alone (all queues the viewer may
// read, or those of ?repo=owner/name), for live.js to swap in without a
// full reload (see renderFragment).
func (d *Dashboard) queuesFragment(w http.ResponseWriter, r *http.Request) {
	var only *queue.Repo
	if full := r.URL.Query().Get("repo"); full != "" {
		owner, name, _ := strings.Cut(full, "/")
		repo, ok := d.repoNamed(owner, name)
		if !ok {
			http.Error(w, "repo: "+full+" is not owner/name", http.StatusBadRequest)
			return
		}
		only = &repo
	}
	repos, err := d.visibleQueues(r.Context(), viewerFrom(r.Context()), only)
	if err != nil {
		internalError(w, r, "dashboard: failed to read the queues", err)
		return
	}
	d.renderFragment(w, r, homeTmpl, "queues", map[string]any{"Repos": repos})
}

// renderFragment renders a part of a page for live.js. Its ETag is a hash
// of the rendering: a poll with a matching If-None-Match gets 304, so an
// idle dashboard transfers nothing.
func (d *Dashboard) renderFragment(w http.ResponseWriter, r *http.Request, tmpl *template.Template, name string, data any) {
	body, ok := d.execute(w, r, tmpl, name, data)
	if !ok {
		return
	}
	sum := sha256.Sum256(body)
	etag := `"` + hex.EncodeToString(sum[:12]) + `"`
	w.Header().Set("ETag", etag)
	w.Header().Set("Cache-Control", "no-cache")
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(body)
}
