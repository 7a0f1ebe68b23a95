package config

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseProperties(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want map[string]string
	}{
		{"equals", "a=b\n", map[string]string{"a": "b"}},
		{"colon", "a:b", map[string]string{"a": "b"}},
		{"space separator", "a b c", map[string]string{"a": "b c"}},
		{"spaces around separator", "  a  =  b ", map[string]string{"a": "b "}},
		{"comments and blanks", "#c\n!d\n\n   \na=1", map[string]string{"a": "1"}},
		{"escaped colon in value", `s={"type"\:"record"}`, map[string]string{"s": `{"type":"record"}`}},
		{"escaped separator in key", `a\=b=c`, map[string]string{"a=b": "c"}},
		{"escaped space in key", `a\ b=c`, map[string]string{"a b": "c"}},
		{"control escapes", `a=x\ty\nz`, map[string]string{"a": "x\ty\nz"}},
		{"unicode escape", `a=caf\u00e9`, map[string]string{"a": "café"}},
		{"surrogate pair", `a=\uD83D\uDE00`, map[string]string{"a": "😀"}},
		{"continuation", "a=one\\\n    two", map[string]string{"a": "onetwo"}},
		{"escaped backslash is no continuation", "a=x\\\\\nb=y", map[string]string{"a": `x\`, "b": "y"}},
		{"key only", "flag", map[string]string{"flag": ""}},
		{"empty key", "=v", map[string]string{"": "v"}},
		{"later duplicate wins", "a=1\na=2", map[string]string{"a": "2"}},
		{"crlf", "a=1\r\nb=2\r\n", map[string]string{"a": "1", "b": "2"}},
		{"unknown escape is the character", `a=\q`, map[string]string{"a": "q"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ParseProperties([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, k := range p.Keys() {
				got[k], _ = p.Get(k)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestParsePropertiesErrors(t *testing.T) {
	tests := []struct {
		name, in, wantErr string
	}{
		{"short unicode escape", "a=1\nb=\\u12", "line 2"},
		{"bad hex", "b=\\uZZZZ", `malformed \u escape`},
		{"lone high surrogate", `b=\uD83Dx`, "unpaired surrogate"},
		{"not utf-8", "a=\xff", "UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseProperties([]byte(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("got error %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestPropertiesMarshalEscapes(t *testing.T) {
	p := NewProperties()
	p.Set("hoodie.table.create.schema", `{"type":"record","a=b":"#!"}`)
	p.Set("lead", "  spaced value")
	p.Set("key with space", "v")
	out := string(p.Marshal("comment"))
	for _, want := range []string{
		"#comment\n",
		`hoodie.table.create.schema={"type"\:"record","a\=b"\:"\#\!"}`,
		`lead=\  spaced value`,
		`key\ with\ space=v`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestPropertiesOrderAndDelete(t *testing.T) {
	p := NewProperties()
	p.Set("b", "1")
	p.Set("a", "2")
	p.Set("b", "3")
	if got := p.Keys(); !reflect.DeepEqual(got, []string{"b", "a"}) {
		t.Fatalf("keys %v", got)
	}
	p.Delete("b")
	p.Delete("missing")
	if got := p.Keys(); !reflect.DeepEqual(got, []string{"a"}) || p.Len() != 1 {
		t.Fatalf("keys after delete %v", got)
	}
	if p.GetOr("b", "def") != "def" {
		t.Fatal("deleted key still readable")
	}
}

// FuzzProperties checks that parsing never panics and that whatever parses
// survives a write and a second parse unchanged.
func FuzzProperties(f *testing.F) {
	for _, seed := range []string{
		"a=b", `s={"type"\:"record"}`, "a=one\\\n two", `k\ 1=\u00e9\uD83D\uDE00`, "#c\n!d\n= \n", "a\\", "\\u",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseProperties(data)
		if err != nil {
			return
		}
		again, err := ParseProperties(p.Marshal("fuzz"))
		if err != nil {
			t.Fatalf("re-parse of marshalled properties: %v", err)
		}
		for _, k := range p.Keys() {
			want, _ := p.Get(k)
			got, ok := again.Get(k)
			if !ok || got != want {
				t.Fatalf("key %q: got %q (present %v), want %q", k, got, ok, want)
			}
		}
		if again.Len() != p.Len() {
			t.Fatalf("got %d keys, want %d", again.Len(), p.Len())
		}
	})
}
