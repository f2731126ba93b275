// Package countercrdt reads and writes the counters of the PostgreSQL
// extension counter_crdt: State is a counter's state, parsed and printed in
// the text form and the binary form exactly as the server does
// (doc/contract.md sections 4 and 5), with its value, shards and merge.
//
// State implements pgx v4's pgtype interfaces (text and binary) and
// database/sql's Scanner and Valuer; the subpackages pgxv4 and pgxv5
// register the type under its OID on a pgx connection.
package countercrdt

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"
)

// Shard is one writer's part of a counter: its id (a lower-case uuid), the
// number of its increments (Clock) and their sum (Value).
type Shard struct {
	ID    string
	Clock int64
	Value int64
}

// Fold is a fold record: writer Target holds Absorbed of retired writer
// Retired's count (doc/retiring-writers.md).
type Fold struct {
	Retired, Target                  string
	TClock, AClock, AValue, Absorbed int64
}

// State is the value of a counter_crdt column: shards in ascending id order
// (and fold records where writers were retired), or a tombstone. The zero
// State is the empty live counter {}. Build one with Parse, New or
// Tombstone; the fields are read-only.
type State struct {
	shards    []Shard
	folds     []Fold
	tombstone bool
	null      bool // SQL NULL, as scanned
}

// ParseError is a text or binary form the server would refuse (22P02,
// 22P03).
type ParseError struct{ Detail string }

func (e *ParseError) Error() string { return "counter_crdt: " + e.Detail }

// ErrOutOfRange is returned by Value when the total leaves the bigint range
// (the server's 22003).
var ErrOutOfRange = errors.New("counter_crdt: the total of the counter leaves the bigint range")

// ErrFolded is returned by Merge for states with fold records: the server
// merges those, with counter_crdt_merge(a, b).
var ErrFolded = errors.New("counter_crdt: states with fold records are merged by the server: SELECT counter_crdt_merge(a, b)")

func fail(format string, args ...interface{}) error {
	return &ParseError{Detail: fmt.Sprintf(format, args...)}
}

// Tombstone is the state of a deleted counter.
func Tombstone() State { return State{tombstone: true} }

// New makes a live state of shards and fold records in any order, checked
// as the server checks a value.
func New(shards []Shard, folds []Fold) (State, error) {
	s := State{shards: append([]Shard(nil), shards...), folds: append([]Fold(nil), folds...)}
	for i := range s.shards {
		id, ok := normalizeID(s.shards[i].ID)
		if !ok {
			return State{}, fail("Invalid writer id %q: expected a uuid such as 7f0cab51-fb72-3e98-bdb4-0404a982865d.", s.shards[i].ID)
		}
		s.shards[i].ID = id
	}
	for i := range s.folds {
		r, ok1 := normalizeID(s.folds[i].Retired)
		t, ok2 := normalizeID(s.folds[i].Target)
		if !ok1 || !ok2 {
			return State{}, fail("Invalid writer id in fold record %s>%s.", s.folds[i].Retired, s.folds[i].Target)
		}
		s.folds[i].Retired, s.folds[i].Target = r, t
	}
	sort.SliceStable(s.shards, func(i, j int) bool { return s.shards[i].ID < s.shards[j].ID })
	sort.SliceStable(s.folds, func(i, j int) bool { return foldLess(s.folds[i], s.folds[j]) })
	if err := checkCanonical(s.shards); err != nil {
		return State{}, err
	}
	if err := s.checkFolds(); err != nil {
		return State{}, err
	}
	if len(s.shards) == 0 {
		s.shards = nil
	}
	if len(s.folds) == 0 {
		s.folds = nil
	}
	return s, nil
}

func foldLess(a, b Fold) bool {
	if a.Retired != b.Retired {
		return a.Retired < b.Retired
	}
	return a.Target < b.Target
}

// IsTombstone tells a deleted counter.
func (s State) IsTombstone() bool { return s.tombstone }

// Shards returns a copy of the shards, ascending by id.
func (s State) Shards() []Shard { return append([]Shard(nil), s.shards...) }

// Folds returns a copy of the fold records, ascending by (retired, target).
func (s State) Folds() []Fold { return append([]Fold(nil), s.folds...) }

// Shard returns writer id's shard.
func (s State) Shard(id string) (Shard, bool) {
	id, _ = normalizeID(id)
	i := sort.Search(len(s.shards), func(i int) bool { return s.shards[i].ID >= id })
	if i < len(s.shards) && s.shards[i].ID == id {
		return s.shards[i], true
	}
	return Shard{}, false
}

// IsNull tells a State scanned from SQL NULL.
func (s State) IsNull() bool { return s.null }

// Total is the counter's value, as c::bigint reads it: ok is false for a
// tombstone and for NULL (the server's NULL); err is ErrOutOfRange where
// the server's c::bigint fails (22003).
func (s State) Total() (v int64, ok bool, err error) {
	if s.tombstone || s.null {
		return 0, false, nil
	}
	total := new(big.Int)
	for _, sh := range s.shards {
		total.Add(total, big.NewInt(sh.Value))
	}
	for i := 0; i < len(s.folds); {
		j := i
		var aclock, avalue int64
		for ; j < len(s.folds) && s.folds[j].Retired == s.folds[i].Retired; j++ {
			f := s.folds[j]
			if f.AClock > aclock || (f.AClock == aclock && f.AValue > avalue) {
				aclock, avalue = f.AClock, f.AValue
			}
			total.Sub(total, big.NewInt(f.Absorbed))
		}
		if _, present := s.Shard(s.folds[i].Retired); !present {
			total.Add(total, big.NewInt(avalue))
		}
		i = j
	}
	if !total.IsInt64() {
		return 0, true, ErrOutOfRange
	}
	return total.Int64(), true, nil
}

// Merge is the replicas' merge (contract 1): a tombstone absorbs
// everything, else per writer the shard of the higher clock, then of the
// higher value. It returns ErrFolded for states with fold records.
func (s State) Merge(o State) (State, error) {
	if o.null {
		return s, nil
	}
	if s.null || s.tombstone {
		return s, nil
	}
	if o.tombstone {
		return o, nil
	}
	if len(s.folds) > 0 || len(o.folds) > 0 {
		return State{}, ErrFolded
	}
	out := make([]Shard, 0, len(s.shards)+len(o.shards))
	i, j := 0, 0
	for i < len(s.shards) || j < len(o.shards) {
		switch {
		case j == len(o.shards) || (i < len(s.shards) && s.shards[i].ID < o.shards[j].ID):
			out = append(out, s.shards[i])
			i++
		case i == len(s.shards) || o.shards[j].ID < s.shards[i].ID:
			out = append(out, o.shards[j])
			j++
		default:
			a, b := s.shards[i], o.shards[j]
			if b.Clock > a.Clock || (b.Clock == a.Clock && b.Value > a.Value) {
				a = b
			}
			out = append(out, a)
			i++
			j++
		}
	}
	if len(out) == 0 {
		out = nil
	}
	return State{shards: out}, nil
}

// Equal compares states.
func (s State) Equal(o State) bool {
	if s.null != o.null || s.tombstone != o.tombstone || len(s.shards) != len(o.shards) || len(s.folds) != len(o.folds) {
		return false
	}
	for i := range s.shards {
		if s.shards[i] != o.shards[i] {
			return false
		}
	}
	for i := range s.folds {
		if s.folds[i] != o.folds[i] {
			return false
		}
	}
	return true
}

// String is the canonical text form, as the server prints it.
func (s State) String() string {
	if s.null {
		return "NULL"
	}
	if s.tombstone {
		return "tombstone"
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, sh := range s.shards {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s:%d:%d", sh.ID, sh.Clock, sh.Value)
	}
	b.WriteByte('}')
	if len(s.folds) > 0 {
		b.WriteString(" folded {")
		for i, f := range s.folds {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s>%s:%d:%d:%d:%d", f.Retired, f.Target, f.TClock, f.AClock, f.AValue, f.Absorbed)
		}
		b.WriteByte('}')
	}
	return b.String()
}

// MarshalText is the text form.
func (s State) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText parses the text form.
func (s *State) UnmarshalText(text []byte) error {
	p, err := Parse(string(text))
	if err != nil {
		return err
	}
	*s = p
	return nil
}

// MarshalBinary is the binary form (the server's send, src/core/cc_wire.h):
// version 1 without fold records, version 2 with them; big-endian. It does
// not write the compact version 3, which servers before 1.12 cannot read.
func (s State) MarshalBinary() ([]byte, error) { return s.appendBinary(nil), nil }

func (s State) appendBinary(buf []byte) []byte {
	version := byte(1)
	if len(s.folds) > 0 {
		version = 2
	}
	flags := byte(0)
	if s.tombstone {
		flags = 1
	}
	buf = append(buf, version, flags)
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(s.shards)))
	for _, sh := range s.shards {
		buf = appendID(buf, sh.ID)
		buf = binary.BigEndian.AppendUint64(buf, uint64(sh.Clock))
		buf = binary.BigEndian.AppendUint64(buf, uint64(sh.Value))
	}
	if len(s.folds) > 0 {
		buf = binary.BigEndian.AppendUint32(buf, uint32(len(s.folds)))
		for _, f := range s.folds {
			buf = appendID(buf, f.Retired)
			buf = appendID(buf, f.Target)
			for _, n := range []int64{f.TClock, f.AClock, f.AValue, f.Absorbed} {
				buf = binary.BigEndian.AppendUint64(buf, uint64(n))
			}
		}
	}
	return buf
}

func appendID(buf []byte, id string) []byte {
	b, _ := hex.DecodeString(strings.ReplaceAll(id, "-", ""))
	return append(buf, b...)
}

func formatID(b []byte) string {
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

func plural(n uint64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// UnmarshalBinary reads the binary form, checked as the server's recv
// checks it: versions 1 and 2, and the compact version 3 (since 1.12, sent
// when counter_crdt.binary_format is 'compact').
func (s *State) UnmarshalBinary(b []byte) error {
	n := uint64(len(b))
	if n >= 1 && b[0] == 3 {
		return s.unmarshalCompact(b)
	}
	if n < 6 {
		return fail("The value is %d byte%s long; the header alone takes 6.", n, plural(n, "", "s"))
	}
	version, flags := b[0], b[1]
	if version != 1 && version != 2 {
		return fail("Format version %d is not supported; this build reads versions 1, 2 and 3.", version)
	}
	if flags&^1 != 0 {
		return fail("Unknown flag bits 0x%02x are set.", flags&^1)
	}
	tomb := flags&1 == 1
	count := uint64(binary.BigEndian.Uint32(b[2:6]))
	body := n - 6
	var nf uint64
	if version == 1 {
		if body%32 != 0 || body/32 != count {
			return fail("The header announces %d shard%s but %d byte%s of shard data follow%s.", count, plural(count, "", "s"), body, plural(body, "", "s"), plural(body, "s", ""))
		}
		if tomb && count != 0 {
			return fail("A tombstone has no shards, but %d %s present.", count, plural(count, "is", "are"))
		}
	} else {
		if tomb {
			return fail("A tombstone has no fold records, but format version 2 is for values with them.")
		}
		if body/32 < count || body-count*32 < 4 {
			return fail("The header announces %d shard%s but the value ends before its fold record count (%d byte%s after the header).", count, plural(count, "", "s"), body, plural(body, "", "s"))
		}
		rest := body - count*32 - 4
		nf = uint64(binary.BigEndian.Uint32(b[6+count*32:]))
		if nf == 0 {
			return fail("The fold record count is 0; format version 2 is for values with fold records.")
		}
		if rest%64 != 0 || rest/64 != nf {
			return fail("The value announces %d fold record%s but %d byte%s of record data follow%s.", nf, plural(nf, "", "s"), rest, plural(rest, "", "s"), plural(rest, "s", ""))
		}
	}
	st := State{tombstone: tomb}
	for i := uint64(0); i < count; i++ {
		p := b[6+i*32:]
		st.shards = append(st.shards, Shard{formatID(p[:16]), int64(binary.BigEndian.Uint64(p[16:])), int64(binary.BigEndian.Uint64(p[24:]))})
	}
	if err := checkCanonical(st.shards); err != nil {
		return err
	}
	at := 6 + count*32 + 4
	for i := uint64(0); i < nf; i++ {
		p := b[at+i*64:]
		st.folds = append(st.folds, Fold{formatID(p[:16]), formatID(p[16:32]),
			int64(binary.BigEndian.Uint64(p[32:])), int64(binary.BigEndian.Uint64(p[40:])),
			int64(binary.BigEndian.Uint64(p[48:])), int64(binary.BigEndian.Uint64(p[56:]))})
	}
	for i := 1; i < len(st.folds); i++ {
		if !foldLess(st.folds[i-1], st.folds[i]) {
			what := "is out of ascending (retired, target) order"
			if !foldLess(st.folds[i], st.folds[i-1]) {
				what = "appears more than once"
			}
			return fail("Fold record %s>%s %s.", st.folds[i].Retired, st.folds[i].Target, what)
		}
	}
	if err := st.checkFolds(); err != nil {
		return err
	}
	*s = st
	return nil
}

// The widths of the compact form's width codes (cc_stored.h).
var layWidths = [4]uint64{8, 1, 2, 4}

// beUint is the unsigned big-endian number of p (1 to 8 bytes).
func beUint(p []byte) uint64 {
	var u uint64
	for _, c := range p {
		u = u<<8 | uint64(c)
	}
	return u
}

// unmarshalCompact reads version 3 (cc_decode_header_compact and
// cc_decode_shards): byte 1 the layout (clock width code in bits 0-1, value
// width code in bits 2-3), then whole records of id, clock (unsigned) and
// value (two's complement, sign-extended), without a count.
func (s *State) unmarshalCompact(b []byte) error {
	n := uint64(len(b))
	if n < 2 {
		return fail("The value is %d byte%s long; the header of format version 3 takes 2.", n, plural(n, "", "s"))
	}
	lay := b[1]
	if lay&^0x0f != 0 {
		return fail("Unknown layout bits 0x%02x are set.", lay&^0x0f)
	}
	cw, vw := layWidths[lay&3], layWidths[lay>>2&3]
	size := 16 + cw + vw
	body := n - 2
	if body%size != 0 {
		return fail("%d byte%s of shard data %s not a whole number of %d-byte records (layout 0x%02x).",
			body, plural(body, "", "s"), plural(body, "is", "are"), size, lay)
	}
	var st State
	for p := b[2:]; len(p) > 0; p = p[size:] {
		value := beUint(p[16+cw : size])
		if bits := 8 * vw; bits < 64 && value>>(bits-1) != 0 {
			value |= ^uint64(0) << bits
		}
		st.shards = append(st.shards, Shard{formatID(p[:16]), int64(beUint(p[16 : 16+cw])), int64(value)})
	}
	if err := checkCanonical(st.shards); err != nil {
		return err
	}
	*s = st
	return nil
}

// checkCanonical: clocks >= 1 and ids strictly ascending (cc_check_canonical).
func checkCanonical(shards []Shard) error {
	for i, sh := range shards {
		if sh.Clock < 1 {
			return fail("Writer %s has clock %d; clocks start at 1.", sh.ID, sh.Clock)
		}
		if i > 0 && shards[i-1].ID >= sh.ID {
			if shards[i-1].ID == sh.ID {
				return fail("Writer %s appears more than once.", sh.ID)
			}
			return fail("Writer %s is out of ascending order.", sh.ID)
		}
	}
	return nil
}

// checkFolds: the records (sorted) against each other and the shards
// (cc_fold_check).
func (s State) checkFolds() error {
	if s.tombstone && (len(s.shards) > 0 || len(s.folds) > 0) {
		return fail("A tombstone has no shards or fold records.")
	}
	retired := map[string]bool{}
	for i, f := range s.folds {
		name := f.Retired + ">" + f.Target
		if f.Retired == f.Target {
			return fail("Fold record %s names one writer as retired and target.", name)
		}
		if f.TClock < 1 {
			return fail("Fold record %s has tclock %d; clocks start at 1.", name, f.TClock)
		}
		if f.AClock < 1 {
			return fail("Fold record %s has aclock %d; clocks start at 1.", name, f.AClock)
		}
		if i > 0 && s.folds[i-1].Retired == f.Retired && s.folds[i-1].Target == f.Target {
			return fail("Fold record %s appears more than once.", name)
		}
		retired[f.Retired] = true
	}
	for i := 0; i < len(s.folds); {
		j := i
		var aclock, avalue int64
		for ; j < len(s.folds) && s.folds[j].Retired == s.folds[i].Retired; j++ {
			f := s.folds[j]
			if f.AClock > aclock || (f.AClock == aclock && f.AValue > avalue) {
				aclock, avalue = f.AClock, f.AValue
			}
		}
		a := s.folds[i].Retired
		if sh, ok := s.Shard(a); ok && sh.Clock <= aclock {
			return fail("Retired writer %s keeps its shard of clock %d, which its fold records have seen (aclock %d).", a, sh.Clock, aclock)
		}
		for k := i; k < j; k++ {
			f := s.folds[k]
			if retired[f.Target] {
				continue
			}
			t, ok := s.Shard(f.Target)
			if !ok {
				return fail("The target of fold record %s>%s has no shard.", f.Retired, f.Target)
			}
			if t.Clock < f.TClock {
				return fail("Fold record %s>%s has tclock %d, newer than its target's shard (clock %d).", f.Retired, f.Target, f.TClock, t.Clock)
			}
		}
		i = j
	}
	return nil
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// normalizeID checks the 36 characters 8-4-4-4-12 and lower-cases them.
func normalizeID(id string) (string, bool) {
	if len(id) != 36 {
		return "", false
	}
	for i := 0; i < 36; i++ {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if id[i] != '-' {
				return "", false
			}
		} else if !isHex(id[i]) {
			return "", false
		}
	}
	return strings.ToLower(id), true
}

// Parse reads the text form as the server's input function does (contract
// 4): white space around every token, ids in any letter case and any order.
func Parse(text string) (State, error) {
	p := parser{s: text}
	return p.parse()
}

type parser struct {
	s   string
	pos int
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func (p *parser) skipSpace() {
	for p.pos < len(p.s) && isSpace(p.s[p.pos]) {
		p.pos++
	}
}

func (p *parser) at(c byte) bool { return p.pos < len(p.s) && p.s[p.pos] == c }

func (p *parser) syntax(expected string) error {
	if p.pos >= len(p.s) {
		return fail("%s, found end of input.", expected)
	}
	q := 0
	for q < 16 && p.pos+q < len(p.s) && p.s[p.pos+q] >= 0x20 && p.s[p.pos+q] < 0x7f {
		q++
	}
	if q == 0 {
		return fail("%s, found byte 0x%02x at position %d.", expected, p.s[p.pos], p.pos+1)
	}
	more := ""
	if p.pos+q < len(p.s) {
		more = "..."
	}
	return fail("%s, found \"%s%s\" at position %d.", expected, p.s[p.pos:p.pos+q], more, p.pos+1)
}

func (p *parser) expect(c byte, context string) error {
	p.skipSpace()
	if !p.at(c) {
		return p.syntax(fmt.Sprintf("Expected %q %s", string(c), context))
	}
	p.pos++
	p.skipSpace()
	return nil
}

func (p *parser) keyword(kw string) bool {
	if len(p.s)-p.pos < len(kw) || !strings.EqualFold(p.s[p.pos:p.pos+len(kw)], kw) {
		return false
	}
	p.pos += len(kw)
	return true
}

func (p *parser) id(what string) (string, error) {
	start := p.pos
	for p.pos < len(p.s) && (isHex(p.s[p.pos]) || p.s[p.pos] == '-') {
		p.pos++
	}
	if p.pos == start {
		return "", p.syntax("Expected " + what)
	}
	id, ok := normalizeID(p.s[start:p.pos])
	if !ok {
		shown := p.s[start:p.pos]
		if len(shown) > 40 {
			shown = shown[:40] + "..."
		}
		return "", fail("Invalid writer id \"%s\" at position %d: expected a uuid such as 7f0cab51-fb72-3e98-bdb4-0404a982865d.", shown, start+1)
	}
	return id, nil
}

func (p *parser) int64(what, owner string) (int64, error) {
	start := p.pos
	if p.at('+') || p.at('-') {
		p.pos++
	}
	if p.pos >= len(p.s) || p.s[p.pos] < '0' || p.s[p.pos] > '9' {
		return 0, p.syntax(fmt.Sprintf("Expected the %s of %s as a whole number", what, owner))
	}
	for p.pos < len(p.s) && p.s[p.pos] >= '0' && p.s[p.pos] <= '9' {
		p.pos++
	}
	text := p.s[start:p.pos]
	v, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		if len(text) > 40 {
			text = text[:40] + "..."
		}
		return 0, fail("The %s \"%s\" of %s is out of range for type bigint.", what, text, owner)
	}
	return v, nil
}

func (p *parser) parse() (State, error) {
	var st State
	p.skipSpace()
	if p.at('t') || p.at('T') {
		if !p.keyword("tombstone") {
			return State{}, p.syntax(`Expected "{" or "tombstone"`)
		}
		st.tombstone = true
	} else {
		if !p.at('{') {
			return State{}, p.syntax(`Expected "{" or "tombstone"`)
		}
		p.pos++
		p.skipSpace()
		if p.at('}') {
			p.pos++
		} else {
			for {
				id, err := p.id("a writer id")
				if err != nil {
					return State{}, err
				}
				owner := "writer " + id
				if err := p.expect(':', "after a writer id"); err != nil {
					return State{}, err
				}
				clock, err := p.int64("clock", owner)
				if err != nil {
					return State{}, err
				}
				if err := p.expect(':', "after a clock"); err != nil {
					return State{}, err
				}
				value, err := p.int64("value", owner)
				if err != nil {
					return State{}, err
				}
				if clock < 1 {
					return State{}, fail("Writer %s has clock %d; clocks start at 1.", id, clock)
				}
				st.shards = append(st.shards, Shard{id, clock, value})
				p.skipSpace()
				if p.at(',') {
					p.pos++
					p.skipSpace()
					continue
				}
				if p.at('}') {
					p.pos++
					break
				}
				return State{}, p.syntax(`Expected "," or "}" after a shard`)
			}
		}
	}
	p.skipSpace()
	if p.pos < len(p.s) && (p.s[p.pos]|0x20) == 'f' {
		at := p.pos
		if p.keyword("folded") {
			if st.tombstone {
				return State{}, fail("A tombstone has no fold records, found \"folded\" at position %d.", at+1)
			}
			folds, err := p.folds()
			if err != nil {
				return State{}, err
			}
			st.folds = folds
			p.skipSpace()
		}
	}
	if p.pos < len(p.s) {
		return State{}, p.syntax("Expected end of input")
	}
	sort.SliceStable(st.shards, func(i, j int) bool { return st.shards[i].ID < st.shards[j].ID })
	if err := checkCanonical(st.shards); err != nil {
		return State{}, err
	}
	sort.SliceStable(st.folds, func(i, j int) bool { return foldLess(st.folds[i], st.folds[j]) })
	if err := st.checkFolds(); err != nil {
		return State{}, err
	}
	return st, nil
}

func (p *parser) folds() ([]Fold, error) {
	p.skipSpace()
	if !p.at('{') {
		return nil, p.syntax(`Expected "{" after "folded"`)
	}
	p.pos++
	p.skipSpace()
	if p.at('}') {
		return nil, p.syntax(`Expected a fold record: a value without fold records has no "folded" part`)
	}
	var out []Fold
	for {
		var f Fold
		var err error
		if f.Retired, err = p.id("the retired writer id of a fold record"); err != nil {
			return nil, err
		}
		if err = p.expect('>', "after the retired writer id of a fold record"); err != nil {
			return nil, err
		}
		if f.Target, err = p.id("the target writer id of a fold record"); err != nil {
			return nil, err
		}
		if err = p.expect(':', "after the target writer id of a fold record"); err != nil {
			return nil, err
		}
		owner := "fold record " + f.Retired + ">" + f.Target
		nums := []*int64{&f.TClock, &f.AClock, &f.AValue, &f.Absorbed}
		names := []string{"tclock", "aclock", "avalue", "absorbed"}
		for k, n := range nums {
			if k > 0 {
				article := "a"
				if names[k-1] == "aclock" || names[k-1] == "avalue" {
					article = "an"
				}
				if err = p.expect(':', "after "+article+" "+names[k-1]); err != nil {
					return nil, err
				}
			}
			if *n, err = p.int64(names[k], owner); err != nil {
				return nil, err
			}
		}
		out = append(out, f)
		p.skipSpace()
		if p.at(',') {
			p.pos++
			p.skipSpace()
			continue
		}
		if p.at('}') {
			p.pos++
			return out, nil
		}
		return nil, p.syntax(`Expected "," or "}" after a fold record`)
	}
}
