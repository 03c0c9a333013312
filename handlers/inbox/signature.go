package inbox

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// signaturePrefix starts every X-Hub-Signature-256 header value.
const signaturePrefix = "sha256="

// Sign returns the X-Hub-Signature-256 header value GitHub sends for body
// under secret: "sha256=" followed by the hex HMAC-SHA256 of the raw body.
func Sign(secret, body []byte) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	return signaturePrefix + hex.EncodeToString(mac.Sum(nil))
}

// ValidSignature reports whether header is the X-Hub-Signature-256 of body
// under secret. The MAC is compared in constant time (hmac.Equal). An empty
// secret never validates anything: anyone can compute a MAC under it.
func ValidSignature(secret, body []byte, header string) bool {
	if len(secret) == 0 {
		return false
	}
	got, ok := parseSignature(header)
	if !ok {
		return false
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	return hmac.Equal(got, mac.Sum(nil))
}

// parseSignature returns the MAC an X-Hub-Signature-256 header value
// carries, or false when the value is not "sha256=" and 64 hex digits.
func parseSignature(header string) ([]byte, bool) {
	hexMAC, ok := strings.CutPrefix(header, signaturePrefix)
	if !ok {
		return nil, false
	}
	got, err := hex.DecodeString(hexMAC)
	if err != nil || len(got) != sha256.Size {
		return nil, false
	}
	return got, true
}
