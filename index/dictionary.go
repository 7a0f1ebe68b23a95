package index

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/cockroachdb/pebble/v2"
)

// dictionary maps the file groups the index has seen to small integers, the
// values stored under record keys. Ids are dense: 0, 1, 2... in the order
// the groups first appeared. The whole dictionary lives in memory (one entry
// per file group, not per record) and in the nsGroup namespace of the store.
//
// A dictionary is only changed by a writer holding Index.writeMu. Readers do
// not use it directly: they read Index.visible, the prefix of locs whose
// entries are committed.
type dictionary struct {
	locs []Location
	ids  map[Location]uint32
}

func newDictionary() *dictionary {
	return &dictionary{ids: make(map[Location]uint32)}
}

// loadDictionary reads the dictionary stored in db.
func loadDictionary(db *pebble.DB) (*dictionary, error) {
	lower, upper := span(nsGroup)
	it, err := db.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return nil, fmt.Errorf("read file-group dictionary: %w", err)
	}
	d := newDictionary()
	for valid := it.First(); valid; valid = it.Next() {
		k := it.Key()
		if len(k) != 5 || binary.BigEndian.Uint32(k[1:]) != uint32(len(d.locs)) {
			_ = it.Close()
			return nil, fmt.Errorf("file-group dictionary: key %x where id %d was expected", k, len(d.locs))
		}
		v, err := it.ValueAndErr()
		if err == nil {
			var loc Location
			if loc, err = decodeLocation(v); err == nil {
				d.add(loc)
				continue
			}
		}
		_ = it.Close()
		return nil, fmt.Errorf("file-group dictionary: entry %d: %w", len(d.locs), err)
	}
	if err := it.Close(); err != nil {
		return nil, fmt.Errorf("read file-group dictionary: %w", err)
	}
	return d, nil
}

// add gives loc the next id.
func (d *dictionary) add(loc Location) uint32 {
	id := uint32(len(d.locs))
	d.locs = append(d.locs, loc)
	d.ids[loc] = id
	return id
}

// assign returns the id of loc. A location seen for the first time gets the
// next id, and its dictionary entry is added to b so that it commits with the
// records that use it. If b does not commit, the caller must call rollback.
func (d *dictionary) assign(b *pebble.Batch, loc Location) (uint32, error) {
	id, added, err := d.intern(loc)
	if err != nil || !added {
		return id, err
	}
	if err := b.Set(groupKey(id), d.entry(id), nil); err != nil {
		return 0, fmt.Errorf("file group %s: %w", loc, err)
	}
	return id, nil
}

// intern returns the id of loc, giving a location seen for the first time
// the next id, and reports whether it did. The caller writes the entries of
// the ids it added (see entry) with the records that use them, or calls
// rollback.
func (d *dictionary) intern(loc Location) (id uint32, added bool, err error) {
	if id, ok := d.ids[loc]; ok {
		return id, false, nil
	}
	if len(d.locs) == math.MaxUint32 {
		return 0, false, fmt.Errorf("file group %s: dictionary full at %d groups", loc, len(d.locs))
	}
	return d.add(loc), true, nil
}

// entry returns the stored value of id's dictionary entry, whose key is
// groupKey(id).
func (d *dictionary) entry(id uint32) []byte {
	loc := d.locs[id]
	return appendPair(nil, loc.PartitionPath, loc.FileID)
}

// rollback forgets every id from n on: their entries did not commit.
func (d *dictionary) rollback(n int) {
	for _, loc := range d.locs[n:] {
		delete(d.ids, loc)
	}
	d.locs = d.locs[:n]
}
