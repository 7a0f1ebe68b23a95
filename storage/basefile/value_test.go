package basefile

import (
	"math/big"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseDecimal(t *testing.T) {
	tests := []struct {
		in       string
		unscaled string
		scale    int
		str      string
	}{
		{"123.45000", "12345000", 5, "123.45000"},
		{"-0.50", "-50", 2, "-0.50"},
		{"+7", "7", 0, "7"},
		{"0", "0", 0, "0"},
		{".5", "5", 1, "0.5"},
		{"5.", "5", 0, "5"},
		{"-.001", "-1", 3, "-0.001"},
		{"1.5e3", "1500", 0, "1500"},
		{"1.5E-3", "15", 4, "0.0015"},
		{"12e-1", "12", 1, "1.2"},
		{"99999999999999999999.99", "9999999999999999999999", 2, "99999999999999999999.99"},
		{"-123456789012345678901234567890", "-123456789012345678901234567890", 0, "-123456789012345678901234567890"},
	}
	for _, tt := range tests {
		d, err := ParseDecimal(tt.in)
		if err != nil {
			t.Errorf("ParseDecimal(%q): %v", tt.in, err)
			continue
		}
		if d.Unscaled().String() != tt.unscaled || d.Scale() != tt.scale || d.String() != tt.str {
			t.Errorf("ParseDecimal(%q) = %s (unscaled %s, scale %d), want %s (%s, %d)", tt.in, d, d.Unscaled(), d.Scale(), tt.str, tt.unscaled, tt.scale)
		}
	}
	for _, bad := range []string{"", "-", ".", "1.2.3", "1,5", "--1", "+-1", "1e", "1e9999999", "abc", "1 ", "0x10", "e5"} {
		if d, err := ParseDecimal(bad); err == nil {
			t.Errorf("ParseDecimal(%q) = %s, want an error", bad, d)
		} else if !strings.Contains(err.Error(), bad) {
			t.Errorf("ParseDecimal(%q) error %q does not quote the input", bad, err)
		}
	}
}

func TestDecimalIdentity(t *testing.T) {
	// Equal values of equal scale are identical Go values, however made.
	big20, _ := new(big.Int).SetString("123456789012345678901", 10)
	pairs := [][2]Decimal{
		{NewDecimalInt64(12345, 2), NewDecimal(big.NewInt(12345), 2)},
		{NewDecimalInt64(0, 3), mustDecimal(t, "0.000")},
		{NewDecimal(big20, 1), mustDecimal(t, "12345678901234567890.1")},
		{NewDecimalInt64(5, -2), NewDecimalInt64(500, 0)},
	}
	for _, p := range pairs {
		if !reflect.DeepEqual(p[0], p[1]) {
			t.Errorf("%s and %s are not DeepEqual", p[0], p[1])
		}
	}
	u := big.NewInt(7)
	d := NewDecimal(u, 0)
	u.SetInt64(8)
	if d.String() != "7" {
		t.Errorf("NewDecimal kept its argument: %s", d)
	}
	d.Unscaled().SetInt64(9)
	if d.String() != "7" {
		t.Errorf("Unscaled returned shared memory: %s", d)
	}
}

func mustDecimal(t testing.TB, s string) Decimal {
	t.Helper()
	d, err := ParseDecimal(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestDecimalRescaleAndCmp(t *testing.T) {
	d := mustDecimal(t, "1.50")
	if r, err := d.Rescale(4); err != nil || r.String() != "1.5000" {
		t.Errorf("Rescale(4) = %v, %v", r, err)
	}
	if r, err := d.Rescale(1); err != nil || r.String() != "1.5" {
		t.Errorf("Rescale(1) = %v, %v", r, err)
	}
	if _, err := d.Rescale(0); err == nil {
		t.Error("Rescale(0) of 1.50 lost a digit without an error")
	}
	if _, err := d.Rescale(-1); err == nil {
		t.Error("Rescale(-1) succeeded")
	}
	if r, err := mustDecimal(t, "99999999999999999999").Rescale(3); err != nil || r.String() != "99999999999999999999.000" {
		t.Errorf("Rescale of a big decimal = %v, %v", r, err)
	}
	tests := []struct {
		a, b string
		want int
	}{
		{"1.5", "1.50", 0},
		{"1.5", "1.49", 1},
		{"-2", "1", -1},
		{"100000000000000000000", "99999999999999999999.9", 1},
		{"0", "-0.0", 0},
	}
	for _, tt := range tests {
		if got := mustDecimal(t, tt.a).Cmp(mustDecimal(t, tt.b)); got != tt.want {
			t.Errorf("%s.Cmp(%s) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
	for s, sign := range map[string]int{"-0.1": -1, "0.00": 0, "3": 1, "-99999999999999999999": -1} {
		if got := mustDecimal(t, s).Sign(); got != sign {
			t.Errorf("%s.Sign() = %d", s, got)
		}
	}
}

func FuzzParseDecimal(f *testing.F) {
	for _, s := range []string{"123.45000", "-0.5", "1.5e3", "99999999999999999999.99", ".1", "0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDecimal(s)
		if err != nil {
			return
		}
		again, err := ParseDecimal(d.String())
		if err != nil {
			t.Fatalf("ParseDecimal(%q).String() = %q does not parse: %v", s, d, err)
		}
		if !reflect.DeepEqual(again, d) {
			t.Fatalf("ParseDecimal(%q) = %s, which parses back to %s", s, d, again)
		}
	})
}

func TestDate(t *testing.T) {
	tests := []struct {
		date Date
		str  string
	}{
		{0, "1970-01-01"},
		{19448, "2023-04-01"},
		{-1, "1969-12-31"},
		{-719162, "0001-01-01"},
		{2932896, "9999-12-31"},
	}
	for _, tt := range tests {
		if got := tt.date.String(); got != tt.str {
			t.Errorf("Date(%d).String() = %s, want %s", tt.date, got, tt.str)
		}
		d, err := ParseDate(tt.str)
		if err != nil || d != tt.date {
			t.Errorf("ParseDate(%s) = %d, %v, want %d", tt.str, d, err, tt.date)
		}
		if got := DateOf(tt.date.Time()); got != tt.date {
			t.Errorf("DateOf(%v) = %d", tt.date.Time(), got)
		}
	}
	// DateOf takes the calendar date in the time's own location.
	east := time.FixedZone("east", 10*3600)
	if got := DateOf(time.Date(2023, 4, 1, 2, 0, 0, 0, east)); got != 19448 {
		t.Errorf("DateOf in UTC+10 = %s", got)
	}
	if _, err := ParseDate("2023-02-30"); err == nil {
		t.Error("ParseDate accepted February 30")
	}
}
