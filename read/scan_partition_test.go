package read

import (
	"math/big"
	"testing"
	"time"

	"github.com/hoodie-dev/hoodie/storage/basefile"
)

// Partition folders hold values as Hudi's key generators render them; the
// scan reads them back as values of the column's type.
func TestPartitionValue(t *testing.T) {
	at := time.Date(2024, 4, 1, 17, 1, 0, 123000, time.UTC)
	tests := []struct {
		name string
		typ  *basefile.Type
		text string
		want any
	}{
		{"timestamp micros", basefile.TimestampMicrosType(), "1711990860000123", at},
		{"timestamp millis", basefile.TimestampMillisType(), "1711990860000", at.Truncate(time.Second)},
		{"timestamp before 1970", basefile.TimestampMillisType(), "-1000", time.Date(1969, 12, 31, 23, 59, 59, 0, time.UTC)},
		{"timestamp of an older Hoodie", basefile.TimestampMicrosType(), "2024-04-01T17:01:00.000123Z", at},
		{"double as Java writes it", basefile.Primitive(basefile.KindDouble), "1.0E7", 1e7},
		{"decimal as Java writes it", basefile.DecimalType(10, 8), "1E-7", basefile.NewDecimal(big.NewInt(10), 8)},
		{"long", basefile.Primitive(basefile.KindLong), "-5", int64(-5)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := partitionValue(tt.typ, tt.text)
			if !ok {
				t.Fatalf("partitionValue(%q) failed", tt.text)
			}
			switch want := tt.want.(type) {
			case time.Time:
				if g, _ := got.(time.Time); !g.Equal(want) {
					t.Errorf("got %v, want %v", got, want)
				}
			case basefile.Decimal:
				if g, ok := got.(basefile.Decimal); !ok || g.Cmp(want) != 0 {
					t.Errorf("got %v, want %v", got, want)
				}
			default:
				if got != tt.want {
					t.Errorf("got %#v, want %#v", got, tt.want)
				}
			}
		})
	}
}
