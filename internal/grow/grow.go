// Package grow grows slices by doubling.
//
// Go's append grows a large slice by about a quarter at a time: a slice
// grown so to its full size allocates about five times that size in all,
// and every allocation of a large slice takes fresh memory from the system.
// Doubling allocates about twice the final size.
package grow

import "slices"

// Reserve returns s with room for n more elements. When it must grow, it at
// least doubles the capacity of s.
func Reserve[S ~[]E, E any](s S, n int) S {
	if n <= cap(s)-len(s) {
		return s
	}
	return slices.Grow(s, max(n, cap(s)))
}
