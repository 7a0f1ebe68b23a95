// Package prefetch brings scattered memory into cache ahead of the loops
// that need it.
//
// Hoodie works on records in key order, which is not the order they lie in
// memory: a loop that copies their strings, or looks them up in a
// dictionary, waits on each string's cache misses in turn. A loop that only
// loads keeps many misses in flight at once, and leaves the strings in cache
// for the loop that follows it. Each function reads the first and the last
// byte of every string it is given (a short string may cross from one
// cache line into the next) and returns their sum; it is never inlined, so
// that the compiler cannot drop the loads when the caller ignores the sum.
// Give it a block of a few hundred strings, which stays in cache until the
// block is used.
package prefetch

// Strings reads the first and last bytes of each of ss.
//
//go:noinline
func Strings(ss []string) byte {
	var sum byte
	for _, s := range ss {
		if len(s) > 0 {
			sum += s[0] + s[len(s)-1]
		}
	}
	return sum
}

// Column reads the first and last bytes of each string among the values vals[i],
// vals[i+stride], vals[i+2*stride]...: one column of rows of stride values
// laid end to end. Values that are not strings are skipped.
//
//go:noinline
func Column(vals []any, i, stride int) byte {
	var sum byte
	for ; i < len(vals); i += stride {
		if s, ok := vals[i].(string); ok && len(s) > 0 {
			sum += s[0] + s[len(s)-1]
		}
	}
	return sum
}
