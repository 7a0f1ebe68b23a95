package basefile

// The logical value model: how Hoodie holds one value of a table schema in
// Go, whatever file or input it came from. Other packages depend on it
// exactly.
//
//	Avro type                        Go value
//	null (a nullable type's null)    nil
//	boolean                          bool
//	int                              int32
//	long                             int64
//	float                            float32
//	double                           float64
//	string, enum, uuid               string
//	bytes, fixed                     []byte
//	decimal (bytes or fixed)         Decimal, read with the column's scale
//	date                             Date
//	timestamp-micros, -millis        time.Time (read in UTC); finer digits than the unit are refused
//	array                            []any (an empty array is an empty, non-nil slice)
//	map                              map[string]any (likewise)
//	record                           []any, in schema field order
//
// A row is a []any holding the top-level fields in schema order. Conversions
// accept exactly these types: a long field refuses an int32, and a type
// mismatch is an error naming the field path. A decimal is written at its
// column's scale when that is exact ("1.5" into decimal(10,2) is 1.50) and
// refused otherwise.

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
)

// Decimal is an exact decimal number: an unscaled integer and a scale, the
// value being unscaled × 10^-scale. "123.45000" has unscaled 12345000 and
// scale 5. The zero Decimal is 0 with scale 0.
//
// Decimals that compare equal with Cmp may differ in scale. Two Decimals
// holding the same unscaled value and scale are identical Go values to
// reflect.DeepEqual, however they were made.
type Decimal struct {
	small int64    // the unscaled value when big is nil
	big   *big.Int // the unscaled value when it does not fit in an int64
	scale int32
}

// NewDecimal returns unscaled × 10^-scale. A negative scale is folded into
// the unscaled value, leaving scale 0. It panics if scale is below -2^31 or
// above 2^31-1.
func NewDecimal(unscaled *big.Int, scale int) Decimal {
	u := new(big.Int).Set(unscaled)
	if scale < 0 {
		u.Mul(u, pow10Big(-scale))
		scale = 0
	}
	return makeDecimal(u, scale)
}

// NewDecimalInt64 returns unscaled × 10^-scale, as NewDecimal does.
func NewDecimalInt64(unscaled int64, scale int) Decimal {
	if scale >= 0 {
		return Decimal{small: unscaled, scale: checkScale(scale)}
	}
	return NewDecimal(big.NewInt(unscaled), scale)
}

func checkScale(scale int) int32 {
	if scale > math.MaxInt32 {
		panic(fmt.Sprintf("storage: decimal scale %d out of range", scale))
	}
	return int32(scale)
}

// makeDecimal builds a Decimal from u, which it may keep.
func makeDecimal(u *big.Int, scale int) Decimal {
	if u.IsInt64() {
		return Decimal{small: u.Int64(), scale: checkScale(scale)}
	}
	return Decimal{big: u, scale: checkScale(scale)}
}

// maxDecimalInputDigits bounds the digits ParseDecimal accepts, exponent
// included, so that a short input cannot ask for a huge number.
const maxDecimalInputDigits = 10000

// ParseDecimal parses a decimal number: an optional sign, digits with an
// optional decimal point, and an optional exponent ("1.5e3"). The scale is
// the number of digits after the point less the exponent, and at least 0:
// ParseDecimal("123.45000") has scale 5, ParseDecimal("1.5e3") is 1500 with
// scale 0.
func ParseDecimal(s string) (Decimal, error) {
	d, err := parseDecimal(s)
	if err != nil {
		return Decimal{}, fmt.Errorf("storage: parse decimal %q: %w", s, err)
	}
	return d, nil
}

func parseDecimal(s string) (Decimal, error) {
	mantissa, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mantissa = s[:i]
		e, err := strconv.Atoi(s[i+1:])
		if err != nil || e > maxDecimalInputDigits || e < -maxDecimalInputDigits {
			return Decimal{}, errors.New("bad exponent")
		}
		exp = e
	}
	digits := strings.TrimLeft(mantissa, "+-")
	if len(mantissa)-len(digits) > 1 {
		return Decimal{}, errors.New("more than one sign")
	}
	neg := strings.HasPrefix(mantissa, "-")
	intPart, frac, _ := strings.Cut(digits, ".")
	all := intPart + frac
	if all == "" || strings.Trim(all, "0123456789") != "" {
		return Decimal{}, errors.New("not a decimal number")
	}
	scale := len(frac) - exp
	if len(all) > maxDecimalInputDigits || scale > maxDecimalInputDigits || -scale > maxDecimalInputDigits {
		return Decimal{}, errors.New("too many digits")
	}
	if neg {
		all = "-" + all
	}
	if len(all) <= 18 {
		n, _ := strconv.ParseInt(all, 10, 64) // at most 18 digits: cannot fail
		return NewDecimalInt64(n, scale), nil
	}
	u, _ := new(big.Int).SetString(all, 10) // checked above: only digits
	return NewDecimal(u, scale), nil
}

// Unscaled returns the unscaled value.
func (d Decimal) Unscaled() *big.Int {
	if d.big != nil {
		return new(big.Int).Set(d.big)
	}
	return big.NewInt(d.small)
}

// Scale returns the number of digits after the decimal point.
func (d Decimal) Scale() int { return int(d.scale) }

// Sign returns -1, 0 or +1 as d is negative, zero or positive.
func (d Decimal) Sign() int {
	if d.big != nil {
		return d.big.Sign()
	}
	switch {
	case d.small < 0:
		return -1
	case d.small > 0:
		return 1
	}
	return 0
}

// String returns d exactly, with scale digits after the point: "123.45000",
// "-0.50", "7".
func (d Decimal) String() string {
	var digits string
	if d.big != nil {
		digits = d.big.String()
	} else {
		digits = strconv.FormatInt(d.small, 10)
	}
	neg := strings.HasPrefix(digits, "-")
	digits = strings.TrimPrefix(digits, "-")
	if d.scale > 0 {
		if pad := int(d.scale) + 1 - len(digits); pad > 0 {
			digits = strings.Repeat("0", pad) + digits
		}
		cut := len(digits) - int(d.scale)
		digits = digits[:cut] + "." + digits[cut:]
	}
	if neg {
		return "-" + digits
	}
	return digits
}

// Rescale returns d with the given scale. Raising the scale is exact;
// lowering it fails unless only zero digits are dropped.
func (d Decimal) Rescale(scale int) (Decimal, error) {
	if scale == int(d.scale) {
		return d, nil
	}
	if scale < 0 {
		return Decimal{}, fmt.Errorf("storage: rescale %s: negative scale %d", d, scale)
	}
	if scale > int(d.scale) {
		u := d.Unscaled()
		return makeDecimal(u.Mul(u, pow10Big(scale-int(d.scale))), scale), nil
	}
	q, r := new(big.Int).QuoRem(d.Unscaled(), pow10Big(int(d.scale)-scale), new(big.Int))
	if r.Sign() != 0 {
		return Decimal{}, fmt.Errorf("storage: rescale %s to scale %d would lose digits", d, scale)
	}
	return makeDecimal(q, scale), nil
}

// Cmp compares d and e by value, whatever their scales: -1 if d < e, 0 if
// equal, +1 if d > e.
func (d Decimal) Cmp(e Decimal) int {
	if d.scale == e.scale && d.big == nil && e.big == nil {
		switch {
		case d.small < e.small:
			return -1
		case d.small > e.small:
			return 1
		}
		return 0
	}
	x, y := d.Unscaled(), e.Unscaled()
	if d.scale < e.scale {
		x.Mul(x, pow10Big(int(e.scale-d.scale)))
	} else {
		y.Mul(y, pow10Big(int(d.scale-e.scale)))
	}
	return x.Cmp(y)
}

func pow10Big(n int) *big.Int {
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}

// Date is a calendar date: days since 1970-01-01.
type Date int32

// secondsPerDay is the length of a calendar day in Unix time.
const secondsPerDay = 24 * 60 * 60

// DateOf returns the calendar date of t in t's location.
func DateOf(t time.Time) Date {
	y, m, d := t.Date()
	secs := time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix()
	days := secs / secondsPerDay
	if secs%secondsPerDay < 0 {
		days--
	}
	return Date(days)
}

// ParseDate parses a date written "YYYY-MM-DD".
func ParseDate(s string) (Date, error) {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return 0, fmt.Errorf("storage: parse date %q: %w", s, err)
	}
	return DateOf(t), nil
}

// Time returns midnight UTC of the date.
func (d Date) Time() time.Time {
	return time.Unix(int64(d)*secondsPerDay, 0).UTC()
}

// String returns the date as "YYYY-MM-DD".
func (d Date) String() string {
	return d.Time().Format(time.DateOnly)
}
