package ghfacts

import (
	"encoding/json"
	"testing"
	"time"
)

// Webhook timestamps decode in every form GitHub writes them, and to the
// zero time (never an error) otherwise.
func TestTimeIsLenient(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		json string
		want time.Time
	}{
		{"rfc3339", `"2019-05-15T15:20:55Z"`, time.Date(2019, 5, 15, 15, 20, 55, 0, time.UTC)},
		{"offset", `"2019-05-15T17:20:55+02:00"`, time.Date(2019, 5, 15, 15, 20, 55, 0, time.UTC)},
		{"space separated", `"2018-04-25 20:42:10"`, time.Date(2018, 4, 25, 20, 42, 10, 0, time.UTC)},
		{"unix seconds", `1557933655`, time.Unix(1557933655, 0).UTC()},
		{"unix milliseconds", `1557933655123`, time.UnixMilli(1557933655123).UTC()},
		{"fractional seconds", `"2019-05-15T15:20:55.5Z"`, time.Date(2019, 5, 15, 15, 20, 55, 5e8, time.UTC)},
		{"null", `null`, time.Time{}},
		{"garbage", `"yesterday"`, time.Time{}},
		{"object", `{}`, time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var v struct {
				At Time `json:"at"`
			}
			if err := json.Unmarshal([]byte(`{"at":`+tt.json+`}`), &v); err != nil {
				t.Fatal(err)
			}
			if !v.At.Equal(tt.want) || v.At.Location() != time.UTC {
				t.Fatalf("got %v, want %v in UTC", v.At.Time, tt.want)
			}
		})
	}
}
