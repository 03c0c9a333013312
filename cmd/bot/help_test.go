package main

import (
	"os"
	"strings"
	"testing"
)

// Every command's -h and --help prints its usage on stdout and exits 0,
// touching nothing (no database is created in the working directory).
func TestEveryHelpExitsZero(t *testing.T) {
	t.Chdir(t.TempDir())
	tests := []struct {
		args []string
		want string // in stdout
	}{
		{[]string{"--help"}, "usage: bot <command>"},
		{[]string{"-h"}, "usage: bot <command>"},
		{[]string{"help"}, "usage: bot <command>"},
		{[]string{"serve", "--help"}, "usage: bot serve"},
		{[]string{"serve", "-h"}, "usage: bot serve"},
		{[]string{"setup", "--help"}, "usage: bot setup"},
		{[]string{"setup", "-h"}, "-public-url"},
		{[]string{"sandbox", "--help"}, "usage: bot sandbox"},
		{[]string{"sandbox", "-h"}, "-ci-time"},
		{[]string{"token", "--help"}, "usage: bot token"},
		{[]string{"token", "help"}, "usage: bot token"},
		{[]string{"token", "create", "--help"}, "usage: bot token create"},
		{[]string{"token", "list", "--help"}, "usage: bot token list"},
		{[]string{"token", "revoke", "-h"}, "usage: bot token revoke"},
		{[]string{"version", "--help"}, "bot "},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, stdout, stderr := runBot(t, tc.args...)
			if code != 0 || !strings.Contains(stdout, tc.want) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit 0 and %q on stdout", code, stdout, stderr, tc.want)
			}
		})
	}
	if entries, _ := os.ReadDir("."); len(entries) > 0 {
		t.Errorf("--help left files behind: %v", entries)
	}
}

// A flag or command a command does not know is a usage error: exit 2.
func TestUsageErrorsExitTwo(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, args := range [][]string{
		{"serve", "--nope"},
		{"sandbox", "--ci-time", "soon"},
		{"setup", "--nope"},
		{"token"},
		{"token", "frobnicate"},
		{"token", "create", "--nope"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			if code, _, stderr := runBot(t, args...); code != 2 || !strings.Contains(stderr, "usage: bot") {
				t.Fatalf("exit %d, stderr %q; want exit 2 with the usage", code, stderr)
			}
		})
	}
}
