package requestid

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/rs/zerolog"
)

// bigForm is a multipart form whose one file part (size bytes) cannot stay
// in memory under ParseMultipartForm(1 KiB): it goes to a temporary file.
func bigForm(t *testing.T, size int) (body *bytes.Buffer, contentType string) {
	t.Helper()
	body = &bytes.Buffer{}
	mw := multipart.NewWriter(body)
	part, err := mw.CreateFormFile("upload", "big.bin")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := part.Write(bytes.Repeat([]byte("x"), size)); err != nil {
		t.Fatal(err)
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return body, mw.FormDataContentType()
}

func multipartFiles(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "multipart-*"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// A handler behind the middleware that parses a big multipart form leaves
// no temporary file once the request is served: the middleware hands it a
// copy of the request, which net/http does not clean up after.
func TestMultipartFilesOfTheCopyAreRemoved(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	parsed := false
	h := Middleware(zerolog.Nop(), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseMultipartForm(1 << 10); err != nil {
			t.Errorf("ParseMultipartForm: %v", err)
			return
		}
		parsed = len(multipartFiles(t, tmp)) == 1
	}))
	body, ct := bigForm(t, 1<<20)
	req := httptest.NewRequest(http.MethodPost, "/upload", body)
	req.Header.Set("Content-Type", ct)
	h.ServeHTTP(httptest.NewRecorder(), req)
	if !parsed {
		t.Fatal("the form did not go to a temporary file: the test proves nothing")
	}
	if left := multipartFiles(t, tmp); len(left) != 0 {
		t.Errorf("temporary files left after the request: %v", left)
	}
}

// A form parsed before the middleware belongs to whoever parsed it: the
// middleware leaves its files alone.
func TestMultipartFilesOfTheOriginalAreKept(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	body, ct := bigForm(t, 1<<20)
	req := httptest.NewRequest(http.MethodPost, "/upload", body)
	req.Header.Set("Content-Type", ct)
	if err := req.ParseMultipartForm(1 << 10); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := req.MultipartForm.RemoveAll(); err != nil {
			t.Errorf("failed to remove the form's files: %v", err)
		}
	})
	Middleware(zerolog.Nop(), http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})).ServeHTTP(httptest.NewRecorder(), req)
	if left := multipartFiles(t, tmp); len(left) != 1 {
		t.Errorf("the original's form files: %v, want the one still there", left)
	}
}
