package githubx

import (
	"testing"

	"github.com/google/go-github/v66/github"
)

// URLs read back from GitHub's status and check-run lists are validated
// like those of webhooks: a hostile target_url or details_url is dropped.
func TestChecksValidateCIURLs(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ raw, want string }{
		{"https://ci.example/build/7", "https://ci.example/build/7"},
		{"javascript:alert(1)", ""},
		{"<!channel>", ""},
		{"](http://evil)", ""},
		{"![x](http://evil/x.png)", ""},
		{"https://ci.example/(x)", "https://ci.example/%28x%29"},
	} {
		st := statusResult("s", &github.RepoStatus{Context: github.String("ci"), State: github.String("failure"), TargetURL: github.String(c.raw)})
		mustEqual(t, "status URL of "+c.raw, st.URL, c.want)
		cr := checkRunResult("s", &github.CheckRun{Name: github.String("ci"), Status: github.String("completed"),
			Conclusion: github.String("failure"), DetailsURL: github.String(c.raw), HTMLURL: github.String(c.raw)})
		mustEqual(t, "check run URL of "+c.raw, cr.URL, c.want)
	}
	cr := checkRunResult("s", &github.CheckRun{Name: github.String("ci"), DetailsURL: github.String("javascript:x"),
		HTMLURL: github.String("https://github.example/o/r/runs/1")})
	mustEqual(t, "check run URL with a bad details_url", cr.URL, "https://github.example/o/r/runs/1")
}
