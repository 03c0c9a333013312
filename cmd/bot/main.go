// Command bot is the merge queue: `serve` runs it against GitHub, `sandbox`
// runs it against a local fake GitHub with simulated CI, `token` manages
// REST API tokens and `version` prints the version.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

const usage = `usage: bot <command> [flags]

commands:
  serve    --config FILE             run the merge queue (GitHub App)
  sandbox  [--addr :8080]            run the whole product locally on a fake GitHub
  token    create|list|revoke ...    manage REST API tokens
  version                            print the version
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run executes one command and returns the process exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "serve":
		err = serve(ctx, args[1:], stderr)
	case "sandbox":
		err = runSandbox(ctx, args[1:], stdout, stderr)
	case "token":
		err = token(ctx, args[1:], stdout)
	case "version":
		fmt.Fprintln(stdout, "bot", version)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
	default:
		fmt.Fprintf(stderr, "bot: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
	if err != nil {
		fmt.Fprintf(stderr, "bot %s: %v\n", args[0], err)
		return 1
	}
	return 0
}
