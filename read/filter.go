package read

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The filter language of Options.Where and `hoodiectl read --where`:
//
//	expr      = or
//	or        = and { OR and }
//	and       = not { AND not }
//	not       = NOT not | primary
//	primary   = "(" expr ")" | predicate
//	predicate = operand op operand          (a column on one side, a literal on the other)
//	          | column [NOT] IN "(" literal { "," literal } ")"
//	          | column IS [NOT] NULL
//	          | column                      (a boolean column: column = TRUE)
//	op        = "=" | "!=" | "<>" | "<" | "<=" | ">" | ">="
//	operand   = column | literal
//	column    = name { "." name }            (a nested field: structField.field2)
//	name      = letter-or-_ { letter | digit | _ } | "quoted" | `quoted`
//	literal   = number | 'string' | TRUE | FALSE
//
// Keywords are case-insensitive. A string literal doubles a quote to hold
// one ('it''s'). Dates and timestamps are written as strings and compared
// with date and timestamp columns.

// Expr is a parsed filter expression. Make one with ParseFilter; its String
// method prints it back in a canonical form that parses to the same Expr.
type Expr interface {
	String() string
	appendTo(b *strings.Builder)
}

// SyntaxError reports a filter that does not parse: where, and what was
// expected there.
type SyntaxError struct {
	// Filter is the text parsed.
	Filter string
	// Pos is the 1-based position in characters (not bytes) of the problem.
	Pos int
	// Msg says what was expected and what was found.
	Msg string
}

// Error returns `filter "<text>": position <n>: <what was expected>`.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("filter %q: position %d: %s", e.Filter, e.Pos, e.Msg)
}

// cmpOp is a comparison operator.
type cmpOp uint8

const (
	opEq cmpOp = iota
	opNe
	opLt
	opLe
	opGt
	opGe
	// opNever and opAlways are comparisons that compiling a literal decided
	// (an int column against 10.5 is never equal): false or true for every
	// non-null value.
	opNever
	opAlways
)

var opNames = [...]string{opEq: "=", opNe: "!=", opLt: "<", opLe: "<=", opGt: ">", opGe: ">="}

// flip returns the operator of the comparison with its sides swapped.
func (op cmpOp) flip() cmpOp {
	switch op {
	case opLt:
		return opGt
	case opLe:
		return opGe
	case opGt:
		return opLt
	case opGe:
		return opLe
	}
	return op
}

// litKind is the kind of a literal as written.
type litKind uint8

const (
	litNumber litKind = iota
	litString
	litBool
)

// literal is a constant of a filter, untyped until compiled against a
// column.
type literal struct {
	kind litKind
	text string // the number's text or the string's value
	b    bool
	pos  int
}

func (l literal) appendTo(b *strings.Builder) {
	switch l.kind {
	case litNumber:
		b.WriteString(l.text)
	case litString:
		b.WriteByte('\'')
		b.WriteString(strings.ReplaceAll(l.text, "'", "''"))
		b.WriteByte('\'')
	default:
		b.WriteString(strings.ToUpper(strconv.FormatBool(l.b)))
	}
}

// describe names the literal for messages.
func (l literal) describe() string {
	var b strings.Builder
	l.appendTo(&b)
	return b.String()
}

// columnRef names a column or nested field.
type columnRef struct {
	path []string
	pos  int
}

func (c columnRef) name() string { return strings.Join(c.path, ".") }

func (c columnRef) appendTo(b *strings.Builder) {
	for i, p := range c.path {
		if i > 0 {
			b.WriteByte('.')
		}
		if isPlainName(p) && keywords[strings.ToUpper(p)] == 0 {
			b.WriteString(p)
		} else {
			b.WriteByte('"')
			b.WriteString(strings.ReplaceAll(p, `"`, `""`))
			b.WriteByte('"')
		}
	}
}

type (
	andExpr struct{ l, r Expr }
	orExpr  struct{ l, r Expr }
	notExpr struct{ x Expr }
	cmpExpr struct {
		col columnRef
		op  cmpOp
		lit literal
	}
	inExpr struct {
		col  columnRef
		lits []literal
		not  bool
	}
	nullExpr struct {
		col columnRef
		not bool
	}
)

func (e *andExpr) appendTo(b *strings.Builder) { appendBinary(b, e.l, "AND", e.r) }
func (e *orExpr) appendTo(b *strings.Builder)  { appendBinary(b, e.l, "OR", e.r) }

func appendBinary(b *strings.Builder, l Expr, op string, r Expr) {
	b.WriteByte('(')
	l.appendTo(b)
	b.WriteString(" " + op + " ")
	r.appendTo(b)
	b.WriteByte(')')
}

func (e *notExpr) appendTo(b *strings.Builder) {
	b.WriteString("NOT ")
	e.x.appendTo(b)
}

func (e *cmpExpr) appendTo(b *strings.Builder) {
	e.col.appendTo(b)
	b.WriteString(" " + opNames[e.op] + " ")
	e.lit.appendTo(b)
}

func (e *inExpr) appendTo(b *strings.Builder) {
	e.col.appendTo(b)
	if e.not {
		b.WriteString(" NOT")
	}
	b.WriteString(" IN (")
	for i, l := range e.lits {
		if i > 0 {
			b.WriteString(", ")
		}
		l.appendTo(b)
	}
	b.WriteByte(')')
}

func (e *nullExpr) appendTo(b *strings.Builder) {
	e.col.appendTo(b)
	if e.not {
		b.WriteString(" IS NOT NULL")
	} else {
		b.WriteString(" IS NULL")
	}
}

func exprString(e Expr) string {
	var b strings.Builder
	e.appendTo(&b)
	return b.String()
}

func (e *andExpr) String() string  { return exprString(e) }
func (e *orExpr) String() string   { return exprString(e) }
func (e *notExpr) String() string  { return exprString(e) }
func (e *cmpExpr) String() string  { return exprString(e) }
func (e *inExpr) String() string   { return exprString(e) }
func (e *nullExpr) String() string { return exprString(e) }

// tokKind is the kind of a token.
type tokKind uint8

const (
	tokEOF tokKind = iota
	tokName
	tokQuotedName
	tokNumber
	tokString
	tokOp
	tokLParen
	tokRParen
	tokComma
	tokDot
	tokKeyword
	tokIllegal
)

// Keywords, by their upper-case spelling.
const (
	kwAnd = iota + 1
	kwOr
	kwNot
	kwIn
	kwIs
	kwNull
	kwTrue
	kwFalse
)

var keywords = map[string]int{
	"AND": kwAnd, "OR": kwOr, "NOT": kwNot, "IN": kwIn, "IS": kwIs,
	"NULL": kwNull, "TRUE": kwTrue, "FALSE": kwFalse,
}

type token struct {
	kind tokKind
	text string // the source text; the unquoted value of strings and quoted names
	kw   int    // the keyword, for tokKeyword
	op   cmpOp  // for tokOp
	pos  int    // 1-based character position
}

// describe names the token for messages.
func (t token) describe() string {
	switch t.kind {
	case tokEOF:
		return "the end of the filter"
	case tokString:
		return "string '" + t.text + "'"
	case tokQuotedName:
		return `name "` + t.text + `"`
	}
	return strconv.Quote(t.text)
}

// maxFilterDepth bounds the nesting of parentheses and NOTs.
const maxFilterDepth = 200

// ParseFilter parses a filter expression. Errors are *SyntaxError, saying
// where the problem is and what was expected there. Columns are checked
// later, against a table's schema, when a scan is opened.
func ParseFilter(s string) (Expr, error) {
	toks, err := lex(s)
	if err != nil {
		return nil, err
	}
	p := &parser{input: s, toks: toks}
	e, err := p.or(0)
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tokEOF {
		return nil, p.errorf(t, "expected AND, OR or the end of the filter, found %s", t.describe())
	}
	return e, nil
}

func isNameStart(c byte) bool { return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool     { return '0' <= c && c <= '9' }

// isPlainName reports whether s is a name that needs no quotes.
func isPlainName(s string) bool {
	if s == "" || !isNameStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isNameStart(s[i]) && !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// lex splits a filter into tokens.
func lex(s string) ([]token, error) {
	var toks []token
	pos := func(i int) int { return utf8.RuneCountInString(s[:i]) + 1 }
	i := 0
	for i < len(s) {
		c := s[i]
		start := i
		t := token{pos: pos(i)}
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
			continue
		case isNameStart(c):
			for i < len(s) && (isNameStart(s[i]) || isDigit(s[i])) {
				i++
			}
			t.text = s[start:i]
			if kw := keywords[strings.ToUpper(t.text)]; kw != 0 {
				t.kind, t.kw = tokKeyword, kw
			} else {
				t.kind = tokName
			}
		case isDigit(c) || (c == '-' || c == '+' || c == '.') && i+1 < len(s) && (isDigit(s[i+1]) || s[i+1] == '.'):
			i = scanNumber(s, i)
			t.kind, t.text = tokNumber, s[start:i]
			if _, err := strconv.ParseFloat(t.text, 64); err != nil && !isRangeError(err) {
				return nil, &SyntaxError{Filter: s, Pos: t.pos, Msg: fmt.Sprintf("malformed number %q", t.text)}
			}
		case c == '\'' || c == '"' || c == '`':
			text, end, ok := scanQuoted(s, i)
			if !ok {
				what := "string"
				if c != '\'' {
					what = "quoted name"
				}
				return nil, &SyntaxError{Filter: s, Pos: t.pos, Msg: fmt.Sprintf("unterminated %s: expected a closing %c", what, c)}
			}
			i = end
			t.text = text
			t.kind = tokString
			if c != '\'' {
				t.kind = tokQuotedName
				if text == "" {
					return nil, &SyntaxError{Filter: s, Pos: t.pos, Msg: "expected a column name, found an empty quoted name"}
				}
			}
		case c == '(':
			i++
			t.kind, t.text = tokLParen, "("
		case c == ')':
			i++
			t.kind, t.text = tokRParen, ")"
		case c == ',':
			i++
			t.kind, t.text = tokComma, ","
		case c == '.':
			i++
			t.kind, t.text = tokDot, "."
		case c == '=' || c == '<' || c == '>' || c == '!':
			i = scanOp(s, i, &t)
		default:
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
			t.kind, t.text = tokIllegal, s[start:i]
		}
		toks = append(toks, t)
	}
	return append(toks, token{kind: tokEOF, pos: pos(len(s))}), nil
}

// isRangeError reports a number too large or too small for a float64,
// which is still a number.
func isRangeError(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// scanNumber returns the end of the number starting at i: a sign, digits
// with at most one point, and an exponent.
func scanNumber(s string, i int) int {
	if s[i] == '-' || s[i] == '+' {
		i++
	}
	digits := func() {
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	digits()
	if i < len(s) && s[i] == '.' {
		i++
		digits()
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && isDigit(s[j]) {
			i = j
			digits()
		}
	}
	return i
}

// scanQuoted reads the quoted text starting at i, where a doubled quote
// stands for one, and returns its value and end.
func scanQuoted(s string, i int) (string, int, bool) {
	q := s[i]
	var b strings.Builder
	for j := i + 1; j < len(s); j++ {
		if s[j] != q {
			b.WriteByte(s[j])
			continue
		}
		if j+1 < len(s) && s[j+1] == q {
			b.WriteByte(q)
			j++
			continue
		}
		return b.String(), j + 1, true
	}
	return "", 0, false
}

// scanOp reads a comparison operator at i into t and returns its end.
func scanOp(s string, i int, t *token) int {
	two := ""
	if i+1 < len(s) {
		two = s[i : i+2]
	}
	switch two {
	case "!=", "<>":
		t.kind, t.op, t.text = tokOp, opNe, two
		return i + 2
	case "<=":
		t.kind, t.op, t.text = tokOp, opLe, two
		return i + 2
	case ">=":
		t.kind, t.op, t.text = tokOp, opGe, two
		return i + 2
	}
	t.text = s[i : i+1]
	switch s[i] {
	case '=':
		t.kind, t.op = tokOp, opEq
	case '<':
		t.kind, t.op = tokOp, opLt
	case '>':
		t.kind, t.op = tokOp, opGt
	default: // a lone '!'
		t.kind = tokIllegal
	}
	return i + 1
}

type parser struct {
	input string
	toks  []token
	i     int
}

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tokEOF {
		p.i++
	}
	return t
}

func (p *parser) isKeyword(kw int) bool {
	t := p.peek()
	return t.kind == tokKeyword && t.kw == kw
}

func (p *parser) errorf(t token, format string, args ...any) error {
	return &SyntaxError{Filter: p.input, Pos: t.pos, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) or(depth int) (Expr, error) {
	l, err := p.and(depth)
	if err != nil {
		return nil, err
	}
	for p.isKeyword(kwOr) {
		p.next()
		r, err := p.and(depth)
		if err != nil {
			return nil, err
		}
		l = &orExpr{l, r}
	}
	return l, nil
}

func (p *parser) and(depth int) (Expr, error) {
	l, err := p.not(depth)
	if err != nil {
		return nil, err
	}
	for p.isKeyword(kwAnd) {
		p.next()
		r, err := p.not(depth)
		if err != nil {
			return nil, err
		}
		l = &andExpr{l, r}
	}
	return l, nil
}

func (p *parser) not(depth int) (Expr, error) {
	if depth > maxFilterDepth {
		return nil, p.errorf(p.peek(), "the filter nests deeper than %d levels", maxFilterDepth)
	}
	if p.isKeyword(kwNot) {
		p.next()
		x, err := p.not(depth + 1)
		if err != nil {
			return nil, err
		}
		return &notExpr{x}, nil
	}
	if p.peek().kind == tokLParen {
		p.next()
		e, err := p.or(depth + 1)
		if err != nil {
			return nil, err
		}
		if t := p.next(); t.kind != tokRParen {
			return nil, p.errorf(t, "expected AND, OR or ')', found %s", t.describe())
		}
		return e, nil
	}
	return p.predicate()
}

// operand is a column or a literal.
type operand struct {
	col   *columnRef
	lit   literal
	token token
}

func (p *parser) operand() (operand, error) {
	t := p.next()
	switch {
	case t.kind == tokName || t.kind == tokQuotedName:
		col := &columnRef{path: []string{t.text}, pos: t.pos}
		for p.peek().kind == tokDot {
			p.next()
			f := p.next()
			if f.kind != tokName && f.kind != tokQuotedName && f.kind != tokKeyword {
				return operand{}, p.errorf(f, "expected a field name after %q, found %s", col.name()+".", f.describe())
			}
			col.path = append(col.path, f.text)
		}
		return operand{col: col, token: t}, nil
	case t.kind == tokNumber:
		return operand{lit: literal{kind: litNumber, text: t.text, pos: t.pos}, token: t}, nil
	case t.kind == tokString:
		return operand{lit: literal{kind: litString, text: t.text, pos: t.pos}, token: t}, nil
	case t.kind == tokKeyword && (t.kw == kwTrue || t.kw == kwFalse):
		return operand{lit: literal{kind: litBool, b: t.kw == kwTrue, pos: t.pos}, token: t}, nil
	case t.kind == tokKeyword && t.kw == kwNull:
		return operand{}, p.errorf(t, "expected a column or a literal, found NULL (test for null with IS NULL or IS NOT NULL)")
	}
	return operand{}, p.errorf(t, "expected a column, a literal or '(', found %s", t.describe())
}

func (p *parser) literal() (literal, error) {
	t := p.peek()
	o, err := p.operand()
	if err != nil {
		return literal{}, err
	}
	if o.col != nil {
		return literal{}, p.errorf(t, "expected a literal (a number, a 'string', TRUE or FALSE), found column %q", o.col.name())
	}
	return o.lit, nil
}

func (p *parser) predicate() (Expr, error) {
	left, err := p.operand()
	if err != nil {
		return nil, err
	}
	t := p.peek()
	switch {
	case t.kind == tokOp:
		p.next()
		right, err := p.operand()
		if err != nil {
			return nil, err
		}
		switch {
		case left.col != nil && right.col == nil:
			return &cmpExpr{col: *left.col, op: t.op, lit: right.lit}, nil
		case left.col == nil && right.col != nil:
			return &cmpExpr{col: *right.col, op: t.op.flip(), lit: left.lit}, nil
		case left.col != nil:
			return nil, p.errorf(right.token, "expected a literal after %s, found column %q (a comparison has a column on one side and a literal on the other)", t.text, right.col.name())
		default:
			return nil, p.errorf(right.token, "expected a column after %s, found %s (a comparison has a column on one side and a literal on the other)", t.text, right.token.describe())
		}
	case left.col == nil:
		return nil, p.errorf(t, "expected a comparison operator after %s, found %s", left.token.describe(), t.describe())
	case t.kind == tokKeyword && t.kw == kwIs:
		p.next()
		not := p.isKeyword(kwNot)
		if not {
			p.next()
		}
		if n := p.next(); n.kind != tokKeyword || n.kw != kwNull {
			return nil, p.errorf(n, "expected NULL or NOT NULL after IS, found %s", n.describe())
		}
		return &nullExpr{col: *left.col, not: not}, nil
	case t.kind == tokKeyword && (t.kw == kwIn || t.kw == kwNot):
		p.next()
		not := t.kw == kwNot
		if not {
			if n := p.next(); n.kind != tokKeyword || n.kw != kwIn {
				return nil, p.errorf(n, "expected IN after NOT, found %s", n.describe())
			}
		}
		return p.inList(left.col, not)
	case t.kind == tokEOF || t.kind == tokRParen || t.kind == tokKeyword && (t.kw == kwAnd || t.kw == kwOr):
		// A boolean column on its own.
		return &cmpExpr{col: *left.col, op: opEq, lit: literal{kind: litBool, b: true, pos: left.token.pos}}, nil
	}
	return nil, p.errorf(t, "expected a comparison operator, IN, IS, AND, OR or the end of the filter after column %q, found %s", left.col.name(), t.describe())
}

func (p *parser) inList(col *columnRef, not bool) (Expr, error) {
	if t := p.next(); t.kind != tokLParen {
		return nil, p.errorf(t, "expected '(' after IN, found %s", t.describe())
	}
	e := &inExpr{col: *col, not: not}
	for {
		l, err := p.literal()
		if err != nil {
			return nil, err
		}
		e.lits = append(e.lits, l)
		switch t := p.next(); t.kind {
		case tokComma:
			continue
		case tokRParen:
			return e, nil
		default:
			return nil, p.errorf(t, "expected ',' or ')' in the IN list, found %s", t.describe())
		}
	}
}
