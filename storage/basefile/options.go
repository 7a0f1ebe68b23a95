package basefile

import (
	"cmp"
	"fmt"
	"strings"
	"sync"

	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/encoding"
	"github.com/parquet-go/parquet-go/format"
)

// Defaults of the base file writer's settings.
const (
	DefaultCompression = "zstd"
	DefaultBlockSize   = 120 << 20 // hoodie.parquet.block.size
	DefaultPageSize    = 1 << 20   // hoodie.parquet.page.size
	// DefaultStringEncoding is the encoding of string and bytes columns:
	// DELTA_LENGTH_BYTE_ARRAY stores the lengths of a page's values apart
	// from their bytes, which zstd then compresses much faster than
	// PLAIN's length-prefixed values, to a slightly smaller size
	// (docs/performance.md).
	DefaultStringEncoding = "DELTA_LENGTH_BYTE_ARRAY"
)

// Options tunes a base file writer. Zero fields take the defaults.
type Options struct {
	// Compression is the codec of hoodie.parquet.compression.codec: "zstd"
	// (the default), "snappy", "gzip" or "uncompressed".
	Compression string
	// BlockSize is the row group size in bytes (hoodie.parquet.block.size).
	BlockSize int64
	// PageSize is the page size in bytes (hoodie.parquet.page.size).
	PageSize int
	// StringEncoding is the encoding of string and bytes columns that have
	// no dictionary: "DELTA_LENGTH_BYTE_ARRAY" (the default) or "PLAIN",
	// in any case. Spark's vectorized Parquet reader decodes the first
	// from Spark 3.3 on; PLAIN is for older readers.
	StringEncoding string
	// BloomNumEntries, BloomFPP and BloomMaxEntries size the bloom filter of
	// record keys (hoodie.index.bloom.num_entries, hoodie.index.bloom.fpp,
	// hoodie.bloom.index.filter.dynamic.max.entries).
	BloomNumEntries int
	BloomFPP        float64
	BloomMaxEntries int
	// SeedBloom, if not nil, starts the bloom filter from a copy of this
	// one (a previous version's) instead of an empty one: rows carried over
	// with CarryRows then need not be hashed again. Keys the previous
	// version held and this one does not stay in the filter, which only
	// adds false positives, as a bloom filter may.
	SeedBloom *BloomFilter
	// NoBloomFilter leaves out the bloom filter footer. Spark's bloom index
	// (Hudi's default index) cannot use files without one.
	NoBloomFilter bool
	// NoMetaFields writes rows of the schema as given, without Hudi's meta
	// fields, as a table with hoodie.populate.meta.fields=false stores
	// them. Such rows carry no record key, so the footer has neither a
	// bloom filter nor a record-key range, as Spark writes these files.
	NoMetaFields bool
	// NewRecordsOnly promises that every record will come through
	// WriteNew, as in a file group's first version. The writer then
	// encodes the columns of a flat schema (one without records, arrays or
	// maps) itself, straight from the records' values, at about half the
	// cost of parquet-go's writer. WriteRow, WriteRows, CarryRows and
	// CarryRowGroup fail on such a writer.
	//
	// That writer also dictionary-encodes each string and bytes column
	// chunk whose first page takes less room so, as parquet-mr does, and
	// stops adding to a dictionary at 1 MiB; parquet-go's writer does so
	// for the meta columns that hold a few values per file only.
	NewRecordsOnly bool
	// NoDictionary keeps the data columns of NewRecordsOnly writers from
	// dictionaries (hoodie.parquet.dictionary.enabled=false).
	NoDictionary bool
}

// compressionCodecs maps hoodie.parquet.compression.codec values to codecs.
var compressionCodecs = map[string]compress.Codec{
	"zstd":         new(zstdCodec),
	"snappy":       &parquet.Snappy,
	"gzip":         &parquet.Gzip,
	"uncompressed": &parquet.Uncompressed,
}

// zstdCodec is the zstd codec base files are written with: klauspost's
// encoder at its fastest level, entropy-coding the literals of blocks
// without matches too. On the pages of base files, whose largest columns
// hold random keys, it compresses a little better than parquet-go's codec
// (its default level) in about half the time.
type zstdCodec struct {
	encoders sync.Pool // of *zstd.Encoder
}

// String returns the codec's name.
func (c *zstdCodec) String() string { return "ZSTD" }

// CompressionCodec returns the codec's code in Parquet files.
func (c *zstdCodec) CompressionCodec() format.CompressionCodec { return format.Zstd }

// Encode compresses src into dst, reusing its memory.
func (c *zstdCodec) Encode(dst, src []byte) ([]byte, error) {
	e, _ := c.encoders.Get().(*zstd.Encoder)
	if e == nil {
		var err error
		e, err = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithAllLitEntropyCompression(true),
			zstd.WithEncoderConcurrency(1), zstd.WithZeroFrames(true), zstd.WithEncoderCRC(false))
		if err != nil {
			return nil, fmt.Errorf("zstd encoder: %w", err)
		}
	}
	defer c.encoders.Put(e)
	return e.EncodeAll(src, dst[:0]), nil
}

// Decode decodes with parquet-go's codec: the level does not matter to
// decoding.
func (c *zstdCodec) Decode(dst, src []byte) ([]byte, error) { return parquet.Zstd.Decode(dst, src) }

// MaxPageSize bounds Options.PageSize: Parquet's page sizes are
// 32-bit, and a page may exceed the page size by a chunk of values.
const MaxPageSize = 1 << 30

// CompressionCodec returns the codec base files are compressed with for a
// hoodie.parquet.compression.codec value: "zstd" (or "", the default),
// "snappy", "gzip" or "uncompressed", in any case. Other Parquet writers
// use it to match base files.
func CompressionCodec(name string) (compress.Codec, error) {
	codec, ok := compressionCodecs[strings.ToLower(cmp.Or(name, DefaultCompression))]
	if !ok {
		return nil, fmt.Errorf("unsupported compression codec %q (want zstd, snappy, gzip or uncompressed)", name)
	}
	return codec, nil
}

// StringEncoding returns the encoding of string and bytes columns for a
// Options.StringEncoding value: "DELTA_LENGTH_BYTE_ARRAY" (or "",
// the default) or "PLAIN", in any case.
func StringEncoding(name string) (encoding.Encoding, error) {
	switch strings.ToUpper(cmp.Or(name, DefaultStringEncoding)) {
	case "DELTA_LENGTH_BYTE_ARRAY":
		return &parquet.DeltaLengthByteArray, nil
	case "PLAIN":
		return &parquet.Plain, nil
	}
	return nil, fmt.Errorf("unsupported string encoding %q (want DELTA_LENGTH_BYTE_ARRAY or PLAIN)", name)
}

// writerOptions returns the parquet-go settings of base files of the
// Parquet schema, but their footer metadata.
func writerOptions(schema *parquet.Schema, codec compress.Codec, stringEncoding encoding.Encoding, pageSize int) []parquet.WriterOption {
	return []parquet.WriterOption{
		schema,
		parquet.Compression(codec),
		parquet.PageBufferSize(pageSize),
		// Data page v1, as parquet-mr writes it: every Parquet reader, old
		// Spark ones included, reads it. Numbers are PLAIN, as parquet-mr
		// writes them.
		parquet.DataPageVersion(1),
		parquet.DefaultEncodingFor(parquet.ByteArray, stringEncoding),
		// Page bounds go to the column index only, not to page headers
		// too, as parquet-mr has written them since 1.11 (Hudi's files have
		// none): computing them twice costs.
		parquet.DataPageStatistics(false),
		parquet.WriteBufferSize(256 << 10),
	}
}
