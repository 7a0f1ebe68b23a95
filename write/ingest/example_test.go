package ingest_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/hoodie-dev/hoodie/write/ingest"
)

// ExampleDecode decodes two JSON lines for a table without a schema yet:
// the schema is inferred, and a number widens its column to a double.
func ExampleDecode() {
	lines := `{"uuid": "a", "ts": 1, "fare": 12}
{"uuid": "b", "ts": 2, "fare": 7.5, "city": "sao_paulo"}
`
	in, err := ingest.Decode(context.Background(), strings.NewReader(lines), "trips.jsonl", ingest.JSONL, nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range in.Schema.Fields {
		fmt.Println(f.Name, f.Type.Kind)
	}
	fmt.Println(in.Rows[0], in.Lines)
	// Output:
	// uuid string
	// ts long
	// fare double
	// city string
	// [a 1 12 <nil>] [1 2]
}

// ExampleDecode_refused shows the one error of a record whose value does
// not fit: it names the input, the line, the column and why.
func ExampleDecode_refused() {
	lines := `{"uuid": "a", "ts": 1}
{"uuid": "b", "ts": "soon"}
`
	_, err := ingest.Decode(context.Background(), strings.NewReader(lines), "trips.jsonl", ingest.JSONL, nil)
	fmt.Println(err)
	// Output:
	// trips.jsonl: line 2: column "ts": string here, but long in earlier records
}
