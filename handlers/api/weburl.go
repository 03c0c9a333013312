package api

import (
	"fmt"

	"github.com/mergequeue/mq/queue"
)

// pullURL is the web address of a pull request: under Options.WebURL (so
// GitHub Enterprise's and the sandbox's fake GitHub's links resolve), else
// under https://<repo.host>.
func (a *API) pullURL(repo queue.Repo, number int) string {
	base := a.webURL
	if base == "" {
		base = "https://" + repo.Host
	}
	return fmt.Sprintf("%s/%s/%s/pull/%d", base, repo.Owner, repo.Name, number)
}
