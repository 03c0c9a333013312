package inbox

import (
	"strings"
	"testing"
)

// GitHub's published test vector (reliability.md W3).
const (
	vectorSecret    = "It's a Secret to Everybody"
	vectorPayload   = "Hello, World!"
	vectorSignature = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
)

func TestSignOfficialVector(t *testing.T) {
	t.Parallel()
	if got := Sign([]byte(vectorSecret), []byte(vectorPayload)); got != vectorSignature {
		t.Fatalf("Sign = %s, want %s", got, vectorSignature)
	}
}

func TestValidSignature(t *testing.T) {
	t.Parallel()
	secret, body := []byte(vectorSecret), []byte(vectorPayload)
	tests := []struct {
		name   string
		secret []byte
		body   []byte
		header string
		want   bool
	}{
		{"official vector", secret, body, vectorSignature, true},
		{"upper-case hex", secret, body, "sha256=" + strings.ToUpper(strings.TrimPrefix(vectorSignature, "sha256=")), true},
		{"other body", secret, []byte("Hello, World?"), vectorSignature, false},
		{"other secret", []byte("another"), body, vectorSignature, false},
		{"empty header", secret, body, "", false},
		{"sha1 prefix", secret, body, "sha1=" + strings.TrimPrefix(vectorSignature, "sha256="), false},
		{"no prefix", secret, body, strings.TrimPrefix(vectorSignature, "sha256="), false},
		{"truncated", secret, body, vectorSignature[:len(vectorSignature)-2], false},
		{"not hex", secret, body, "sha256=zz" + vectorSignature[9:], false},
		{"empty secret never validates", nil, body, Sign(nil, body), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := ValidSignature(tt.secret, tt.body, tt.header); got != tt.want {
				t.Fatalf("ValidSignature = %v, want %v", got, tt.want)
			}
		})
	}
}

func FuzzValidSignature(f *testing.F) {
	f.Add([]byte(vectorSecret), []byte(vectorPayload), vectorSignature)
	f.Add([]byte("s"), []byte("{}"), "sha256=")
	f.Add([]byte("s"), []byte(""), "sha1=abc")
	f.Fuzz(func(t *testing.T, secret, body []byte, header string) {
		valid := ValidSignature(secret, body, header)
		if len(secret) == 0 {
			if valid {
				t.Fatal("empty secret validated a signature")
			}
			return
		}
		if !ValidSignature(secret, body, Sign(secret, body)) {
			t.Fatal("Sign output does not validate")
		}
		if valid && !strings.EqualFold(header, Sign(secret, body)) {
			t.Fatalf("header %q validated but differs from the signature", header)
		}
	})
}
