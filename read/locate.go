package read

import (
	"context"
	"fmt"
)

// KeyLocator finds the file groups that hold record keys: Hoodie's record
// index. A scan whose filter pins the record key (the record-key column or
// _hoodie_record_key compared with = or IN) asks it before opening any file
// and then opens only the file groups it names, without reading their bloom
// filters.
type KeyLocator interface {
	// LocateKeys returns one location per key, in the order of keys, in
	// view, the scan's view as of a completed instant: the file group whose
	// latest slice holds the key, or a location with Found false when no
	// record has the key. It returns ok false, and no error, when it cannot
	// answer for view (no index, an index of another view, or one that is
	// busy); the scan then prunes files by their footers as it does without
	// a locator. An error fails the scan.
	LocateKeys(ctx context.Context, view *View, keys []string) (locs []KeyLocation, ok bool, err error)
}

// KeyLocation is where a KeyLocator found a record key.
type KeyLocation struct {
	// Partition and FileID name the file group; both are empty when Found
	// is false.
	Partition, FileID string
	// Found reports whether a record has the key.
	Found bool
}

// groupRef names a file group.
type groupRef struct{ partition, fileID string }

// locateKeys asks loc for the record keys the filter pins and returns
// the file group of each, absent keys mapped to the zero groupRef. It
// returns nil when there is nothing to ask or loc cannot answer.
func (s *Scan) locateKeys(ctx context.Context, loc KeyLocator) (map[string]groupRef, error) {
	if loc == nil || s.filter == nil || s.view.AsOf() == "" {
		return nil, nil
	}
	keys := pinnedKeys(s.filter, s.keyCols, nil)
	if len(keys) == 0 {
		return nil, nil
	}
	locs, ok, err := loc.LocateKeys(ctx, s.view, keys)
	if err != nil {
		return nil, fmt.Errorf("locate %d record keys as of %s: %w", len(keys), s.view.AsOf(), err)
	}
	if !ok {
		return nil, nil
	}
	if len(locs) != len(keys) {
		return nil, fmt.Errorf("locate %d record keys as of %s: %d locations returned", len(keys), s.view.AsOf(), len(locs))
	}
	located := make(map[string]groupRef, len(keys))
	for i, k := range keys {
		if locs[i].Found {
			located[k] = groupRef{locs[i].Partition, locs[i].FileID}
		} else {
			located[k] = groupRef{}
		}
	}
	return located, nil
}

// pinnedKeys appends to dst the string literals that p compares record-key
// columns with for equality: the keys a record must have for p to hold on
// it, or one of several such sets when p has ORs. Keys under a NOT are
// left out, since NOT k = 'x' pins nothing; so are literals of
// comparisons other than = and IN. Literals missed only cost pruning: a
// key the locator was not asked about may be in any file.
func pinnedKeys(p pred, keyCols []bool, dst []string) []string {
	switch p := p.(type) {
	case *andPred:
		return pinnedKeys(p.r, keyCols, pinnedKeys(p.l, keyCols, dst))
	case *orPred:
		return pinnedKeys(p.r, keyCols, pinnedKeys(p.l, keyCols, dst))
	case *cmpPred:
		if keyCols[p.col] && p.dom == domBytes && p.op == opEq {
			dst = append(dst, p.k.s)
		}
	case *inPred:
		if keyCols[p.col] && p.dom == domBytes && !p.not {
			for _, v := range p.vals {
				dst = append(dst, v.s)
			}
		}
	}
	return dst
}

// locatedIn returns the record-key test of file group g from the
// locator's answers: false for a key the locator placed elsewhere or
// nowhere, true for a key it was not asked about.
func (s *Scan) locatedIn(g groupRef) func(string) bool {
	return func(k string) bool {
		at, asked := s.located[k]
		return !asked || at == g
	}
}
