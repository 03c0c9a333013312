// Package browsertest drives headless Chromium (Debian's chromium package,
// through chromedp) against the real stack: the fake GitHub and the app
// over loopback, as app/sandbox starts them. It checks what a person sees:
// the dashboard, and the browser extension of ../../extension on a local
// page shaped like a GitHub pull request page. It also runs the
// extension's JavaScript unit tests (extension/test).
//
// The tests skip, saying why, when no Chromium is found; with
// MQ_BROWSER_TESTS=1 (set by .ci/run) they fail instead. MQ_CHROMIUM names
// the browser binary. MQ_SCREENSHOTS=docs/screenshots (relative to the
// module root, or absolute) saves dashboard.png and extension.png there.
package browsertest
