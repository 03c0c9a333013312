package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `bot token` opens the database the configuration names through the one
// place that opens it (app.OpenDatabase): a driver it does not know is a
// clear error, not a SQLite file silently created at database.path.
func TestTokenOpensTheConfiguredDatabase(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "mq.db")
	cfgPath := filepath.Join(dir, "config.yml")
	if err := os.WriteFile(cfgPath, []byte("database:\n  driver: oracle\n  path: "+db+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runBot(t, "token", "list", "--config", cfgPath)
	if code == 0 || !strings.Contains(errOut, `"oracle"`) {
		t.Fatalf("token list with driver oracle: exit %d, stdout %q, stderr %q; want a failure naming the driver", code, out, errOut)
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Errorf("a database was created at %s (%v)", db, err)
	}

	// The configured SQLite database is the one the command uses.
	if err := os.WriteFile(cfgPath, []byte("database:\n  driver: sqlite\n  path: "+db+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runBot(t, "token", "create", "--config", cfgPath, "--name", "ci"); code != 0 {
		t.Fatalf("token create: exit %d %q %q", code, out, errOut)
	}
	if code, out, _ := runBot(t, "token", "list", "--db", db); code != 0 || !strings.Contains(out, "ci") {
		t.Errorf("the token is not in %s: exit %d %q", db, code, out)
	}
}
