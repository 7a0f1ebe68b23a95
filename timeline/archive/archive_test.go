package archive

import (
	"bytes"
	"context"
	"encoding/json"
	"path"
	"reflect"
	"testing"

	"github.com/hoodie-dev/hoodie/internal/avrofile/avrofiletest"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/timeline"
)

// commitJSON is commit metadata as Hoodie's writer writes it.
func commitJSON(t testing.TB, instant string) []byte {
	t.Helper()
	m := &timeline.CommitMetadata{OperationType: "upsert", ExtraMetadata: map[string]string{"schema": `{"type":"record"}`}}
	m.AddWriteStat("p1", timeline.WriteStat{FileID: "f1-0", Path: "p1/f1-0_0-1-1_" + instant + ".parquet", PrevCommit: "null", NumWrites: 7, NumInserts: 7, TotalWriteBytes: 4096, PartitionPath: "p1", FileSizeInBytes: 4096})
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func sampleEntries(t testing.TB) []Entry {
	t.Helper()
	var out []Entry
	add := func(in timeline.Instant, details []byte) {
		e, err := NewEntry(in, details)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	for _, ts := range []string{"20240101000001000", "20240101000002000"} {
		add(timeline.Instant{Time: ts, Action: timeline.ActionCommit, State: timeline.StateRequested}, nil)
		add(timeline.Instant{Time: ts, Action: timeline.ActionCommit, State: timeline.StateInflight}, commitJSON(t, ts))
		add(timeline.Instant{Time: ts, Action: timeline.ActionCommit, State: timeline.StateCompleted}, commitJSON(t, ts))
	}
	add(timeline.Instant{Time: "20240101000003000", Action: timeline.ActionClean, State: timeline.StateCompleted}, avrofiletest.CleanMetadata(t, "20240101000003000", "20240101000002000"))
	return out
}

func TestEncodeDecode(t *testing.T) {
	entries := sampleEntries(t)
	data, err := Encode(entries, 2)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(data, magic); n != 4 {
		t.Errorf("7 entries in batches of 2 made %d blocks, want 4", n)
	}
	got, skipped, err := Decode(data)
	if err != nil || skipped != 0 {
		t.Fatalf("Decode: skipped %d, %v", skipped, err)
	}
	if len(got) != len(entries) {
		t.Fatalf("decoded %d entries, want %d", len(got), len(entries))
	}
	for i := range got {
		if got[i].Instant != entries[i].Instant {
			t.Errorf("entry %d: %s, want %s", i, got[i].Instant, entries[i].Instant)
		}
	}
	if op := got[0].Metadata["operationType"]; op != "UNKNOWN" {
		t.Errorf("a requested commit's empty file archived with operation %v, want Hudi's empty metadata (UNKNOWN)", op)
	}
	// The commit's metadata reads back as the commit metadata written.
	tl := &Timeline{entries: got}
	m, err := tl.CommitMetadata("20240101000002000", timeline.ActionCommit)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := timeline.ParseCommitMetadata(commitJSON(t, "20240101000002000"))
	if !reflect.DeepEqual(m.WrittenPaths(), want.WrittenPaths()) || m.Schema() != want.Schema() || m.OperationType != want.OperationType {
		t.Errorf("archived commit metadata %+v, want %+v", m.CommitMetadata, want)
	}
	if ws := m.WriteStats(); len(ws) != 1 || ws[0].NumWrites != 7 || ws[0].FileSizeInBytes != 4096 {
		t.Errorf("archived write stats %+v", ws)
	}
	clean, ok := tl.Completed("20240101000003000", timeline.ActionClean)
	if !ok || clean.Metadata["earliestCommitToRetain"] != "20240101000002000" || clean.Metadata["version"] != int32(2) {
		t.Errorf("archived clean %v %+v", ok, clean.Metadata)
	}
	if inst := tl.Instants(); len(inst) != 3 || inst[0].State != timeline.StateCompleted {
		t.Errorf("Instants() = %v, want 3 completed instants", inst)
	}
}

// TestDecodeSkipsBrokenBlocks: a block cut short (a writer killed while
// appending it) or damaged is skipped, the blocks around it read.
func TestDecodeSkipsBrokenBlocks(t *testing.T) {
	entries := sampleEntries(t)
	data, err := Encode(entries, 3)
	if err != nil {
		t.Fatal(err)
	}
	cut := data[:len(data)-5]
	got, skipped, err := Decode(cut)
	if err != nil || skipped != 1 || len(got) != 6 {
		t.Errorf("cut file: %d entries, %d skipped, %v; want 6, 1, nil", len(got), skipped, err)
	}
	second := bytes.Index(data[1:], magic) + 1
	damaged := bytes.Clone(data)
	damaged[second+8] ^= 0x40 // the second block's length
	got, skipped, err = Decode(damaged)
	if err != nil || skipped != 1 || len(got) != 4 {
		t.Errorf("damaged block: %d entries, %d skipped, %v; want 4, 1, nil", len(got), skipped, err)
	}
}

func TestAppendLoad(t *testing.T) {
	ctx := context.Background()
	fsys := storage.NewMemFS()
	entries := sampleEntries(t)
	first, err := Append(ctx, fsys, entries[:3], 10)
	if err != nil {
		t.Fatal(err)
	}
	// An archiver killed before it removed the instants archives them
	// again: the archived timeline holds each once.
	second, err := Append(ctx, fsys, entries, 10)
	if err != nil {
		t.Fatal(err)
	}
	if first != ".commits_.archive.1_1-0-1" || second != ".commits_.archive.2_1-0-1" {
		t.Errorf("archive files %s, %s", first, second)
	}
	// Files that are not archive files are not read.
	if err := fsys.WriteFile(ctx, path.Join(Folder, "mergeArchivePlan"), []byte("junk")); err != nil {
		t.Fatal(err)
	}
	tl, err := Load(ctx, fsys)
	if err != nil {
		t.Fatal(err)
	}
	if got := tl.Entries(); len(got) != len(entries) {
		t.Errorf("loaded %d entries, want %d", len(got), len(entries))
	}
	empty, err := Load(ctx, storage.NewMemFS())
	if err != nil || len(empty.Instants()) != 0 {
		t.Errorf("a table without archive: %v, %v", empty.Instants(), err)
	}
}

func TestFileVersion(t *testing.T) {
	for name, want := range map[string]int{".commits_.archive.1_1-0-1": 1, ".commits_.archive.12_1-0-2": 12, ".commits_.archive.x_1": -1, "commits": -1, ".commits_.archive.3": -1} {
		v, ok := FileVersion(name)
		if (want < 0) == ok || ok && v != want {
			t.Errorf("FileVersion(%q) = %d, %v", name, v, ok)
		}
	}
}

func FuzzDecode(f *testing.F) {
	data, err := Encode(sampleEntries(f), 2)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add(data[:len(data)/2])
	f.Add([]byte("#HUDI#"))
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, _, err := Decode(data)
		if err != nil {
			return
		}
		for _, e := range entries {
			if _, err := e.Instant.FileName(); err != nil {
				t.Errorf("decoded an invalid instant %s: %v", e.Instant, err)
			}
			if _, err := e.MetadataJSON(); err != nil {
				t.Errorf("metadata of %s: %v", e.Instant, err)
			}
		}
	})
}
