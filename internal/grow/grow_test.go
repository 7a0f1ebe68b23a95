package grow

import "testing"

func TestReserve(t *testing.T) {
	tests := []struct {
		name        string
		len, cap, n int
		wantMinCap  int  // the least capacity after
		wantSame    bool // the same memory: there was room
	}{
		{"room enough", 3, 8, 5, 8, true},
		{"full: doubles", 8, 8, 1, 16, false},
		{"more than double wanted", 8, 8, 20, 28, false},
		{"from nothing", 0, 0, 5, 5, false},
	}
	for _, tt := range tests {
		s := make([]int, tt.len, tt.cap)
		got := Reserve(s, tt.n)
		if len(got) != tt.len || cap(got)-len(got) < tt.n || cap(got) < tt.wantMinCap {
			t.Errorf("%s: len %d cap %d, want len %d, room for %d, cap at least %d", tt.name, len(got), cap(got), tt.len, tt.n, tt.wantMinCap)
		}
		same := cap(s) > 0 && &s[:cap(s)][0] == &got[:cap(got)][0]
		if same != tt.wantSame {
			t.Errorf("%s: kept its memory %v, want %v", tt.name, same, tt.wantSame)
		}
	}
}
