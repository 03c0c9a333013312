package dashboard

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mergequeue/mq/handlers/api/apitoken"
)

// countingReader counts what the client has taken from its body.
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// repeatReader yields the same byte for ever (a body generated, never held
// in memory).
type repeatReader byte

func (b repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}

// multipartBomb is a multipart/form-data body of exactly size bytes whose
// one file part, named token, is as big as the rest allows: what made
// POST /login spool 200 MiB to $TMPDIR and keep it.
func multipartBomb(size int64) (io.Reader, string) {
	const boundary = "bomb"
	head := "--" + boundary + "\r\nContent-Disposition: form-data; name=\"token\"; filename=\"t\"\r\n\r\n"
	tail := "\r\n--" + boundary + "--\r\n"
	filler := size - int64(len(head)+len(tail))
	return io.MultiReader(strings.NewReader(head), io.LimitReader(repeatReader('a'), filler), strings.NewReader(tail)),
		"multipart/form-data; boundary=" + boundary
}

func leftFiles(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// A 200 MiB multipart POST /login, as an outsider may send without signing
// in, is refused on its headers: 413 while the client has sent next to
// nothing, and no temporary file is left behind.
func TestSignInRefusesAHugeMultipartBodyEarly(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	d := newDashEnv(t, "")
	srv := httptest.NewServer(d.mux)
	defer srv.Close()

	const size = 200 << 20
	gen, contentType := multipartBomb(size)
	body := &countingReader{r: gen}
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/login", body)
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = size
	req.Header.Set("Content-Type", contentType)
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatalf("POST /login: %v (after the client sent %d bytes)", err, body.n.Load())
	}
	msg, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("POST /login of 200 MiB: %d %s, want 413", res.StatusCode, msg)
	}
	// The client writes while it waits; what the kernel buffers is a few
	// MiB at most, far from the 200 MiB an unbounded read takes.
	if sent := body.n.Load(); sent > 32<<20 {
		t.Errorf("the client sent %d MiB before the answer: the body was read", sent>>20)
	}
	srv.Close() // every handler has returned
	if left := leftFiles(t, tmp); len(left) != 0 {
		t.Errorf("POST /login left files in $TMPDIR: %v", left)
	}
}

// The refusal does not wait for the body: with only the headers of a
// 200 MiB POST sent, the answer comes.
func TestSignInAnswersOnTheHeaders(t *testing.T) {
	d := newDashEnv(t, "")
	srv := httptest.NewServer(d.mux)
	defer srv.Close()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	fmt.Fprintf(conn, "POST /login HTTP/1.1\r\nHost: %s\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: %d\r\n\r\n",
		srv.Listener.Addr(), 200<<20)
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to the headers alone: %v", err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("status %d, want 413", res.StatusCode)
	}
}

// The sign-in and sign-out forms take only small url-encoded bodies: any
// other type is 415, a declared or actual size over 4 KiB 413, and none of
// these signs anyone in.
func TestSignInFormLimits(t *testing.T) {
	d := newDashEnv(t, "")
	send := func(path, contentType string, body io.Reader, length int64) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodPost, path, body)
		r.ContentLength = length
		if contentType != "" {
			r.Header.Set("Content-Type", contentType)
		}
		rec := httptest.NewRecorder()
		d.mux.ServeHTTP(rec, r)
		return rec
	}
	bomb, multipartType := multipartBomb(64 << 10)
	big := url.Values{"token": {strings.Repeat("a", 5<<10)}}.Encode()
	cases := []struct {
		name, path, contentType string
		body                    io.Reader
		length                  int64
		want                    int
	}{
		{"multipart", "/login", multipartType, bomb, 64 << 10, http.StatusRequestEntityTooLarge},
		{"small multipart", "/login", "multipart/form-data; boundary=b", strings.NewReader("--b--\r\n"), 7, http.StatusUnsupportedMediaType},
		{"chunked multipart", "/login", "multipart/form-data; boundary=b", strings.NewReader("--b--\r\n"), -1, http.StatusUnsupportedMediaType},
		{"JSON", "/login", "application/json", strings.NewReader(`{"token":"x"}`), 13, http.StatusUnsupportedMediaType},
		{"no type", "/login", "", strings.NewReader("token=x"), 7, http.StatusUnsupportedMediaType},
		{"declared over 4 KiB", "/login", formContentType, strings.NewReader(big), int64(len(big)), http.StatusRequestEntityTooLarge},
		{"chunked over 4 KiB", "/login", formContentType, strings.NewReader(big), -1, http.StatusRequestEntityTooLarge},
		{"sign-out multipart", "/logout", "multipart/form-data; boundary=b", strings.NewReader("--b--\r\n"), 7, http.StatusUnsupportedMediaType},
		{"sign-out over 4 KiB", "/logout", formContentType, strings.NewReader(big), int64(len(big)), http.StatusRequestEntityTooLarge},
	}
	for _, c := range cases {
		rec := send(c.path, c.contentType, c.body, c.length)
		if rec.Code != c.want || len(rec.Result().Cookies()) != 0 {
			t.Errorf("%s: %d, cookies %v; want %d and none", c.name, rec.Code, rec.Result().Cookies(), c.want)
		}
	}
	// An empty sign-out needs no type.
	if rec := send("/logout", "", http.NoBody, 0); rec.Code != http.StatusSeeOther {
		t.Errorf("empty sign-out: %d", rec.Code)
	}
}

// A sign-in or sign-out posted from another site (CSRF) is refused with
// 403 and changes nothing; the dashboard's own form, a script without
// browser headers and the configured public URL's origin get through.
func TestSignInFormsRefuseCrossOrigin(t *testing.T) {
	d := newDashEnv(t, AccessToken)
	secret, _, err := apitoken.Issue(context.Background(), d.store, "t", nil, nil, 0, d.now)
	d.must(err)
	form := url.Values{"token": {secret}}
	cases := []struct {
		name   string
		header []string
		want   int
	}{
		{"Sec-Fetch-Site cross-site", []string{"Sec-Fetch-Site", "cross-site"}, http.StatusForbidden},
		{"Sec-Fetch-Site same-site", []string{"Sec-Fetch-Site", "same-site"}, http.StatusForbidden},
		{"foreign Origin", []string{"Origin", "https://evil.example"}, http.StatusForbidden},
		{"Origin null", []string{"Origin", "null"}, http.StatusForbidden},
		{"Sec-Fetch-Site same-origin", []string{"Sec-Fetch-Site", "same-origin"}, http.StatusSeeOther},
		{"Origin of the request's host", []string{"Origin", "http://example.com"}, http.StatusSeeOther},
		{"Origin of the public URL", []string{"Origin", "http://localhost:8080"}, http.StatusSeeOther},
		{"no browser header", nil, http.StatusSeeOther},
	}
	for _, c := range cases {
		for _, path := range []string{"/login", "/logout"} {
			rec := d.do("POST", path, form, c.header...)
			if rec.Code != c.want {
				t.Errorf("%s: POST %s: %d, want %d", c.name, path, rec.Code, c.want)
			}
			if rec.Code == http.StatusForbidden && len(rec.Result().Cookies()) != 0 {
				t.Errorf("%s: POST %s refused but set cookies %v", c.name, path, rec.Result().Cookies())
			}
		}
	}
}
