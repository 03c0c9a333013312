package fakegithub

import (
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"sort"
	"strings"
)

// Git's smart HTTP protocol (https://git-scm.com/docs/http-protocol), as
// GitHub serves it at <web URL>/<owner>/<repo>.git: a fetch is
// info/refs?service=git-upload-pack then POST git-upload-pack, a push
// info/refs?service=git-receive-pack then POST git-receive-pack. Both need
// an installation token (HTTP Basic, the token as password, or an
// Authorization: token header); without one the answer is 401 and nothing
// is applied. A push moves refs exactly as the REST API does (moveRef:
// push webhooks, PR synchronize, CI), and is not a content-creating
// request: the secondary limits do not see it. Calls are counted under
// "GIT <METHOD> /{owner}/{repo}.git/<service>".

// gitReceiveCaps are the capabilities the fake's receive-pack offers: no
// side band, so the status report is plain pkt-lines.
const gitReceiveCaps = "report-status delete-refs atomic ofs-delta quiet agent=fakegithub"

// gitRequest is a parsed smart HTTP path.
type gitRequest struct {
	owner, name string
	op          string // "info/refs", "git-upload-pack" or "git-receive-pack"
}

// parseGitPath recognises /<owner>/<repo>[.git]/<op>.
func parseGitPath(p string) (gitRequest, bool) {
	segs := strings.Split(strings.TrimPrefix(p, "/"), "/")
	var op string
	switch {
	case len(segs) == 4 && segs[2] == "info" && segs[3] == "refs":
		op = "info/refs"
	case len(segs) == 3 && (segs[2] == "git-upload-pack" || segs[2] == "git-receive-pack"):
		op = segs[2]
	default:
		return gitRequest{}, false
	}
	name := strings.TrimSuffix(segs[1], ".git")
	if segs[0] == "" || name == "" {
		return gitRequest{}, false
	}
	return gitRequest{owner: segs[0], name: name, op: op}, true
}

// serveGit answers a smart HTTP request; false when the path is not one.
func (s *Server) serveGit(w http.ResponseWriter, r *http.Request) bool {
	gr, ok := parseGitPath(r.URL.Path)
	if !ok {
		return false
	}
	service := gr.op
	if gr.op == "info/refs" {
		service = r.URL.Query().Get("service")
	}
	wantMethod := http.MethodPost
	if gr.op == "info/refs" {
		wantMethod = http.MethodGet
	}
	if r.Method != wantMethod {
		return false
	}
	s.countCall("GIT " + r.Method + " /{owner}/{repo}.git/" + gr.op)
	if service != "git-upload-pack" && service != "git-receive-pack" {
		http.Error(w, "Please upgrade your git client.\nGitHub.com no longer supports git over dumb-http.", http.StatusForbidden)
		return true
	}
	actor := ""
	if user, pass, ok := r.BasicAuth(); ok && user != "" {
		actor = s.tokenActor(pass)
	} else if scheme, cred, _ := strings.Cut(r.Header.Get("Authorization"), " "); strings.EqualFold(scheme, "token") || strings.EqualFold(scheme, "bearer") {
		actor = s.tokenActor(strings.TrimSpace(cred))
	}
	if actor == "" {
		w.Header().Set("WWW-Authenticate", `Basic realm="GitHub"`)
		http.Error(w, "Invalid username or token.", http.StatusUnauthorized)
		return true
	}
	if f := s.takeFault(r.Method, r.URL.Path); f != nil {
		http.Error(w, http.StatusText(f.Status), f.Status)
		return true
	}
	rp, err := s.repo(gr.owner, gr.name)
	if err != nil {
		http.Error(w, "Repository not found.", http.StatusNotFound)
		return true
	}
	body := io.Reader(r.Body)
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, "invalid gzip body", http.StatusBadRequest)
			return true
		}
		defer zr.Close()
		body = zr
	}
	w.Header().Set("Cache-Control", "no-cache")
	switch {
	case gr.op == "info/refs" && service == "git-upload-pack":
		w.Header().Set("Content-Type", "application/x-git-upload-pack-advertisement")
		_, _ = io.WriteString(w, pktLine("# service=git-upload-pack\n")+"0000")
		_ = rp.git.uploadPack(r.Context(), nil, w, "--advertise-refs")
	case gr.op == "info/refs":
		adv, err := rp.receiveAdvertisement()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return true
		}
		w.Header().Set("Content-Type", "application/x-git-receive-pack-advertisement")
		_, _ = io.WriteString(w, pktLine("# service=git-receive-pack\n")+"0000"+adv)
	case service == "git-upload-pack":
		w.Header().Set("Content-Type", "application/x-git-upload-pack-result")
		_ = rp.git.uploadPack(r.Context(), body, w)
	default:
		rp.receivePack(w, bufio.NewReader(body), actor)
	}
	return true
}

// uploadPack runs git upload-pack for one stateless request. Any commit
// in the repository may be asked for by SHA (GitHub serves reachable and
// PR head commits so; the fake's fork heads live in the base repository).
func (g *gitDir) uploadPack(ctx context.Context, stdin io.Reader, stdout io.Writer, extra ...string) error {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	args := append([]string{"-c", "uploadpack.allowAnySHA1InWant=true", "-c", "uploadpack.allowReachableSHA1InWant=true",
		"upload-pack", "--stateless-rpc"}, extra...)
	cmd := exec.CommandContext(ctx, "git", append(args, g.path)...)
	cmd.Env = baseEnv()
	cmd.Stdin, cmd.Stdout = stdin, stdout
	var errb strings.Builder
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("failed to run git upload-pack: %w (%s)", err, strings.TrimSpace(errb.String()))
	}
	return nil
}

// receiveAdvertisement lists the branches and tags for a push.
func (r *repo) receiveAdvertisement() (string, error) {
	refs, err := r.git.refs("refs/")
	if err != nil {
		return "", err
	}
	names := make([]string, 0, len(refs))
	for n := range refs {
		if strings.HasPrefix(n, "refs/heads/") || strings.HasPrefix(n, "refs/tags/") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	var b strings.Builder
	if len(names) == 0 {
		b.WriteString(pktLine(zeroSHA + " capabilities^{}\x00" + gitReceiveCaps + "\n"))
	}
	for i, n := range names {
		line := refs[n] + " " + n
		if i == 0 {
			line += "\x00" + gitReceiveCaps
		}
		b.WriteString(pktLine(line + "\n"))
	}
	b.WriteString("0000")
	return b.String(), nil
}

// receivePack applies one push: it reads the ref updates, unpacks the
// objects, then, holding the repository's lock, checks every update's old
// value and applies them as REST ref writes do. With "atomic" one refused
// update refuses them all.
func (r *repo) receivePack(w http.ResponseWriter, body *bufio.Reader, actor string) {
	cmds, caps, err := readPushCommands(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	unpack := "ok"
	if pushesObjects(cmds) {
		if err := r.git.unpackObjects(body); err != nil {
			unpack = "unpack-objects abnormal exit"
		}
	}
	status := make([]string, len(cmds))
	if unpack != "ok" {
		for i := range status {
			status[i] = "unpacker error"
		}
	} else {
		r.applyPush(cmds, caps["atomic"], actor, status)
	}
	w.Header().Set("Content-Type", "application/x-git-receive-pack-result")
	if !caps["report-status"] {
		return
	}
	var b strings.Builder
	b.WriteString(pktLine("unpack " + unpack + "\n"))
	for i, c := range cmds {
		if status[i] == "" {
			b.WriteString(pktLine("ok " + c.Ref + "\n"))
		} else {
			b.WriteString(pktLine("ng " + c.Ref + " " + status[i] + "\n"))
		}
	}
	b.WriteString("0000")
	_, _ = io.WriteString(w, b.String())
}

func pushesObjects(cmds []pushCommand) bool {
	for _, c := range cmds {
		if c.New != zeroSHA {
			return true
		}
	}
	return false
}

// applyPush checks and applies a push's updates, writing each refusal's
// reason into status ("" = applied).
func (r *repo) applyPush(cmds []pushCommand, atomic bool, actor string, status []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	olds := make([]string, len(cmds))
	refused := false
	for i, c := range cmds {
		if reason, old := r.checkPush(c); reason != "" {
			status[i], refused = reason, true
		} else {
			olds[i] = old
		}
	}
	if refused && atomic {
		for i := range status {
			if status[i] == "" {
				status[i] = "atomic push failed"
			}
		}
		return
	}
	for i, c := range cmds {
		if status[i] != "" {
			continue
		}
		next := c.New
		if next == zeroSHA {
			next = ""
		}
		if err := r.moveRef(c.Ref, olds[i], next, actor); err != nil {
			status[i] = "failed to update ref"
		}
	}
}

// checkPush tells why one update is refused ("" = it may be applied) and
// the ref's current value ("" = absent).
func (r *repo) checkPush(c pushCommand) (reason, old string) {
	if fullRef(c.Ref) != c.Ref || !strings.HasPrefix(c.Ref, "refs/heads/") && !strings.HasPrefix(c.Ref, "refs/tags/") {
		return "funny refname", ""
	}
	old, exists, err := r.git.refSHA(c.Ref)
	if err != nil {
		return "failed to read ref", ""
	}
	if !exists {
		old = ""
	}
	want := c.Old
	if want == zeroSHA {
		want = ""
	}
	if old != want {
		return "stale info", ""
	}
	if c.New == zeroSHA {
		// Deleting a ref that does not exist is a no-op, as in git's
		// receive-pack ("warning: deleting a non-existent ref").
		return "", old
	}
	if sha, ok, err := r.git.resolveCommit(c.New); err != nil || !ok || sha != c.New {
		return "missing necessary objects", ""
	}
	return "", old
}

// unpackObjects stores a pushed pack's objects (a thin pack's bases are
// taken from the repository).
func (g *gitDir) unpackObjects(pack io.Reader) error {
	ctx, cancel := context.WithTimeout(context.Background(), gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "-C", g.path, "unpack-objects", "-q")
	cmd.Env = baseEnv()
	cmd.Stdin = pack
	var errb strings.Builder
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil {
		return errors.Join(fmt.Errorf("failed to unpack pushed objects: %w", err), errors.New(strings.TrimSpace(errb.String())))
	}
	return nil
}
