package browsertest

import (
	"fmt"
	"html/template"
	"net"
	"net/http"
	"strconv"
	"testing"
)

// prPage is GitHub's pull request page reduced to what the extension
// reads: the URL /<owner>/<repo>/pull/<number> and the header naming the
// base branch in a `.commit-ref.base-ref` element (see
// BASE_BRANCH_SELECTORS in extension/lib/mq.js), as github.com renders it.
var prPage = template.Must(template.New("pr").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}} by alice · Pull Request #{{.Number}} · {{.Owner}}/{{.Repo}}</title>
<style>
body{margin:0;font:14px/1.5 -apple-system,"Segoe UI",sans-serif;color:#1f2328}
header.AppHeader{background:#f6f8fa;border-bottom:1px solid #d0d7de;padding:12px 24px;font-weight:600}
main{max-width:1012px;margin:24px auto;padding:0 16px}
h1.gh-header-title{font-size:26px;font-weight:400;margin:0 0 8px}
.gh-header-number{color:#59636e}
.State{display:inline-block;padding:4px 12px;border-radius:2em;background:#1f883d;color:#fff;font-weight:500;margin-right:8px}
.commit-ref{font-family:ui-monospace,monospace;font-size:12px;background:#ddf4ff;color:#0969da;padding:2px 6px;border-radius:6px}
.timeline{margin-top:24px;border:1px solid #d0d7de;border-radius:6px;padding:16px;min-height:320px}
</style></head>
<body>
<header class="AppHeader">{{.Owner}} / {{.Repo}}</header>
<main>
<div id="partial-discussion-header" class="gh-header">
<h1 class="gh-header-title"><bdi class="js-issue-title">{{.Title}}</bdi> <span class="gh-header-number">#{{.Number}}</span></h1>
<div class="gh-header-meta"><span class="State State--open">Open</span>
<a class="author">alice</a> wants to merge 1 commit into
<span class="commit-ref base-ref" title="{{.Owner}}/{{.Repo}}:{{.Base}}"><a><span class="css-truncate-target">{{.Base}}</span></a></span>
from <span class="commit-ref head-ref" title="{{.Owner}}/{{.Repo}}:{{.Head}}"><a><span class="css-truncate-target">{{.Head}}</span></a></span>
</div></div>
<div class="timeline"><p>alice opened this pull request.</p></div>
</main></body></html>`))

// prPageData is one pull request the page server shows.
type prPageData struct {
	Owner, Repo, Title, Base, Head string
	Number                         int
}

// startPRPages serves GitHub-like PR pages for prs (by number) on a
// loopback port and returns its base URL (http://127.0.0.1:<port>).
func startPRPages(t *testing.T, prs map[int]prPageData) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("failed to listen for the PR pages: %v", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{owner}/{repo}/pull/{number}", func(w http.ResponseWriter, r *http.Request) {
		n, err := strconv.Atoi(r.PathValue("number"))
		pr, ok := prs[n]
		if err != nil || !ok || r.PathValue("owner") != pr.Owner || r.PathValue("repo") != pr.Repo {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if err := prPage.Execute(w, pr); err != nil {
			t.Errorf("failed to render the PR page: %v", err)
		}
	})
	srv := &http.Server{Handler: mux}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return fmt.Sprintf("http://%s", ln.Addr())
}
