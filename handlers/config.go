package handlers

import (
	"strings"

	"github.com/mergequeue/mq/queue"
)

// DefaultCommandPrefix starts a command line in a PR comment when none is
// configured (Config.CommandPrefix, the config file's commands.prefix).
const DefaultCommandPrefix = "/mq"

// Config is what the handlers need to know about the deployment.
type Config struct {
	// Host is the GitHub host of every repository ("" = queue.DefaultHost,
	// or a GHES host); it becomes queue.Repo.Host.
	Host string
	// BotLogin is the App's bot user (e.g. "merge-queue[bot]"); its own
	// comments and label changes are ignored. Empty: nothing is ignored.
	BotLogin string
	// CommandPrefix starts a command line in a PR comment (default
	// DefaultCommandPrefix).
	CommandPrefix string
	// EnqueueLabel is the enqueue label for a branch with no queue, and for
	// queues whose own EnqueueingLabel setting is empty (default: a new
	// queue's, queue.DefaultSettings().EnqueueingLabel). A queue's setting
	// wins when it has one.
	EnqueueLabel string
}

func (c Config) withDefaults() Config {
	if c.Host == "" {
		c.Host = queue.DefaultHost
	}
	if c.CommandPrefix == "" {
		c.CommandPrefix = DefaultCommandPrefix
	}
	if c.EnqueueLabel == "" {
		c.EnqueueLabel = queue.DefaultSettings().EnqueueingLabel
	}
	return c
}

// isBot reports whether login is the App's own bot user.
func (c Config) isBot(login string) bool {
	return c.BotLogin != "" && strings.EqualFold(login, c.BotLogin)
}
