package api

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/handlers/api/apitoken"
	"github.com/mergequeue/mq/handlers/api/apitoken/apitokentest"
	"github.com/mergequeue/mq/handlers/bodydeadline"
)

// A REST body trickling in over a real connection is answered 408 with a
// one-line text error (or the connection is closed) about Grace after the
// operation started reading it, and the operation never runs.
func TestSlowBodyIs408(t *testing.T) {
	t.Parallel()
	svc, tokens := &fakeService{}, apitokentest.NewStore()
	tokens.Add(secretAll, apitoken.Token{Name: "all"})
	policy := bodydeadline.Policy{Grace: 150 * time.Millisecond, MinRate: 8 << 10}
	srv := httptest.NewServer(policy.Handler(New(svc, svc, tokens, Options{Logger: zerolog.Nop()})))
	defer srv.Close()

	body := `{"repo":{"host":"github.com","owner":"octo","name":"widgets"},"targetBranch":"main","pr":{"number":7}}`
	body += strings.Repeat(" ", 1000-len(body)) // a trickle of 20 s if not cut
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	start := time.Now()
	fmt.Fprintf(conn, "POST /v1/submitPullRequest HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n%s: %s\r\nContent-Length: %d\r\n\r\n",
		TokenHeader, secretAll, len(body))
	stop := make(chan struct{})
	defer close(stop)
	go func() { // a byte every 20 ms until the server gives up
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for i := range len(body) {
			if _, err := io.WriteString(conn, body[i:i+1]); err != nil {
				return
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	elapsed := time.Since(start)
	if err == nil {
		defer resp.Body.Close()
		wantError(t, response{status: resp.StatusCode, header: resp.Header, body: readAll(t, resp)},
			http.StatusRequestTimeout, "request body arrived too slowly")
	}
	if bound := policy.Grace + 2*time.Second; elapsed > bound {
		t.Errorf("cut after %s, want within %s", elapsed, bound)
	}
	if got := svc.calls().submits; len(got) != 0 {
		t.Errorf("the operation ran: %v", got)
	}
}
