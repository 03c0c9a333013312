package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// stepBound bounds every browser step (a navigation, a wait for a
// condition); each step has its own. Generous for a busy machine running
// -race, and free when the condition comes quickly.
const stepBound = 60 * time.Second

// browser is one headless Chromium shared by the package's tests (they run
// one after the other: starting a browser per test costs more than the
// tests), with the test copy of the extension loaded.
var browser struct {
	once    sync.Once
	err     error
	skip    string
	ctx     context.Context // the browser's context; tabs derive from it
	cancel  func()
	extID   string // the extension's id (chrome-extension://<id>/)
	extDir  string // the test copy of the extension
	tempDir string
}

func TestMain(m *testing.M) {
	code := m.Run()
	if browser.cancel != nil {
		browser.cancel()
	}
	if browser.tempDir != "" {
		_ = os.RemoveAll(browser.tempDir)
	}
	os.Exit(code)
}

// findChromium returns the browser to drive: $MQ_CHROMIUM, else Debian's
// chromium on $PATH.
func findChromium() (string, error) {
	if p := os.Getenv("MQ_CHROMIUM"); p != "" {
		return exec.LookPath(p)
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no chromium on PATH (install Debian's package: apt-get install -y chromium)")
}

// tab opens a new tab in the shared browser, starting the browser on first
// use. Without Chromium the test skips, or fails when MQ_BROWSER_TESTS is
// set (CI).
func tab(t *testing.T) context.Context {
	t.Helper()
	browser.once.Do(startBrowser)
	if browser.skip != "" {
		if os.Getenv("MQ_BROWSER_TESTS") != "" {
			t.Fatalf("MQ_BROWSER_TESTS is set but the browser tests cannot run: %s", browser.skip)
		}
		t.Skipf("browser tests skipped: %s (set MQ_BROWSER_TESTS=1 to make this a failure)", browser.skip)
	}
	if browser.err != nil {
		t.Fatalf("failed to start Chromium: %v", browser.err)
	}
	// Every test uses the browser's first tab: with Chromium 156, a tab
	// opened later over CDP (chromedp.NewContext on the browser's context)
	// stops answering after its first navigation, while the first tab
	// keeps working. The tests run one after the other.
	ctx := browser.ctx
	step(t, ctx, "size the tab", chromedp.EmulateViewport(1280, 860))
	return ctx
}

// startBrowser starts headless Chromium with the extension loaded.
//
// What works with Debian's chromium 156 (written down because each flag
// was needed or is a known trap):
//   - --headless=new: the old headless mode does not run extensions.
//   - --load-extension with --disable-extensions-except loads the unpacked
//     MV3 extension; branded Chrome 137+ ignores --load-extension unless
//     DisableLoadExtensionCommandLineSwitch is disabled, so that feature is
//     turned off too (harmless where the switch still works).
//   - --disable-background-networking, --disable-component-update,
//     --disable-sync, --disable-quic: without them Chromium keeps calling
//     Google's services, which fails on a machine with no network.
//   - --no-sandbox: CI runs as root in a container.
func startBrowser() {
	exe, err := findChromium()
	if err != nil {
		browser.skip = err.Error()
		return
	}
	dir, err := os.MkdirTemp("", "mq-browsertest-")
	if err != nil {
		browser.err = fmt.Errorf("failed to create a temporary directory: %w", err)
		return
	}
	browser.tempDir = dir
	extDir, err := testExtensionCopy(filepath.Join(dir, "extension"))
	if err != nil {
		browser.err = err
		return
	}
	browser.extDir = extDir
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.UserDataDir(filepath.Join(dir, "profile")),
		chromedp.Flag("headless", "new"),
		chromedp.NoSandbox,
		chromedp.Flag("disable-gpu", true),
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-features", "DisableLoadExtensionCommandLineSwitch"),
		chromedp.Flag("load-extension", extDir),
		chromedp.Flag("disable-extensions-except", extDir),
		chromedp.WindowSize(1280, 860),
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(allocCtx)
	browser.ctx = ctx
	browser.cancel = func() { cancelCtx(); cancelAlloc() }
	// The first run starts the browser for the life of its context, so it
	// takes no timeout (chromedp bounds the start itself); the wait for the
	// extension has one.
	if err := chromedp.Do(ctx); err != nil {
		browser.err = fmt.Errorf("failed to start %s: %w", exe, err)
		return
	}
	waitCtx, cancel := context.WithTimeout(ctx, stepBound)
	defer cancel()
	browser.extID, browser.err = extensionID(waitCtx)
}

// extensionID waits for the extension's service worker and returns the id
// in its URL.
func extensionID(ctx context.Context) (string, error) {
	for {
		targets, err := chromedp.Targets(ctx)
		if err != nil {
			return "", fmt.Errorf("failed to list the browser's targets: %w", err)
		}
		for _, t := range targets {
			if t.Type == "service_worker" && strings.HasPrefix(t.URL, "chrome-extension://") && strings.HasSuffix(t.URL, "/background.js") {
				return strings.Split(strings.TrimPrefix(t.URL, "chrome-extension://"), "/")[0], nil
			}
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("the extension's service worker never started (is --load-extension honoured?): %w", ctx.Err())
		case <-time.After(50 * time.Millisecond): // polling interval
		}
	}
}

// testExtensionCopy copies ../../extension to dst and widens the copy's
// manifest to loopback: the PR-page script also matches
// http://127.0.0.1/*/*/pull/*, and http://127.0.0.1/* (any port) is a
// granted host permission, so the background script may call the app
// without a permission prompt. The shipped manifest is not touched.
func testExtensionCopy(dst string) (string, error) {
	src, err := filepath.Abs(filepath.Join("..", "..", "extension"))
	if err != nil {
		return "", fmt.Errorf("failed to locate the extension: %w", err)
	}
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		return "", fmt.Errorf("failed to copy the extension: %w", err)
	}
	path := filepath.Join(dst, "manifest.json")
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("failed to read the manifest: %w", err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return "", fmt.Errorf("failed to decode the manifest: %w", err)
	}
	m["host_permissions"] = append(m["host_permissions"].([]any), "http://127.0.0.1/*")
	scripts := m["content_scripts"].([]any)
	cs := scripts[0].(map[string]any)
	cs["matches"] = append(cs["matches"].([]any), "http://127.0.0.1/*/*/pull/*")
	out, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return "", fmt.Errorf("failed to encode the manifest: %w", err)
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		return "", fmt.Errorf("failed to write the manifest: %w", err)
	}
	return dst, nil
}

// step runs actions in the tab with a bound of its own, failing the test
// with what was being done.
func step(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, stepBound)
	defer cancel()
	if err := chromedp.Do(sctx, actions...); err != nil {
		t.Fatalf("failed to %s (bound %v): %v", what, stepBound, err)
	}
}

// waitJS polls the boolean JavaScript expression cond in the tab until it
// is true, failing after stepBound with explain's value (a JavaScript
// expression too) to show what the page held instead.
func waitJS(t *testing.T, ctx context.Context, what, cond, explain string) {
	t.Helper()
	deadline := time.Now().Add(stepBound)
	for {
		sctx, cancel := context.WithTimeout(ctx, stepBound)
		ok, err := chromedp.Run(sctx, chromedp.Evaluate[bool](cond))
		cancel()
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			ectx, cancel := context.WithTimeout(ctx, 10*time.Second)
			got, _ := chromedp.Run(ectx, chromedp.Evaluate[string](explain))
			cancel()
			t.Fatalf("timed out after %v waiting for %s (last error: %v); the page shows:\n%s", stepBound, what, err, got)
		}
		time.Sleep(50 * time.Millisecond) // polling interval, not a wait for an outcome
	}
}

// screenshot saves a PNG of the tab as name in the directory MQ_SCREENSHOTS
// names (relative to the module root), when it is set: the whole page when
// full, else the viewport.
func screenshot(t *testing.T, ctx context.Context, name string, full bool) {
	t.Helper()
	dir := os.Getenv("MQ_SCREENSHOTS")
	if dir == "" {
		return
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join("..", "..", dir)
	}
	shot := chromedp.CaptureScreenshot()
	if full {
		shot = chromedp.FullScreenshot(100) // 100: PNG
	}
	png := evaluate(t, ctx, "take a screenshot", shot)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("failed to create %s: %v", dir, err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatalf("failed to write %s: %v", path, err)
	}
	t.Logf("screenshot: %s", path)
}

// evaluate runs one action that returns a value, with a bound of its own.
func evaluate[T any](t *testing.T, ctx context.Context, what string, action chromedp.Action[T]) T {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, stepBound)
	defer cancel()
	v, err := chromedp.Run(sctx, action)
	if err != nil {
		t.Fatalf("failed to %s (bound %v): %v", what, stepBound, err)
	}
	return v
}
