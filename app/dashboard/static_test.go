package dashboard

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"path"
	"strings"
	"testing"
)

// /static/ serves the dashboard's stylesheet and script and nothing else:
// no directory listing, no template, no other file.
func TestStaticServesOnlyAssets(t *testing.T) {
	d := newDashEnv(t, AccessPublic)
	for path, typ := range map[string]string{"/static/style.css": "text/css", "/static/live.js": "text/javascript"} {
		rec := d.do("GET", path, nil)
		if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), typ) || rec.Body.Len() == 0 {
			t.Errorf("GET %s: %d %q (%d bytes), want 200 %s", path, rec.Code, rec.Header().Get("Content-Type"), rec.Body.Len(), typ)
		}
	}
	for _, path := range []string{"/static/", "/static/.", "/static/layout.html", "/static/login.html", "/static/home.html",
		"/static/web/style.css", "/static/nope.css", "/static/%2e%2e/app.go"} {
		rec := d.do("GET", path, nil)
		for at, hops := path, 0; rec.Code/100 == 3 && hops < 3; hops++ { // the path cleaned: follow
			next, err := url.Parse(rec.Header().Get("Location"))
			if err != nil {
				t.Fatal(err)
			}
			at = (&url.URL{Path: at}).ResolveReference(next).Path
			rec = d.do("GET", at, nil)
		}
		body := rec.Body.String()
		if rec.Code != http.StatusNotFound || strings.Contains(body, "style.css") || strings.Contains(body, "{{") {
			t.Errorf("GET %s: %d, want 404 and nothing of the files:\n%s", path, rec.Code, body)
		}
	}
}

// Whatever path is asked for under /static/, only an asset answers 200,
// and no answer holds a template.
func FuzzStaticAssets(f *testing.F) {
	for _, p := range []string{"style.css", "live.js", "", ".", "layout.html", "../web/layout.html", "x/../style.css", "%2e%2e/app.go", "style.css/"} {
		f.Add(p)
	}
	h := staticAssets()
	f.Fuzz(func(t *testing.T, p string) {
		u, err := url.Parse("/static/" + p)
		if err != nil || u.Host != "" || u.Scheme != "" {
			return
		}
		req, err := http.NewRequest(http.MethodGet, "http://mq.example"+u.RequestURI(), nil)
		if err != nil {
			return
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if strings.Contains(rec.Body.String(), "{{") {
			t.Fatalf("GET %q served a template:\n%s", req.URL.Path, rec.Body)
		}
		if rec.Code == http.StatusOK {
			name := path.Clean("/" + strings.TrimPrefix(req.URL.Path, "/static/"))
			if name != "/style.css" && name != "/live.js" {
				t.Fatalf("GET %q: 200 for something other than an asset", req.URL.Path)
			}
		}
	})
}
