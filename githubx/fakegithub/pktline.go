package fakegithub

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// maxPktLen is the largest pkt-line git sends (4 length bytes included).
const maxPktLen = 65520

// errFlush marks a flush-pkt ("0000") where a data line was read.
var errFlush = errors.New("flush-pkt")

// pktLine encodes one pkt-line of git's wire protocol.
func pktLine(s string) string { return fmt.Sprintf("%04x%s", len(s)+4, s) }

// readPktLine reads one pkt-line and returns its payload; a flush-pkt is
// errFlush.
func readPktLine(r *bufio.Reader) (string, error) {
	var head [4]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return "", fmt.Errorf("failed to read pkt-line length: %w", err)
	}
	n, err := strconv.ParseUint(string(head[:]), 16, 16)
	if err != nil {
		return "", fmt.Errorf("invalid pkt-line length %q", head[:])
	}
	switch {
	case n == 0:
		return "", errFlush
	case n < 4 || n > maxPktLen:
		return "", fmt.Errorf("invalid pkt-line length %d", n)
	}
	buf := make([]byte, n-4)
	if _, err := io.ReadFull(r, buf); err != nil {
		return "", fmt.Errorf("failed to read pkt-line: %w", err)
	}
	return string(buf), nil
}

// pushCommand is one ref update of a push: ref from Old to New (zeroSHA:
// create or delete).
type pushCommand struct {
	Old, New, Ref string
}

// maxPushCommands bounds the ref updates of one push.
const maxPushCommands = 1000

// readPushCommands reads receive-pack's command list up to its flush-pkt
// and the capabilities the client asked for (on the first command).
func readPushCommands(r *bufio.Reader) ([]pushCommand, map[string]bool, error) {
	var cmds []pushCommand
	caps := map[string]bool{}
	for {
		line, err := readPktLine(r)
		if errors.Is(err, errFlush) {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		if len(cmds) == 0 {
			var rest string
			line, rest, _ = strings.Cut(line, "\x00")
			for _, c := range strings.Fields(rest) {
				caps[c] = true
			}
		}
		line = strings.TrimSuffix(line, "\n")
		f := strings.Split(line, " ")
		if len(f) != 3 || len(f[0]) != 40 || len(f[1]) != 40 || !isHex(f[0]) || !isHex(f[1]) || f[2] == "" {
			return nil, nil, fmt.Errorf("invalid push command %q", line)
		}
		if len(cmds) == maxPushCommands {
			return nil, nil, fmt.Errorf("more than %d ref updates in one push", maxPushCommands)
		}
		cmds = append(cmds, pushCommand{Old: strings.ToLower(f[0]), New: strings.ToLower(f[1]), Ref: f[2]})
	}
	if len(cmds) == 0 {
		return nil, nil, errors.New("push without ref updates")
	}
	return cmds, caps, nil
}
