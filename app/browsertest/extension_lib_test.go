package browsertest

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// The extension's pure module (extension/lib/mq.js) passes its unit tests
// (extension/test/mq_test.js) in Chromium.
func TestExtensionLibrary(t *testing.T) {
	ctx := tab(t)
	srv := httptest.NewServer(http.FileServer(http.Dir(filepath.Join("..", "..", "extension"))))
	defer srv.Close()
	step(t, ctx, "open the extension's unit tests", chromedp.Navigate(srv.URL+"/test/mq_test.html"))
	waitJS(t, ctx, "the unit tests to finish", `document.getElementById("report").dataset.done !== undefined`,
		`document.body.innerText`)
	type report struct {
		Passed   int      `json:"passed"`
		Failures []string `json:"failures"`
	}
	r := evaluate(t, ctx, "read the report", chromedp.Evaluate[report](`window.mqTestReport`))
	if len(r.Failures) > 0 {
		t.Errorf("%d of the extension's unit tests failed:\n%s", len(r.Failures), strings.Join(r.Failures, "\n"))
	}
	if r.Passed < 30 {
		t.Errorf("only %d unit tests passed; the suite has more (did it stop early?)", r.Passed)
	}
}
