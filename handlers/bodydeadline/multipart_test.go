package bodydeadline

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
)

func multipartFiles(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "multipart-*"))
	if err != nil {
		t.Error(err)
	}
	return files
}

// A handler behind the policy that parses a big multipart form leaves no
// temporary file once it returns: the policy hands it a copy of the
// request, which net/http does not clean up after. The check runs in a
// handler around the policy's, when the policy's has returned and before
// the server's own clean-up of the original request.
func TestMultipartFilesOfTheCopyAreRemoved(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	parsed := make(chan bool, 1)
	left := make(chan []string, 1)
	inner := testPolicy.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		err := r.ParseMultipartForm(1 << 10)
		parsed <- err == nil && len(multipartFiles(t, tmp)) == 1
	}))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inner.ServeHTTP(w, r)
		left <- multipartFiles(t, tmp)
	}))
	defer srv.Close()

	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	part, err := mw.CreateFormFile("upload", "big.bin")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = part.Write(bytes.Repeat([]byte("x"), 1<<20))
	_ = mw.Close()
	resp, err := srv.Client().Post(srv.URL, mw.FormDataContentType(), &body)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if !<-parsed {
		t.Fatal("the form did not go to a temporary file: the test proves nothing")
	}
	if files := <-left; len(files) != 0 {
		t.Errorf("temporary files left after the handler: %v", files)
	}
}
