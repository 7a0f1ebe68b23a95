package archive

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/hamba/avro/v2"

	"github.com/hoodie-dev/hoodie/internal/avrofile"
	"github.com/hoodie-dev/hoodie/timeline"
)

// entrySchemaText is Hudi 0.15's HoodieArchivedMetaEntry schema as its
// archiver writes it into every block's header (the schema of the Avro
// class, with the schemas of the metadata records it holds inlined).
//
//go:embed HoodieArchivedMetaEntry.avsc
var entrySchemaText string

// writeSchema is entrySchemaText parsed for encoding.
var writeSchema = sync.OnceValues(func() (avro.Schema, error) {
	return avro.Parse(entrySchemaText)
})

// Entry is one archived instant: a HoodieArchivedMetaEntry record.
type Entry struct {
	// Instant is the instant: its time, action and state.
	Instant timeline.Instant
	// StateTransitionTime is when the instant reached its state, as an
	// instant time: Hudi takes the modification time of the state's
	// file. "" when unknown.
	StateTransitionTime string
	// Metadata is the content of the instant's file as Hudi archives it,
	// as a generic Avro record (see avrofile.Read for the Go types): the
	// commit metadata of a commit, the HoodieCleanMetadata of a completed
	// clean, and so on (see metadataField). Nil when the file was empty
	// (a requested commit) or its state keeps nothing (a pending
	// rollback).
	Metadata map[string]any
}

// metadataField names the field of HoodieArchivedMetaEntry that holds the
// metadata of an instant in its state, as Hudi's
// MetadataConversionUtils.createMetaWrapper fills it; "" when none does.
// json tells whether the instant's file holds commit metadata JSON (else
// it holds an Avro object container file).
func metadataField(in timeline.Instant) (field string, json bool) {
	done := in.State == timeline.StateCompleted
	switch in.Action {
	case timeline.ActionCommit, timeline.ActionDeltaCommit:
		return "hoodieCommitMetadata", true
	case timeline.ActionReplaceCommit:
		switch in.State {
		case timeline.StateCompleted:
			return "hoodieReplaceCommitMetadata", true
		case timeline.StateInflight:
			return "HoodieInflightReplaceMetadata", true
		}
		return "hoodieRequestedReplaceMetadata", false
	case timeline.ActionClean:
		if done {
			return "hoodieCleanMetadata", false
		}
		return "hoodieCleanerPlan", false
	case timeline.ActionRollback:
		if done {
			return "hoodieRollbackMetadata", false
		}
	case timeline.ActionSavepoint:
		return "hoodieSavePointMetadata", false
	case timeline.ActionCompaction:
		if !done {
			return "hoodieCompactionPlan", false
		}
		return "hoodieCommitMetadata", true
	}
	return "", false
}

// Archivable reports whether Hudi's archiver archives instants of the
// action (MetadataConversionUtils refuses the others).
func Archivable(a timeline.Action) bool {
	switch a {
	case timeline.ActionCommit, timeline.ActionDeltaCommit, timeline.ActionReplaceCommit,
		timeline.ActionClean, timeline.ActionRollback, timeline.ActionSavepoint, timeline.ActionCompaction:
		return true
	}
	return false
}

// NewEntry makes the entry of an instant from the content of its file in
// the active timeline, as Hudi's archiver converts it: commit metadata JSON
// becomes the Avro HoodieCommitMetadata (fields Hudi's Avro record lacks
// are dropped, its rolling stats blanked), the Avro plans and metadata of
// the other actions are taken as they are. An empty file gives an entry
// without metadata.
func NewEntry(in timeline.Instant, details []byte) (Entry, error) {
	if !Archivable(in.Action) {
		return Entry{}, fmt.Errorf("archive %s: Hudi does not archive %s instants", in, in.Action)
	}
	e := Entry{Instant: in}
	field, isJSON := metadataField(in)
	if field == "hoodieCommitMetadata" && len(details) == 0 && in.State != timeline.StateCompleted {
		// Hudi archives a pending commit's empty file as empty commit
		// metadata; an empty completed file (a crash of a writer that
		// did not create it atomically) as no metadata.
		details = []byte(`{"operationType":"UNKNOWN"}`)
	}
	if field == "" || len(details) == 0 {
		return e, nil
	}
	var value any
	if isJSON {
		dec := json.NewDecoder(bytes.NewReader(details))
		dec.UseNumber()
		if err := dec.Decode(&value); err != nil {
			return Entry{}, fmt.Errorf("archive %s: commit metadata: %w", in, err)
		}
		m, ok := value.(map[string]any)
		if !ok {
			return Entry{}, fmt.Errorf("archive %s: commit metadata is not a JSON object", in)
		}
		hudiCommitMetadata(m)
	} else {
		objects, err := avrofile.Read(details)
		if err != nil {
			return Entry{}, fmt.Errorf("archive %s: %w", in, err)
		}
		if len(objects) != 1 {
			return Entry{}, fmt.Errorf("archive %s: %d Avro objects, want 1", in, len(objects))
		}
		value = objects[0]
	}
	m, ok := value.(map[string]any)
	if !ok {
		return Entry{}, fmt.Errorf("archive %s: its metadata is not a record", in)
	}
	e.Metadata = m
	return e, nil
}

// hudiCommitMetadata does to commit metadata what Hudi's
// MetadataConversionUtils.convertCommitMetadata does before archiving it:
// a compaction's operation becomes COMPACT, and the rolling stats are
// blanked.
func hudiCommitMetadata(m map[string]any) {
	if c, _ := m["compacted"].(bool); c {
		m["operationType"] = "COMPACT"
	}
	extra, _ := m["extraMetadata"].(map[string]any)
	if extra == nil {
		extra = map[string]any{}
		m["extraMetadata"] = extra
	}
	extra["ROLLING_STAT"] = ""
	if m["partitionToWriteStats"] == nil {
		m["partitionToWriteStats"] = map[string]any{}
	}
}

// MetadataJSON returns the entry's metadata as JSON, as Hudi's archived
// timeline gives an instant's details (the Avro record's JSON form): for
// commits and replacecommits, what timeline.ParseCommitMetadata and
// timeline.ParseReplaceCommitMetadata read. Nil when the entry has none.
func (e Entry) MetadataJSON() ([]byte, error) {
	if e.Metadata == nil {
		return nil, nil
	}
	data, err := json.Marshal(e.Metadata)
	if err != nil {
		return nil, fmt.Errorf("archived %s: %w", e.Instant, err)
	}
	return data, nil
}

// encode encodes the entry as a HoodieArchivedMetaEntry record in Avro's
// binary encoding.
func (e Entry) encode() ([]byte, error) {
	schema, err := writeSchema()
	if err != nil {
		return nil, fmt.Errorf("archive entry schema: %w", err)
	}
	record := map[string]any{
		"commitTime":  e.Instant.Time,
		"actionType":  string(e.Instant.Action),
		"actionState": strings.ToUpper(e.Instant.State.String()),
	}
	if e.StateTransitionTime != "" {
		record["stateTransitionTime"] = e.StateTransitionTime
	}
	if field, _ := metadataField(e.Instant); field != "" && e.Metadata != nil {
		record[field] = e.Metadata
	}
	value, err := conform(schema, record, 0)
	if err != nil {
		return nil, fmt.Errorf("archive %s: %w", e.Instant, err)
	}
	data, err := avro.Marshal(schema, value)
	if err != nil {
		return nil, fmt.Errorf("archive %s: %w", e.Instant, err)
	}
	return data, nil
}

// conform turns a generic value (from JSON with numbers as json.Number, or
// from avrofile) into the form hamba/avro encodes with schema s: a union's
// value wrapped in a map keyed by its branch's name, numbers in the width
// of their type. Record fields absent from v take null; keys of v the
// record lacks are dropped, as Hudi's Jackson conversion drops them.
func conform(s avro.Schema, v any, depth int) (any, error) {
	if depth > 64 {
		return nil, errors.New("nested too deep")
	}
	switch s := s.(type) {
	case *avro.RefSchema:
		return conform(s.Schema(), v, depth+1)
	case *avro.UnionSchema:
		if v == nil {
			if s.Nullable() {
				return nil, nil
			}
			return nil, errors.New("null where the schema has no null")
		}
		var firstErr error
		for _, b := range s.Types() {
			if b.Type() == avro.Null {
				continue
			}
			cv, err := conform(b, v, depth+1)
			if err == nil {
				return map[string]any{branchName(b): cv}, nil
			}
			if firstErr == nil {
				firstErr = err
			}
		}
		return nil, firstErr
	case *avro.RecordSchema:
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: want a record, have %T", s.Name(), v)
		}
		out := make(map[string]any, len(s.Fields()))
		for _, f := range s.Fields() {
			fv, present := m[f.Name()]
			if !present && f.HasDefault() && f.Type().Type() != avro.Union {
				fv = f.Default()
			}
			cv, err := conform(f.Type(), fv, depth+1)
			if err != nil {
				return nil, fmt.Errorf("%s.%s: %w", s.Name(), f.Name(), err)
			}
			out[f.Name()] = cv
		}
		return out, nil
	case *avro.MapSchema:
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("want a map, have %T", v)
		}
		out := make(map[string]any, len(m))
		for k, x := range m {
			cv, err := conform(s.Values(), x, depth+1)
			if err != nil {
				return nil, fmt.Errorf("[%q]: %w", k, err)
			}
			out[k] = cv
		}
		return out, nil
	case *avro.ArraySchema:
		l, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("want an array, have %T", v)
		}
		out := make([]any, len(l))
		for i, x := range l {
			cv, err := conform(s.Items(), x, depth+1)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			out[i] = cv
		}
		return out, nil
	case *avro.EnumSchema:
		if str, ok := v.(string); ok {
			return str, nil
		}
		return nil, fmt.Errorf("want an enum symbol, have %T", v)
	}
	return primitive(s.Type(), v)
}

// branchName is the name hamba/avro knows a union branch by.
func branchName(s avro.Schema) string {
	if r, ok := s.(*avro.RefSchema); ok {
		return r.Schema().FullName()
	}
	if n, ok := s.(avro.NamedSchema); ok {
		return n.FullName()
	}
	return string(s.Type())
}

// primitive converts v to the Go type hamba/avro encodes as t.
func primitive(t avro.Type, v any) (any, error) {
	switch t {
	case avro.String:
		if s, ok := v.(string); ok {
			return s, nil
		}
	case avro.Boolean:
		if b, ok := v.(bool); ok {
			return b, nil
		}
	case avro.Bytes:
		if b, ok := v.([]byte); ok {
			return b, nil
		}
	case avro.Int, avro.Long:
		n, ok := integer(v)
		if !ok {
			break
		}
		if t == avro.Int {
			if n != int64(int32(n)) {
				return nil, fmt.Errorf("%d is out of an int's range", n)
			}
			return int32(n), nil
		}
		return n, nil
	case avro.Float, avro.Double:
		f, ok := float(v)
		if !ok {
			break
		}
		if t == avro.Float {
			return float32(f), nil
		}
		return f, nil
	}
	return nil, fmt.Errorf("want %s, have %T", t, v)
}

func integer(v any) (int64, bool) {
	switch n := v.(type) {
	case json.Number:
		i, err := n.Int64()
		return i, err == nil
	case int64:
		return n, true
	case int32:
		return int64(n), true
	case int:
		return int64(n), true
	}
	return 0, false
}

func float(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case float64:
		return n, true
	case float32:
		return float64(n), true
	}
	if i, ok := integer(v); ok {
		return float64(i), true
	}
	return 0, false
}

// decodeEntry makes an Entry of a decoded HoodieArchivedMetaEntry record.
func decodeEntry(v any) (Entry, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return Entry{}, errors.New("an archived entry is not a record")
	}
	str := func(k string) string { s, _ := m[k].(string); return s }
	in := timeline.Instant{Time: str("commitTime"), Action: timeline.Action(str("actionType"))}
	switch str("actionState") {
	case "REQUESTED":
		in.State = timeline.StateRequested
	case "INFLIGHT":
		in.State = timeline.StateInflight
	case "COMPLETED", "":
		// Archives written before Hudi 0.8 have no state: they hold
		// completed instants only.
		in.State = timeline.StateCompleted
	default:
		return Entry{}, fmt.Errorf("archived instant %s %s has state %q", in.Time, in.Action, str("actionState"))
	}
	if in.Time == "" || in.Action == "" {
		return Entry{}, fmt.Errorf("an archived entry has no instant time or action (%q, %q)", in.Time, in.Action)
	}
	if _, err := in.FileName(); err != nil {
		return Entry{}, fmt.Errorf("archived instant %s %s: %w", in.Time, in.Action, err)
	}
	e := Entry{Instant: in, StateTransitionTime: str("stateTransitionTime")}
	if field, _ := metadataField(in); field != "" {
		e.Metadata, _ = m[field].(map[string]any)
	}
	return e, nil
}
