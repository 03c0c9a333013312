package dashboard

import (
	"io/fs"
	"net/http"
	"path"
)

// assetTypes are the file extensions served under /static/: the
// dashboard's stylesheet, script and images. Templates (.html) are not
// among them.
var assetTypes = map[string]bool{".css": true, ".js": true, ".png": true, ".ico": true}

// staticAssets serves the dashboard's assets under /static/: the files of
// web/ whose extension is in assetTypes and nothing else. A template, any
// other file and any directory (no listings) are 404.
func staticAssets() http.Handler {
	sub, err := fs.Sub(webFS, "web")
	if err != nil {
		panic(err) // "web" is a valid path, embedded at build time
	}
	return http.StripPrefix("/static/", http.FileServerFS(assetFS{sub}))
}

// assetFS opens only asset files of fsys (see staticAssets).
type assetFS struct{ fsys fs.FS }

func (a assetFS) Open(name string) (fs.File, error) {
	notFound := &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	if !assetTypes[path.Ext(name)] {
		return nil, notFound
	}
	f, err := a.fsys.Open(name)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		_ = f.Close()
		return nil, notFound
	}
	return f, nil
}
