package valuefmt

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/hoodie-dev/hoodie/storage/basefile"
)

// JavaFloat renders a float of bits bits as Java's Double.toString (or
// Float.toString) does, which Hudi's key generators and validators use: the shortest
// digits that read back as the value, in plain notation with at least one
// fractional digit when 10^-3 <= |f| < 10^7 ("1234567.5", "1000000.0",
// "0.001"), and otherwise as d.dddE±n ("1.0E7", "1.0E-4", "-2.5E-10"). Java
// before version 19 gives more digits than needed for a few values; Hudi
// on such a JVM renders those differently.
func JavaFloat(f float64, bits int) string {
	if s, ok := NonFinite(f); ok {
		return s
	}
	// The shortest digits, and the exponent of the first.
	e := strconv.FormatFloat(f, 'e', -1, bits)
	mantissa, expText, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expText)
	sign := ""
	if mantissa[0] == '-' {
		sign, mantissa = "-", mantissa[1:]
	}
	digits := strings.Replace(mantissa, ".", "", 1)
	if abs := math.Abs(f); abs == 0 || abs >= 1e-3 && abs < 1e7 {
		var whole, frac string
		switch {
		case abs == 0:
			whole, frac = "0", "0"
		case exp < 0:
			whole, frac = "0", strings.Repeat("0", -exp-1)+digits
		case exp+1 >= len(digits):
			whole, frac = digits+strings.Repeat("0", exp+1-len(digits)), "0"
		default:
			whole, frac = digits[:exp+1], digits[exp+1:]
		}
		return sign + whole + "." + frac
	}
	frac := digits[1:]
	if frac == "" {
		frac = "0"
	}
	return sign + digits[:1] + "." + frac + "E" + strconv.Itoa(exp)
}

// JavaDecimal renders a decimal as Java's BigDecimal.toString does, which
// Hudi's key generators use: plain, unless the exponent of its first digit
// is below -6, which gives d.dddE-n ("1E-7", "0E-10").
func JavaDecimal(d basefile.Decimal) string {
	unscaled := d.Unscaled()
	digits := unscaled.String()
	sign := ""
	if digits[0] == '-' {
		sign, digits = "-", digits[1:]
	}
	adjusted := len(digits) - 1 - d.Scale()
	if adjusted >= -6 {
		return d.String()
	}
	s := sign + digits[:1]
	if len(digits) > 1 {
		s += "." + digits[1:]
	}
	return s + "E" + strconv.Itoa(adjusted)
}

// JavaText renders a value of the value model as its Java object's
// toString does in Spark, which Hudi's single-result validators compare
// their expected text with: doubles and floats as JavaFloat ("2.0"),
// decimals as JavaDecimal, timestamps as java.sql.Timestamp ("2024-04-01
// 17:01:00.0", in UTC where Spark uses the JVM's zone), and anything else
// as Cell does, null as "null".
func JavaText(v any) string {
	switch v := v.(type) {
	case float32:
		return JavaFloat(float64(v), 32)
	case float64:
		return JavaFloat(v, 64)
	case basefile.Decimal:
		return JavaDecimal(v)
	case time.Time:
		return javaTimestamp(v)
	}
	return Cell(nil, v, "null")
}

// javaTimestamp renders t in UTC as java.sql.Timestamp.toString does:
// seconds, then the fraction without trailing zeros but with one digit at
// least.
func javaTimestamp(t time.Time) string {
	t = t.UTC()
	frac := strings.TrimRight(strconv.Itoa(1_000_000_000 + t.Nanosecond())[1:], "0")
	if frac == "" {
		frac = "0"
	}
	return t.Format("2006-01-02 15:04:05") + "." + frac
}
