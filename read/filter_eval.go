package read

import "bytes"

// truth is a value of SQL's three-valued logic, ordered so that AND is the
// minimum, OR the maximum and NOT the mirror image.
type truth uint8

const (
	tFalse truth = 0
	tNull  truth = 1 // unknown: a comparison with null
	tTrue  truth = 2
)

func truthOf(b bool) truth {
	if b {
		return tTrue
	}
	return tFalse
}

// truthSet is a set of truths: what a predicate may evaluate to over the
// rows of a file or row group. A filter prunes rows where tTrue is not
// possible.
type truthSet uint8

const (
	anyTruth truthSet = 1<<tFalse | 1<<tNull | 1<<tTrue
)

func (s truthSet) with(t truth) truthSet { return s | 1<<t }
func (s truthSet) has(t truth) bool      { return s&(1<<t) != 0 }

// combine returns {f(a, b) : a in s, b in o}.
func (s truthSet) combine(o truthSet, f func(a, b truth) truth) truthSet {
	var out truthSet
	for a := tFalse; a <= tTrue; a++ {
		for b := tFalse; b <= tTrue; b++ {
			if s.has(a) && o.has(b) {
				out = out.with(f(a, b))
			}
		}
	}
	return out
}

// colRange is what is known of a column's values over a file or a row
// group, from partition paths, Parquet statistics and footers.
type colRange struct {
	known     bool // false: nothing is known
	mayNull   bool
	mayValue  bool
	hasBounds bool   // min and max hold bounds of the non-null values
	min, max  scalar // inclusive
	// mightHold, if not nil, reports false for a string that no value can
	// equal (from a record-key bloom filter).
	mightHold func(string) bool
}

// rangeSource returns what is known about read column col.
type rangeSource func(col int) colRange

// pred is a compiled filter.
type pred interface {
	// eval evaluates the predicate for each row of b into out (len b.n).
	eval(b *Batch, out []truth)
	// possible returns what the predicate may evaluate to over rows
	// described by src.
	possible(src rangeSource) truthSet
	// columns sets used[col] for every read column the predicate reads.
	columns(used []bool)
}

type (
	andPred struct{ l, r pred }
	orPred  struct{ l, r pred }
	notPred struct{ x pred }
	// cmpPred is "column op k".
	cmpPred struct {
		col int
		dom domain
		op  cmpOp
		k   scalar
	}
	// inPred is "column [NOT] IN (vals)".
	inPred struct {
		col  int
		dom  domain
		not  bool
		vals []scalar
		ints map[int64]bool  // vals of domInt
		strs map[string]bool // vals of domBytes
	}
	// nullPred is "column IS [NOT] NULL".
	nullPred struct {
		col int
		not bool
	}
)

func (p *andPred) eval(b *Batch, out []truth) { evalBoth(p.l, p.r, b, out, minTruth) }

func minTruth(a, b truth) truth { return min(a, b) }
func maxTruth(a, b truth) truth { return max(a, b) }

// evalBoth evaluates l into out and r beside it, and combines each pair of
// truths with join (min for AND, max for OR, in three-valued logic).
func evalBoth(l, r pred, b *Batch, out []truth, join func(truth, truth) truth) {
	l.eval(b, out)
	right := make([]truth, len(out))
	r.eval(b, right)
	for i, t := range right {
		out[i] = join(out[i], t)
	}
}

func (p *andPred) columns(used []bool) { p.l.columns(used); p.r.columns(used) }

func (p *andPred) possible(src rangeSource) truthSet {
	return p.l.possible(src).combine(p.r.possible(src), minTruth)
}

func (p *orPred) eval(b *Batch, out []truth) { evalBoth(p.l, p.r, b, out, maxTruth) }

func (p *orPred) columns(used []bool) { p.l.columns(used); p.r.columns(used) }

func (p *orPred) possible(src rangeSource) truthSet {
	return p.l.possible(src).combine(p.r.possible(src), maxTruth)
}

func (p *notPred) eval(b *Batch, out []truth) {
	p.x.eval(b, out)
	for i, t := range out {
		out[i] = tTrue - t
	}
}

func (p *notPred) columns(used []bool) { p.x.columns(used) }

func (p *notPred) possible(src rangeSource) truthSet {
	x := p.x.possible(src)
	return x.combine(x, func(a, _ truth) truth { return tTrue - a })
}

// applyNulls sets out to tNull where v is null.
func applyNulls(v *Vector, out []truth) {
	if v.nulls == nil {
		return
	}
	for i, null := range v.nulls {
		if null {
			out[i] = tNull
		}
	}
}

func (p *nullPred) eval(b *Batch, out []truth) {
	v := b.cols[p.col]
	for i := range out {
		out[i] = truthOf(v.IsNull(i) != p.not)
	}
}

func (p *nullPred) columns(used []bool) { used[p.col] = true }

func (p *nullPred) possible(src rangeSource) truthSet {
	r := src(p.col)
	if !r.known {
		return truthSet(0).with(tTrue).with(tFalse)
	}
	var s truthSet
	if r.mayNull {
		s = s.with(truthOf(!p.not))
	}
	if r.mayValue {
		s = s.with(truthOf(p.not))
	}
	return s
}

// holds reports whether c (the comparison of a value with k) satisfies op.
func (op cmpOp) holds(c int) bool {
	switch op {
	case opEq:
		return c == 0
	case opNe:
		return c != 0
	case opLt:
		return c < 0
	case opLe:
		return c <= 0
	case opGt:
		return c > 0
	case opGe:
		return c >= 0
	}
	return op == opAlways
}

func (p *cmpPred) eval(b *Batch, out []truth) {
	v := b.cols[p.col]
	switch v.repr {
	case reprInt32:
		evalNumbers(v.i32, p.k.i, p.op, out)
	case reprInt64:
		evalNumbers(v.i64, p.k.i, p.op, out)
	case reprFloat32:
		evalNumbers(v.f32, p.k.f, p.op, out)
	case reprFloat64:
		evalNumbers(v.f64, p.k.f, p.op, out)
	case reprBool:
		for i, x := range v.bools {
			out[i] = truthOf(p.op.holds(cmpOrdered(boolInt(x), p.k.i)))
		}
	case reprBytes:
		k := []byte(p.k.s)
		if p.op == opEq || p.op == opNe {
			for i := range out {
				out[i] = truthOf(bytes.Equal(v.Bytes(i), k) == (p.op == opEq))
			}
			break
		}
		for i := range out {
			out[i] = truthOf(p.op.holds(bytes.Compare(v.Bytes(i), k)))
		}
	case reprDecimal:
		for i, d := range v.decs {
			out[i] = truthOf(p.op.holds(d.Cmp(p.k.d)))
		}
	}
	applyNulls(v, out)
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// evalNumbers compares each of xs with k.
func evalNumbers[T int32 | int64 | float32 | float64, K int64 | float64](xs []T, k K, op cmpOp, out []truth) {
	switch op {
	case opEq:
		for i, x := range xs {
			out[i] = truthOf(K(x) == k)
		}
	case opNe:
		for i, x := range xs {
			out[i] = truthOf(K(x) != k)
		}
	case opLt:
		for i, x := range xs {
			out[i] = truthOf(K(x) < k)
		}
	case opLe:
		for i, x := range xs {
			out[i] = truthOf(K(x) <= k)
		}
	case opGt:
		for i, x := range xs {
			out[i] = truthOf(K(x) > k)
		}
	case opGe:
		for i, x := range xs {
			out[i] = truthOf(K(x) >= k)
		}
	default:
		t := truthOf(op == opAlways)
		for i := range xs {
			out[i] = t
		}
	}
}

func (p *cmpPred) columns(used []bool) { used[p.col] = true }

// nullTruths starts a predicate's possible truths from a column's range:
// any truth when nothing is known, null when the column may hold nulls.
// done reports that s is final: nothing is known, or no value is possible.
func nullTruths(r colRange) (colRange, truthSet, bool) {
	if !r.known {
		return r, anyTruth, true
	}
	var s truthSet
	if r.mayNull {
		s = s.with(tNull)
	}
	return r, s, !r.mayValue
}

func (p *cmpPred) possible(src rangeSource) truthSet {
	r, s, done := nullTruths(src(p.col))
	if done {
		return s
	}
	var t, f bool
	switch {
	case p.op == opNever || p.op == opAlways:
		t, f = p.op == opAlways, p.op == opNever
	case !r.hasBounds:
		t, f = true, true
	default:
		lo, hi := compareScalars(p.dom, r.min, p.k), compareScalars(p.dom, r.max, p.k) // min vs k, max vs k
		single := lo == 0 && hi == 0                                                   // every value is k
		switch p.op {
		case opEq:
			t, f = lo <= 0 && hi >= 0, !single
		case opNe:
			t, f = !single, lo <= 0 && hi >= 0
		case opLt:
			t, f = lo < 0, hi >= 0
		case opLe:
			t, f = lo <= 0, hi > 0
		case opGt:
			t, f = hi > 0, lo <= 0
		case opGe:
			t, f = hi >= 0, lo < 0
		}
	}
	if p.dom == domFloat && r.hasBounds { // NaN is outside the bounds: false, but != true
		f = f || p.op != opAlways
		t = t || p.op == opNe
	}
	if t && p.op == opEq && r.mightHold != nil && !r.mightHold(p.k.s) {
		t = false
	}
	if t {
		s = s.with(tTrue)
	}
	if f {
		s = s.with(tFalse)
	}
	return s
}

// index builds the lookup maps of an IN list.
func (p *inPred) index() {
	switch p.dom {
	case domInt:
		p.ints = make(map[int64]bool, len(p.vals))
		for _, k := range p.vals {
			p.ints[k.i] = true
		}
	case domBytes:
		p.strs = make(map[string]bool, len(p.vals))
		for _, k := range p.vals {
			p.strs[k.s] = true
		}
	}
}

// contains reports whether scalar x of the column's domain is in the list.
func (p *inPred) contains(x scalar) bool {
	switch p.dom {
	case domInt:
		return p.ints[x.i]
	case domBytes:
		return p.strs[x.s]
	case domFloat: // == rather than compareScalars: NaN equals nothing
		for _, k := range p.vals {
			if x.f == k.f {
				return true
			}
		}
		return false
	}
	for _, k := range p.vals {
		if compareScalars(p.dom, x, k) == 0 {
			return true
		}
	}
	return false
}

func (p *inPred) eval(b *Batch, out []truth) {
	v := b.cols[p.col]
	switch v.repr {
	case reprInt32:
		for i, x := range v.i32 {
			out[i] = truthOf(p.ints[int64(x)] != p.not)
		}
	case reprInt64:
		for i, x := range v.i64 {
			out[i] = truthOf(p.ints[x] != p.not)
		}
	case reprBool:
		for i, x := range v.bools {
			out[i] = truthOf(p.ints[boolInt(x)] != p.not)
		}
	case reprBytes:
		for i := range out {
			out[i] = truthOf(p.strs[string(v.Bytes(i))] != p.not)
		}
	default:
		for i := range out {
			x, _ := scalarAt(v, i)
			out[i] = truthOf(p.contains(x) != p.not)
		}
	}
	applyNulls(v, out)
}

func (p *inPred) columns(used []bool) { used[p.col] = true }

func (p *inPred) possible(src rangeSource) truthSet {
	r, s, done := nullTruths(src(p.col))
	if done {
		return s
	}
	in, out := false, true // some value may be in the list; some may be out of it
	for _, k := range p.vals {
		inBounds := !r.hasBounds || compareScalars(p.dom, r.min, k) <= 0 && compareScalars(p.dom, r.max, k) >= 0
		if inBounds && (r.mightHold == nil || r.mightHold(k.s)) {
			in = true
		}
	}
	if r.hasBounds && compareScalars(p.dom, r.min, r.max) == 0 && p.contains(r.min) {
		out = false
	}
	if p.dom == domFloat {
		out = true // NaN
	}
	if p.not {
		in, out = out, in
	}
	if in {
		s = s.with(tTrue)
	}
	if out {
		s = s.with(tFalse)
	}
	return s
}
