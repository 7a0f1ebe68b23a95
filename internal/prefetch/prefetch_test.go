package prefetch

import "testing"

func TestSums(t *testing.T) {
	cases := []struct {
		name string
		got  byte
		want byte
	}{
		{"strings", Strings([]string{"a", "", "b"}), 'a' + 'b'},
		{"no strings", Strings(nil), 0},
		{"column 0", Column([]any{"x", 1, nil, "y", 2, "z"}, 0, 3), 'x' + 'y'},
		{"column 1 skips non-strings", Column([]any{"x", 1, nil, "y", 2, "z"}, 1, 3), 0},
		{"column 2", Column([]any{"x", 1, nil, "y", 2, "z"}, 2, 3), 'z'},
		{"empty strings", Column([]any{"", ""}, 0, 1), 0},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s: sum %d, want %d", c.name, c.got, c.want)
		}
	}
}
