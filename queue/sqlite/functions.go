package sqlite

import (
	"crypto/sha256"
	"database/sql/driver"
	"encoding/hex"
	"fmt"

	msqlite "modernc.org/sqlite"
)

// sha256HexFunc is the SQL function mq_sha256_hex(x): the lower-case hex
// SHA-256 of x's text (or blob) bytes, NULL for NULL. Migrations use it to
// replace a stored secret by a hash that names the same thing (0016: the
// notification targets' URLs). It is registered with the driver for every
// connection this package opens.
const sha256HexFunc = "mq_sha256_hex"

func init() {
	msqlite.MustRegisterDeterministicScalarFunction(sha256HexFunc, 1, sha256Hex)
}

func sha256Hex(_ *msqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
	var b []byte
	switch v := args[0].(type) {
	case nil:
		return nil, nil
	case string:
		b = []byte(v)
	case []byte:
		b = v
	default:
		return nil, fmt.Errorf("%s: want text or a blob, got %T", sha256HexFunc, v)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}
