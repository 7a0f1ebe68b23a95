package index

import "fmt"

// instantLen is the length of a Hudi instant time: yyyyMMddHHmmssSSS.
const instantLen = 17

// checkInstant reports whether s is an instant time: 17 ASCII digits. Two
// instants compare as strings, as Hudi compares them.
func checkInstant(s string) error {
	if len(s) != instantLen {
		return fmt.Errorf("instant %q: want %d digits", s, instantLen)
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return fmt.Errorf("instant %q: want %d digits", s, instantLen)
		}
	}
	return nil
}

// Watermark returns the latest completed instant whose changes the index
// contains, or "" when it contains none (a new index, or one rebuilt from an
// empty table) or when it is stale.
func (ix *Index) Watermark() string {
	ix.stateMu.RLock()
	defer ix.stateMu.RUnlock()
	if ix.stale != nil {
		return ""
	}
	return ix.watermark
}
