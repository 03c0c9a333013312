package app

import (
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/mergequeue/mq"

// goList runs `go list` with a template on one package.
func goList(t *testing.T, tmpl, pkg string, deps bool) []string {
	t.Helper()
	args := []string{"list", "-f", tmpl}
	if deps {
		args = append(args, "-deps")
	}
	out, err := exec.Command("go", append(args, pkg)...).Output()
	if err != nil {
		var stderr []byte
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			stderr = ee.Stderr
		}
		t.Fatalf("go list %s: %v\n%s", pkg, err, stderr)
	}
	return strings.Fields(string(out))
}

// m is a path of this module.
func m(rel string) string { return module + "/" + rel }

// matches reports whether path is pattern, or under it for "x/...".
func matches(pattern, path string) bool {
	if root, ok := strings.CutSuffix(pattern, "/..."); ok {
		return path == root || strings.HasPrefix(path, root+"/")
	}
	return path == pattern
}

// rule is a package and the packages it may not depend on, directly or
// not.
type rule struct {
	pkg       string
	forbidden []string
}

// TestDependencyDirection holds the layering of docs/architecture.md:
// dependencies point inward (cmd/bot → app → handlers, queue/sqlite,
// githubx → queue/service → queue/readside, queue/engine → queue), and the
// packages that declare ports import none of their implementations.
func TestDependencyDirection(t *testing.T) {
	t.Parallel()
	rules := []rule{
		// The domain model: no transport, SQL, go-github or behaviour.
		{"queue", []string{m("queue/..."), m("handlers/..."), m("githubx/..."), m("app/..."), "database/sql", "net/http", "github.com/google/go-github/...", "github.com/rs/zerolog"}},
		// The engine: the domain model only (its direct imports are checked
		// in TestEngineIsPure).
		{"queue/engine", []string{m("queue/service"), m("queue/sqlite"), m("queue/memstore"), m("handlers/..."), m("githubx/..."), m("app/...")}},
		// The service drives ports, never their implementations.
		{"queue/service", []string{m("queue/sqlite"), m("queue/memstore"), m("handlers/..."), m("githubx/..."), m("app/..."), "database/sql", "net/http"}},
		// The read side: the domain model and the store port it declares;
		// no use case, no engine, no transport (the service uses it for
		// the estimates the reconciler shows).
		{"queue/readside", []string{m("queue/service"), m("queue/engine"), m("queue/sqlite"), m("queue/memstore"), m("handlers/..."),
			m("githubx/..."), m("app/..."), "database/sql", "net/http"}},
		// The stores implement the inbox's and the token package's ports
		// with the types of queue/record, importing neither; app wires
		// them; handlers is what the processor dispatches to.
		{"handlers/inbox", []string{m("queue/sqlite"), m("app/..."), m("handlers"), m("handlers/api/...")}},
		{"handlers/api/apitoken", []string{m("queue/sqlite"), m("app/..."), m("cmd/..."), m("handlers"), m("handlers/api")}},
		// notify declares what it needs of a store.
		{"app/notify", []string{m("queue/sqlite"), m("app")}},
		// The dashboard reads through the ports it declares (its queue
		// reads, sessions, GitHub sign-in) and the API tokens' store: no
		// storage, no use cases or engine (entry order and estimates are
		// asked of its reads), no GitHub client.
		{"app/dashboard", []string{m("app"), m("queue/service"), m("queue/engine"), m("queue/sqlite"), m("queue/memstore"),
			m("githubx/..."), m("handlers"), m("handlers/api"), "github.com/google/go-github/...", "github.com/palantir/go-githubapp/..."}},
		// The handlers reach GitHub through ports; of githubx they use only
		// the translation of GitHub's objects into facts (allowed below),
		// which REST reads use too.
		{"handlers", []string{m("queue/sqlite"), m("githubx/..."), m("app/...")}},
		{"handlers/api", []string{m("queue/sqlite"), m("githubx/..."), m("app/...")}},
		{"githubx", []string{m("queue/service"), m("queue/engine"), m("queue/sqlite"), m("handlers/..."), m("app/...")}},
		// The translation of GitHub's objects: go-github's types and the
		// domain model, no client, no queue behaviour.
		{"githubx/ghfacts", []string{m("githubx"), m("githubx/fakegithub"), m("queue/service"), m("queue/engine"), m("queue/sqlite"),
			m("queue/memstore"), m("handlers/..."), m("app/..."), "github.com/palantir/go-githubapp/..."}},
		// The declaration of the settings is a leaf: go generate runs
		// even while the packages it generates do not compile.
		{"queue/settingdecl", []string{m("...")}},
	}
	// Families: every package under a path, those of today and those added
	// later. What the REST API, the webhook handlers and the dashboard
	// show comes from queue/readside; what they change goes through small
	// interfaces they declare. Neither the service nor the engine is theirs
	// to import, nor, for the dashboard, the store.
	rules = withFamilies(t, rules, []rule{
		// Nothing under queue/ (the model, the engine, the service, the
		// stores and their conformance suite) points upward: the ports
		// the stores serve are declared by their consumers over the types
		// of queue/record.
		{"queue/...", []string{m("handlers/..."), m("app/..."), m("cmd/...")}},
		// The SQL stores are reached through the ports; only app (and the
		// stores' own tests) opens one. Nothing that drives the queue or
		// shows it imports them.
		{"queue/engine", []string{m("queue/sqlstore"), m("queue/postgres/...")}},
		{"queue/service", []string{m("queue/sqlstore"), m("queue/postgres/...")}},
		{"queue/readside", []string{m("queue/sqlstore"), m("queue/postgres/...")}},
		{"handlers/...", []string{m("queue/service"), m("queue/engine"), m("queue/sqlite"), m("queue/sqlstore"), m("queue/postgres/...")}},
		{"app/dashboard/...", []string{m("queue/service"), m("queue/engine"), m("queue/sqlite"), m("queue/sqlstore"), m("queue/postgres/...")}},
	})
	// allowed are exceptions to a package's forbidden imports.
	allowed := map[string][]string{"handlers": {m("githubx/ghfacts")}}
	for _, r := range rules {
		t.Run(r.pkg, func(t *testing.T) {
			t.Parallel()
			pkg := m(r.pkg)
			for _, dep := range goList(t, "{{.ImportPath}}", pkg, true) {
				if dep == pkg {
					continue
				}
				if slices.Contains(allowed[r.pkg], dep) {
					continue
				}
				for _, f := range r.forbidden {
					if matches(f, dep) {
						t.Errorf("%s depends on %s (forbidden: %s)", r.pkg, dep, f)
					}
				}
			}
		})
	}
}

// withFamilies adds to rules, for every package of the module matching a
// family's pattern ("x/..." is x and what is under it), the family's
// forbidden imports: a package added under the path later is held to them
// too.
func withFamilies(t *testing.T, rules, families []rule) []rule {
	t.Helper()
	index := map[string]int{}
	for i, r := range rules {
		index[r.pkg] = i
	}
	for _, path := range goList(t, "{{.ImportPath}}", m("..."), false) {
		rel, ok := strings.CutPrefix(path, module+"/")
		if !ok {
			continue
		}
		for _, f := range families {
			if !matches(f.pkg, rel) {
				continue
			}
			i, known := index[rel]
			if !known {
				i = len(rules)
				index[rel] = i
				rules = append(rules, rule{pkg: rel})
			}
			rules[i].forbidden = append(slices.Clone(rules[i].forbidden), f.forbidden...)
		}
	}
	return rules
}

// TestEngineIsPure: the engine's imports prove it does no I/O. It imports
// the domain model and a few standard packages that compute (fmt only to
// format strings); the domain model, in turn, imports only such packages.
func TestEngineIsPure(t *testing.T) {
	t.Parallel()
	pure := []string{"context", "errors", "fmt", "math/bits", "slices", "sort", "strconv", "strings", "time",
		"unicode", "unicode/utf8", m("queue")}
	for _, pkg := range []string{"queue/engine", "queue"} {
		for _, imp := range goList(t, `{{join .Imports " "}}`, m(pkg), false) {
			if !slices.Contains(pure, imp) {
				t.Errorf("%s imports %s, which is not known to be free of I/O", pkg, imp)
			}
		}
	}
}

// TestGitHubClientsOnlyInGithubx: every call to GitHub goes through githubx
// (its path guard, retries, budget and metrics), so no package of app/...
// or cmd/... imports go-github or go-githubapp, with which it could make a
// client of its own; their tests may (to read the fake GitHub).
func TestGitHubClientsOnlyInGithubx(t *testing.T) {
	t.Parallel()
	forbidden := []string{"github.com/google/go-github/...", "github.com/palantir/go-githubapp/..."}
	for _, tree := range []string{"app/...", "cmd/..."} {
		for _, line := range goListLines(t, `{{.ImportPath}}:{{join .Imports " "}}`, m(tree)) {
			pkg, imports, _ := strings.Cut(line, ":")
			for _, imp := range strings.Fields(imports) {
				for _, f := range forbidden {
					if matches(f, imp) {
						t.Errorf("%s imports %s: make GitHub calls through githubx", pkg, imp)
					}
				}
			}
		}
	}
}

// goListLines runs `go list` with a template on a pattern and returns one
// line per package.
func goListLines(t *testing.T, tmpl, pattern string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", tmpl, pattern).Output()
	if err != nil {
		var stderr []byte
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			stderr = ee.Stderr
		}
		t.Fatalf("go list %s: %v\n%s", pattern, err, stderr)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

// TestOnlyTheCompositionRootOpensTheStore: outside their tests, only app
// (app.OpenDatabase, from database.driver) imports the SQL stores, and only
// the two stores import what they share (queue/sqlstore); everything else
// reaches the database through the ports its consumers declare. The one
// helper package for tests that opens SQLite files (queue/sqlite/sqlitetest)
// is imported by tests alone (TestTestHelpersStayInTests).
func TestOnlyTheCompositionRootOpensTheStore(t *testing.T) {
	t.Parallel()
	allowed := map[string][]string{
		m("queue/sqlite"):   {m("app"), m("queue/sqlite/sqlitetest")},
		m("queue/postgres"): {m("app")},
		m("queue/sqlstore"): {m("queue/sqlite"), m("queue/postgres")},
	}
	for _, line := range goListLines(t, `{{.ImportPath}}:{{join .Imports " "}}`, m("...")) {
		pkg, imports, _ := strings.Cut(line, ":")
		for _, imp := range strings.Fields(imports) {
			if who, ok := allowed[imp]; ok && !slices.Contains(who, pkg) {
				t.Errorf("%s imports %s: open the database with app.OpenDatabase and use the ports", pkg, imp)
			}
		}
	}
}

// TestTestHelpersStayInTests: the packages that exist for tests (the
// migrated SQLite files of queue/sqlite/sqlitetest, PostgreSQL schemas of
// queue/postgres/pgtest, tokens of apitokentest) are imported by tests
// alone, never by what ships.
func TestTestHelpersStayInTests(t *testing.T) {
	t.Parallel()
	helpers := []string{m("queue/sqlite/sqlitetest"), m("queue/postgres/pgtest"), m("handlers/api/apitoken/apitokentest")}
	for _, line := range goListLines(t, `{{.ImportPath}}:{{join .Imports " "}}`, m("...")) {
		pkg, imports, _ := strings.Cut(line, ":")
		for _, imp := range strings.Fields(imports) {
			if slices.Contains(helpers, imp) {
				t.Errorf("%s imports %s, which is for tests only", pkg, imp)
			}
		}
	}
}
