package archive

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/hoodie-dev/hoodie/internal/avrofile"
	"github.com/hoodie-dev/hoodie/storage"
	"github.com/hoodie-dev/hoodie/timeline"
)

// Folder is the archived timeline's folder, relative to the table's base
// path (Hudi's default hoodie.archivelog.folder, "archived").
const Folder = storage.MetaFolder + "/archived"

// filePrefix starts the name of every archive file: Hudi's log file name
// ".<fileId>_<baseCommitTime>.<extension>.<version>_<writeToken>" with
// file id "commits", no base commit time and extension "archive".
const filePrefix = ".commits_.archive."

// writeToken is the write token of the archive files Hudi's archiver writes
// (HoodieLogFormat.UNKNOWN_WRITE_TOKEN).
const writeToken = "1-0-1"

// FileName returns the name of the archive file of the given version, as
// Hudi names it: ".commits_.archive.<version>_1-0-1".
func FileName(version int) string {
	return filePrefix + strconv.Itoa(version) + "_" + writeToken
}

// FileVersion parses the version of an archive file's name; ok is false
// for a name that is not an archive file's (Hudi's merge plan, a
// hidden file of another tool).
func FileVersion(name string) (version int, ok bool) {
	rest, found := strings.CutPrefix(name, filePrefix)
	if !found {
		return 0, false
	}
	digits, _, found := strings.Cut(rest, "_")
	if !found {
		return 0, false
	}
	v, err := strconv.Atoi(digits)
	if err != nil || v < 0 {
		return 0, false
	}
	return v, true
}

// File is one archive file of a table.
type File struct {
	// Name is the file's name in Folder.
	Name    string
	Version int
	Size    int64
}

// ListFiles lists the table's archive files by version, oldest first; none
// when the folder is absent.
func ListFiles(ctx context.Context, fsys storage.FS) ([]File, error) {
	entries, err := fsys.ReadDir(ctx, Folder)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("archived timeline: list %s: %w", Folder, err)
	}
	var out []File
	for _, e := range entries {
		if v, ok := FileVersion(e.Name); ok && !e.IsDir {
			out = append(out, File{Name: e.Name, Version: v, Size: e.Size})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Version != out[j].Version {
			return out[i].Version < out[j].Version
		}
		return out[i].Name < out[j].Name
	})
	return out, nil
}

// Decode reads the entries of an archive file, in the order they were
// written. Blocks whose framing is broken (a writer killed while appending
// one) are skipped, as Hudi's reader skips corrupt blocks, and counted in
// skipped; blocks that are not Avro data blocks are skipped too. A well
// framed data block that does not decode is an error.
func Decode(data []byte) (entries []Entry, skipped int, err error) {
	blocks, skipped := readBlocks(data)
	schemas := map[string]*avrofile.Schema{}
	for i, b := range blocks {
		if b.kind != avroDataBlock {
			skipped++
			continue
		}
		text := b.header[headerSchema]
		schema := schemas[text]
		if schema == nil {
			if schema, err = avrofile.ParseSchema([]byte(text)); err != nil {
				return nil, skipped, fmt.Errorf("block %d: %w", i+1, err)
			}
			schemas[text] = schema
		}
		records, err := dataBlockRecords(b.content)
		if err != nil {
			return nil, skipped, fmt.Errorf("block %d: %w", i+1, err)
		}
		for j, rec := range records {
			v, err := schema.Decode(rec)
			if err != nil {
				return nil, skipped, fmt.Errorf("block %d, record %d: %w", i+1, j+1, err)
			}
			e, err := decodeEntry(v)
			if err != nil {
				return nil, skipped, fmt.Errorf("block %d, record %d: %w", i+1, j+1, err)
			}
			entries = append(entries, e)
		}
	}
	return entries, skipped, nil
}

// Encode makes the content of an archive file holding the entries, in
// Avro data blocks of at most batch records each (Hudi's
// hoodie.commits.archival.batch).
func Encode(entries []Entry, batch int) ([]byte, error) {
	if batch < 1 {
		return nil, fmt.Errorf("archive: a batch of %d records", batch)
	}
	header := map[int32]string{headerSchema: entrySchemaText}
	var out []byte
	for lo := 0; lo < len(entries); lo += batch {
		hi := min(lo+batch, len(entries))
		records := make([][]byte, 0, hi-lo)
		for _, e := range entries[lo:hi] {
			rec, err := e.encode()
			if err != nil {
				return nil, err
			}
			records = append(records, rec)
		}
		out = appendBlock(out, block{kind: avroDataBlock, header: header, content: appendDataBlockContent(nil, records)})
	}
	return out, nil
}

// Append writes the entries to a new archive file, the version after the
// latest, and returns its name. The file appears whole or not at all
// (storage.FS.CreateIfAbsent), so that a reader never sees part of it; a
// file of the same version made meanwhile moves it to the next version,
// as Hudi's log writer rolls over.
func Append(ctx context.Context, fsys storage.FS, entries []Entry, batch int) (string, error) {
	data, err := Encode(entries, batch)
	if err != nil {
		return "", err
	}
	files, err := ListFiles(ctx, fsys)
	if err != nil {
		return "", err
	}
	version := 1
	if len(files) > 0 {
		version = files[len(files)-1].Version + 1
	}
	for tries := 0; ; tries++ {
		name := FileName(version)
		err := fsys.CreateIfAbsent(ctx, path.Join(Folder, name), data)
		if err == nil {
			return name, nil
		}
		if !errors.Is(err, fs.ErrExist) || tries == 100 {
			return "", fmt.Errorf("archived timeline: write %s: %w", name, err)
		}
		version++
	}
}

// Timeline is a table's archived timeline: every instant its archive files
// hold, each once.
type Timeline struct {
	entries []Entry // sorted as timeline instants are
}

// Load reads every archive file of the table on fsys. An instant archived
// twice (an archiver that died before it removed what it archived from the
// active timeline archives it again) is kept once. Broken blocks are
// skipped as Decode skips them.
func Load(ctx context.Context, fsys storage.FS) (*Timeline, error) {
	files, err := ListFiles(ctx, fsys)
	if err != nil {
		return nil, err
	}
	type key struct {
		time   string
		action timeline.Action
		state  timeline.State
	}
	seen := map[key]bool{}
	t := &Timeline{}
	for _, f := range files {
		p := path.Join(Folder, f.Name)
		data, err := fsys.ReadFile(ctx, p)
		if errors.Is(err, fs.ErrNotExist) {
			continue // merged away by Hudi since it was listed
		}
		if err != nil {
			return nil, fmt.Errorf("archived timeline: %w", err)
		}
		entries, _, err := Decode(data)
		if err != nil {
			return nil, fmt.Errorf("archived timeline: %s: %w", p, err)
		}
		for _, e := range entries {
			k := key{e.Instant.Time, e.Instant.Action, e.Instant.State}
			if !seen[k] {
				seen[k] = true
				t.entries = append(t.entries, e)
			}
		}
	}
	sort.SliceStable(t.entries, func(i, j int) bool {
		return timeline.Less(t.entries[i].Instant, t.entries[j].Instant)
	})
	return t, nil
}

// Entries returns every archived entry, every state of an instant
// included, in timeline order. The slice is the caller's.
func (t *Timeline) Entries() []Entry { return append([]Entry(nil), t.entries...) }

// Instants returns each archived instant once, in the latest state the
// archive holds, in timeline order.
func (t *Timeline) Instants() []timeline.Instant {
	var out []timeline.Instant
	for _, e := range t.entries {
		in := e.Instant
		if n := len(out); n > 0 && out[n-1].Time == in.Time && timeline.CompletedAction(out[n-1].Action) == timeline.CompletedAction(in.Action) {
			out[n-1] = in // sorted by state last: the later state wins
			continue
		}
		out = append(out, in)
	}
	return out
}

// Completed returns the latest entry of the completed instant of time ts
// and action a (a compaction's is a commit); ok is false when the archive
// does not hold it.
func (t *Timeline) Completed(ts string, a timeline.Action) (e Entry, ok bool) {
	i := sort.Search(len(t.entries), func(i int) bool { return t.entries[i].Instant.Time >= ts })
	for ; i < len(t.entries) && t.entries[i].Instant.Time == ts; i++ {
		if in := t.entries[i].Instant; in.State == timeline.StateCompleted && timeline.CompletedAction(in.Action) == timeline.CompletedAction(a) {
			return t.entries[i], true
		}
	}
	return Entry{}, false
}

// CommitMetadata returns the commit metadata of an archived completed
// commit, deltacommit or replacecommit of time ts (a replacecommit's
// replaced file groups included).
func (t *Timeline) CommitMetadata(ts string, a timeline.Action) (*timeline.ReplaceCommitMetadata, error) {
	e, ok := t.Completed(ts, a)
	if !ok {
		return nil, fmt.Errorf("archived timeline: no completed %s at %s", a, ts)
	}
	data, err := e.MetadataJSON()
	if err != nil {
		return nil, err
	}
	if data == nil {
		return &timeline.ReplaceCommitMetadata{}, nil
	}
	m, err := timeline.ParseReplaceCommitMetadata(data)
	if err != nil {
		return nil, fmt.Errorf("archived %s: %w", e.Instant, err)
	}
	return m, nil
}

// Listed is an instant of a table's whole timeline, with where it is.
type Listed struct {
	timeline.Instant
	// Archived is true for an instant of the archived timeline only.
	Archived bool
}

// Merged lists the instants of the archived and the active timeline in
// timeline order, each once: an instant on both (an archival that died
// before it removed what it archived leaves it so) is listed as active,
// in its active state.
func Merged(active *timeline.Timeline, archived *Timeline) []Listed {
	type key struct {
		time   string
		action timeline.Action
	}
	onActive := map[key]bool{}
	act := active.Instants()
	for _, in := range act {
		onActive[key{in.Time, timeline.CompletedAction(in.Action)}] = true
	}
	out := make([]Listed, 0, len(act)+len(archived.entries))
	for _, in := range archived.Instants() {
		if !onActive[key{in.Time, timeline.CompletedAction(in.Action)}] {
			out = append(out, Listed{Instant: in, Archived: true})
		}
	}
	for _, in := range act {
		out = append(out, Listed{Instant: in})
	}
	sort.SliceStable(out, func(i, j int) bool { return timeline.Less(out[i].Instant, out[j].Instant) })
	return out
}
