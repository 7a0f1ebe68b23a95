package prefetch

import "testing"

// TestSums checks that the loops read the first and last byte of every
// string, and of nothing else.
func TestSums(t *testing.T) {
	row := []any{"\x01", 1, nil, "\x02\x05\x03", 2, "\x04"}
	cases := []struct {
		name string
		got  byte
		want byte
	}{
		{"strings", Strings([]string{"\x01", "", "\x02\x05\x03"}), 1 + 1 + 2 + 3},
		{"no strings", Strings(nil), 0},
		{"column 0", Column(row, 0, 3), 1 + 1 + 2 + 3},
		{"column 1 skips non-strings", Column(row, 1, 3), 0},
		{"column 2", Column(row, 2, 3), 4 + 4},
		{"empty strings", Column([]any{"", ""}, 0, 1), 0},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s: sum %d, want %d", c.name, c.got, c.want)
		}
	}
}
