package basefile

import (
	"bytes"
	"hash/maphash"
	"math/bits"

	"github.com/hoodie-dev/hoodie/internal/grow"
)

// columnarDictionary is the dictionary of a column chunk: its values in the
// order of their indexes, back to back, and an open-addressing hash table
// of them. The values of a small dictionary lie close together, where a
// map's string keys would each sit in memory of their own.
type columnarDictionary struct {
	slots   []int32 // a power of two of them: 0, or a value's index plus one
	seed    maphash.Seed
	bytes   []byte
	offsets []uint32 // starts with 0, then where each value ends
	last    int32    // the index last looked up, or -1: runs of a value are common
}

// lookup returns the index of s, adding it first if it is new.
func (d *columnarDictionary) lookup(s []byte) int32 {
	if d.last >= 0 && bytes.Equal(d.value(d.last), s) {
		return d.last
	}
	if 2*len(d.offsets) > len(d.slots) {
		d.grow()
	}
	mask := len(d.slots) - 1
	for i := int(maphash.Bytes(d.seed, s)) & mask; ; i = (i + 1) & mask {
		e := d.slots[i] - 1
		if e < 0 {
			e = int32(len(d.offsets) - 1)
			d.slots[i] = e + 1
			d.bytes = append(d.bytes, s...)
			d.offsets = append(d.offsets, uint32(len(d.bytes)))
			d.last = e
			return e
		}
		if bytes.Equal(d.value(e), s) {
			d.last = e
			return e
		}
	}
}

// grow doubles the hash table, at most half full after.
func (d *columnarDictionary) grow() {
	d.slots = make([]int32, max(64, 2*len(d.slots)))
	mask := len(d.slots) - 1
	for e := range int32(len(d.offsets) - 1) {
		i := int(maphash.Bytes(d.seed, d.value(e))) & mask
		for d.slots[i] != 0 {
			i = (i + 1) & mask
		}
		d.slots[i] = e + 1
	}
}

// value returns the value of index i.
func (d *columnarDictionary) value(i int32) []byte {
	return d.bytes[d.offsets[i]:d.offsets[i+1]]
}

// len returns the number of values.
func (d *columnarDictionary) len() int { return len(d.offsets) - 1 }

// reset empties the dictionary, keeping its memory.
func (d *columnarDictionary) reset() {
	clear(d.slots)
	d.bytes, d.offsets, d.last = d.bytes[:0], append(d.offsets[:0], 0), -1
}

// dictionaryProbe is how many values of a chunk's first page are enough
// to give up its dictionary when nine in ten of them differ.
const dictionaryProbe = 1024

// maxDictionaryBytes is the size of a chunk's dictionary beyond which its
// next pages hold plain values: parquet-mr's parquet.dictionary.page.size.
const maxDictionaryBytes = 1 << 20

// dictionaryPays tells whether the page's dictionary indexes and the
// dictionary take less room than its plain values would, parquet-mr's test
// at the end of a chunk's first page. A first page of nulls alone does not
// pay, and the chunk goes on without a dictionary, as in parquet-mr.
func (c *columnarColumn) dictionaryPays() bool {
	p := &c.page
	values, entries := len(p.indexes), c.dict.len()
	plain := p.dictBytes + 4*values
	encoded := len(c.dict.bytes) + 4*entries + (values*bits.Len(uint(max(entries-1, 0)))+7)/8
	return encoded < plain
}

// dropDictionary turns the page's dictionary indexes into plain values and
// empties the dictionary: the chunk goes on without one.
func (c *columnarColumn) dropDictionary() {
	p := &c.page
	for _, i := range p.indexes {
		p.bytes = append(grow.Reserve(p.bytes, len(c.dict.value(i))), c.dict.value(i)...)
		p.offsets = append(p.offsets, uint32(len(p.bytes)))
	}
	p.indexes, p.dictBytes = p.indexes[:0], 0
	c.dict.reset()
	c.dictOn = false
}
