package api

import (
	"io/fs"
	"net/http"
	"path"
	"strings"
)

// The browser UI: the built frontend, served at / so that
// http://127.0.0.1:3080/ works in any browser. Paths that are not files
// get index.html (the UI routes itself); nothing under /v2 is served here.

// NotBuiltPage answers when the binary was built without the frontend.
const NotBuiltPage = `<!doctype html><meta charset="utf-8"><title>nodedesk</title>
<body style="font-family:sans-serif;max-width:40em;margin:4em auto">
<h1>nodedesk</h1><p>The API is running (<a href="/v2/version">/v2/version</a>), but this binary was
built without its user interface. Build it with <code>make build</code> (or run <code>make run</code>).</p>`

func (s *Server) uiHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			writeRefusal(w, methodNotAllowed(r))
			return
		}
		if s.UI == nil || !exists(s.UI, "index.html") {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = w.Write([]byte(NotBuiltPage))
			return
		}
		name := strings.TrimPrefix(path.Clean(r.URL.Path), "/")
		if name == "" || !exists(s.UI, name) {
			r = r.Clone(r.Context())
			r.URL.Path = "/"
		}
		w.Header().Set("X-Content-Type-Options", "nosniff")
		http.FileServerFS(s.UI).ServeHTTP(w, r)
	})
}

func exists(fsys fs.FS, name string) bool {
	st, err := fs.Stat(fsys, name)
	return err == nil && !st.IsDir()
}
