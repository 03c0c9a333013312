package api

import (
	"encoding/base64"
	"strconv"
	"strings"
	"time"
)

// cursorVersion prefixes every cursor so that its format can change.
const cursorVersion = "v1"

// encodeCursor makes the opaque listPullRequests cursor for a position in
// the listing order: the entry's activity time (unix nanoseconds) and ID,
// base64url without padding.
func encodeCursor(at time.Time, id string) string {
	raw := cursorVersion + ":" + strconv.FormatInt(at.UnixNano(), 10) + ":" + id
	return base64.RawURLEncoding.EncodeToString([]byte(raw))
}

// decodeCursor reads a cursor made by encodeCursor; anything else is 400.
func decodeCursor(c string) (time.Time, string, error) {
	bad := badRequestf("invalid field cursor: not a cursor returned by listPullRequests")
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(strings.TrimSpace(c), "="))
	if err != nil {
		return time.Time{}, "", bad
	}
	parts := strings.SplitN(string(raw), ":", 3)
	if len(parts) != 3 || parts[0] != cursorVersion || parts[2] == "" {
		return time.Time{}, "", bad
	}
	nanos, err := strconv.ParseInt(parts[1], 10, 64)
	if err != nil || nanos <= 0 {
		return time.Time{}, "", bad
	}
	return time.Unix(0, nanos).UTC(), parts[2], nil
}
