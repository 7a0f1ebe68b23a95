package timeline

import (
	"fmt"
	"reflect"
	"testing"
)

func TestJavaStringHash(t *testing.T) {
	// Values of Java's String.hashCode (OpenJDK 17).
	tests := []struct {
		in   string
		want int32
	}{
		{"", 0},
		{"10", 1567},
		{"hello", 99162322},
		{"Aa", 2112},
		{"BB", 2112},
		{"schema", -907987551},
		{"é", 233},
		{"😀", 1772899}, // a surrogate pair: 0xD83D, 0xDE00
	}
	for _, tt := range tests {
		if got := int32(javaStringHash(tt.in)); got != tt.want {
			t.Errorf("javaStringHash(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

// TestJavaHashMapOrder checks the order against what java.util.HashMap
// printed (OpenJDK 17) for the same keys put in sorted order.
func TestJavaHashMapOrder(t *testing.T) {
	var p13 []string
	for i := range 13 {
		p13 = append(p13, fmt.Sprintf("p%d", i))
	}
	// Partitions of a replacecommit Hudi wrote; 16 keys grow the table to
	// 32 buckets.
	replaced := []string{
		"2023-04-24/04/sg/appsdk", "2023-04-24/04/jp/appsdk", "2023-04-24/04/kr/appsdk", "2023-04-24/04/th/appsdk",
		"2023-04-24/04/ph/server", "2023-04-24/04/tw/server", "2023-04-24/04/my/server", "2023-04-24/04/sg/server",
		"2023-04-24/04/global/server", "2023-04-24/04/tw/appsdk", "2023-04-24/04/my/appsdk", "2023-04-24/04/jp/server",
		"2023-04-24/04/ph/appsdk", "2023-04-24/04/global/appsdk", "2023-04-24/04/kr/server", "2023-04-24/04/th/server",
	}
	tests := []struct {
		keys []string
		want []string
	}{
		{[]string{"10", "20", "30"}, []string{"30", "20", "10"}},
		// "Aa" and "BB" share a bucket; "" is in bucket 0.
		{[]string{"BB", "Aa", ""}, []string{"", "Aa", "BB"}},
		{
			[]string{"byteField=10/shortField=300", "byteField=20/shortField=100", "byteField=30/shortField=100"},
			[]string{"byteField=20/shortField=100", "byteField=10/shortField=300", "byteField=30/shortField=100"},
		},
		// 13 keys pass the threshold of 12: 32 buckets.
		{p13, []string{"p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8", "p9", "p10", "p12", "p11"}},
		{replaced, []string{
			"2023-04-24/04/my/appsdk", "2023-04-24/04/jp/appsdk", "2023-04-24/04/sg/server", "2023-04-24/04/global/appsdk",
			"2023-04-24/04/ph/appsdk", "2023-04-24/04/tw/server", "2023-04-24/04/tw/appsdk", "2023-04-24/04/my/server",
			"2023-04-24/04/th/server", "2023-04-24/04/sg/appsdk", "2023-04-24/04/global/server", "2023-04-24/04/th/appsdk",
			"2023-04-24/04/kr/appsdk", "2023-04-24/04/jp/server", "2023-04-24/04/ph/server", "2023-04-24/04/kr/server",
		}},
		{nil, nil},
	}
	for _, tt := range tests {
		if got := javaHashMapOrder(tt.keys); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("javaHashMapOrder(%q)\n = %q\nwant %q", tt.keys, got, tt.want)
		}
	}
}

func TestAppendJacksonString(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"plain", `"plain"`},
		{`a"b\c/d`, `"a\"b\\c/d"`},
		{"\b\t\n\f\r", `"\b\t\n\f\r"`},
		{"\x00\x01\x1f\x7f", "\"\\u0000\\u0001\\u001F\x7f\""},
		{"<é>&\u2028", "\"<é>&\u2028\""},
		{"bad\xffutf8", "\"bad\uFFFDutf8\""},
	}
	for _, tt := range tests {
		if got := string(appendJacksonString(nil, tt.in)); got != tt.want {
			t.Errorf("appendJacksonString(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestAppendJackson(t *testing.T) {
	v := jsonObject{
		{"a", jsonArray{}},
		{"b", jsonObject{}},
		{"c", jsonArray{int64(1), "x", nil, true}},
		{"d", jsonArray{jsonObject{{"e", jsonObject{{"f", int64(-2)}}}}}},
	}
	want := `{
  "a" : [ ],
  "b" : { },
  "c" : [ 1, "x", null, true ],
  "d" : [ {
    "e" : {
      "f" : -2
    }
  } ]
}`
	if got := string(appendJackson(nil, v, 0)); got != want {
		t.Errorf("appendJackson:\n got %s\nwant %s", got, want)
	}
}
