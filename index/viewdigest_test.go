package index

import (
	"bytes"
	"context"
	"testing"
)

// TestViewDigestStoredWithWatermark checks that Apply, by batch and by
// ingestion, and RebuildDigest store the view digest with the watermark,
// durably, and that Apply and Rebuild without one record that it is not
// known: a caller then cannot take the index for one that matches the
// table's files, and rebuilds it.
func TestViewDigestStoredWithWatermark(t *testing.T) {
	ctx := context.Background()
	digest := []byte("0123456789abcdef")
	tests := []struct {
		name      string
		ingestMin int
		write     func(ix *Index, digest []byte) error
	}{
		{"apply batch", 1 << 20, func(ix *Index, digest []byte) error {
			return ix.Apply(ctx, "20240101000000002", ChangeSet{Puts: []Put{{"k", loc("p", "f")}}, ViewDigest: digest})
		}},
		{"apply ingest", 1, func(ix *Index, digest []byte) error {
			return ix.Apply(ctx, "20240101000000002", ChangeSet{Puts: []Put{{"k", loc("p", "f")}}, ViewDigest: digest})
		}},
		{"rebuild", 0, func(ix *Index, digest []byte) error {
			return ix.RebuildDigest(ctx, "20240101000000002", digest, mapScan(map[string]Location{"k": loc("p", "f")}))
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := testOptions
			opts.ingestMin = tc.ingestMin
			ix := openTest(t, t.TempDir(), opts)
			if ix.ViewDigest() != nil {
				t.Errorf("a new index has view digest %x", ix.ViewDigest())
			}
			mine := bytes.Clone(digest)
			if err := tc.write(ix, mine); err != nil {
				t.Fatal(err)
			}
			mine[0] = 'X' // the index keeps its own copy
			if got := ix.ViewDigest(); !bytes.Equal(got, digest) {
				t.Errorf("view digest: %q, want %q", got, digest)
			}
			ix = reopen(t, ix, opts)
			if got := ix.ViewDigest(); !bytes.Equal(got, digest) {
				t.Errorf("view digest after reopening: %q, want %q", got, digest)
			}
			if err := ix.Rebuild(ctx, "", mapScan(nil)); err != nil {
				t.Fatal(err)
			}
			if err := tc.write(ix, nil); err != nil {
				t.Fatal(err)
			}
			if got := ix.ViewDigest(); got != nil {
				t.Errorf("view digest after a write without one: %q, want nil", got)
			}
			if ix = reopen(t, ix, opts); ix.ViewDigest() != nil {
				t.Errorf("view digest after a write without one, reopened: %q, want nil", ix.ViewDigest())
			}
		})
	}
}
