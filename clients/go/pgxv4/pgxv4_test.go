package pgxv4_test

// countercrdt.State with pgx v4 against a server (the PG* environment):
// random texts, binary values, damaged binary values and merges compared
// with the server's own answers; NULL and tombstones; two goroutines that
// increment 1,000 times each.

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	countercrdt "github.com/counter-crdt/counter_crdt/clients/go"
	"github.com/counter-crdt/counter_crdt/clients/go/pgxv4"
	"github.com/jackc/pgconn"
	"github.com/jackc/pgtype"
	"github.com/jackc/pgx/v4"
)

var ctx = context.Background()

func connect(t *testing.T, register bool) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	if _, err := conn.Exec(ctx, "SET client_min_messages = warning; CREATE EXTENSION IF NOT EXISTS counter_crdt"); err != nil {
		t.Fatal(err)
	}
	if register {
		if err := pgxv4.Register(ctx, conn); err != nil {
			t.Fatal(err)
		}
	}
	return conn
}

func rng(t *testing.T) *rand.Rand {
	seed := time.Now().UnixNano() % 1000000
	if s, err := strconv.ParseInt(os.Getenv("COUNTER_CRDT_SEED"), 10, 64); err == nil {
		seed = s
	}
	t.Logf("seed %d", seed)
	return rand.New(rand.NewSource(seed))
}

var pool = []string{
	"00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff", "80000000-0000-0000-0000-000000000000",
	"0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90", "7f0cab51-fb72-3e98-bdb4-0404a982865d", "7ddd454a-30ea-3e9a-a5d1-3d0092b783a6",
	"c0ffee00-1234-4abc-8def-0123456789ab",
}

func randValue(r *rand.Rand) int64 {
	switch r.Intn(10) {
	case 0:
		return []int64{9223372036854775807, -9223372036854775808, 9223372036854775806}[r.Intn(3)]
	case 1:
		return r.Int63n(1<<62) - 1<<61
	}
	return r.Int63n(201) - 100
}

func randPlain(r *rand.Rand, max int) countercrdt.State {
	var shards []countercrdt.Shard
	for _, i := range r.Perm(len(pool))[:r.Intn(max+1)] {
		clock := r.Int63n(4) + 1
		if r.Intn(5) == 0 {
			clock = r.Int63n(1<<62) + 1
		}
		shards = append(shards, countercrdt.Shard{ID: pool[i], Clock: clock, Value: randValue(r)})
	}
	s, err := countercrdt.New(shards, nil)
	if err != nil {
		panic(err)
	}
	return s
}

// shards and fold records as folds make them; the server may still refuse
// some (what is compared is the agreement).
func randFolded(r *rand.Rand) string {
	perm := r.Perm(len(pool))
	ids := perm[:1+r.Intn(3)]
	clocks := map[int]int64{}
	for _, i := range ids {
		clocks[i] = r.Int63n(6) + 1
	}
	retired := perm[len(ids) : len(ids)+1+r.Intn(2)]
	if len(ids) > 1 && r.Intn(3) == 0 {
		retired = append(retired, ids[0])
	}
	var folds []string
	for _, a := range retired {
		var top int64
		for k, t := range ids {
			if t == a || (k > 0 && r.Intn(2) == 0) {
				continue
			}
			tclock := r.Int63n(clocks[t]) + 1
			aclock := r.Int63n(5) + 1
			if aclock > top {
				top = aclock
			}
			folds = append(folds, fmt.Sprintf("%s > %s:%d:%d:%d:%d", strings.ToUpper(pool[a]), pool[t], tclock, aclock, r.Intn(101), r.Intn(101)))
		}
		if _, ok := clocks[a]; ok {
			clocks[a] = top + r.Int63n(3)
		}
	}
	var shards []string
	for i, c := range clocks {
		shards = append(shards, fmt.Sprintf(" %s : %d : %d", pool[i], c, r.Intn(250)-50))
	}
	text := "{" + strings.Join(shards, ",") + "}"
	if len(folds) > 0 {
		text += " folded {" + strings.Join(folds, ", ") + "}"
	}
	return text
}

var mutations = []func(string, *rand.Rand) string{
	func(t string, r *rand.Rand) string { i := r.Intn(len(t)); return t[:i] + t[i+1:] },
	func(t string, r *rand.Rand) string {
		i := r.Intn(len(t) + 1)
		c := "{}:,>- 0a9xf+"[r.Intn(13)]
		return t[:i] + string(c) + t[i:]
	},
	func(t string, r *rand.Rand) string { return strings.Replace(t, ":1:", ":0:", 1) },
	func(t string, r *rand.Rand) string { return strings.Replace(t, "}", "99999999999999999999}", 1) },
	func(t string, r *rand.Rand) string { return t + " x" },
	func(t string, r *rand.Rand) string { return strings.Replace(t, "-", "", 1) },
	func(t string, r *rand.Rand) string { return strings.Replace(t, "}", "} folded {}", 1) },
}

// What the client makes of a text, in the shape of pg_temp.try's answer.
func clientTry(text string) string {
	s, err := countercrdt.Parse(text)
	var pe *countercrdt.ParseError
	if errors.As(err, &pe) {
		return "refused 22P02"
	} else if err != nil {
		return "unexpected " + err.Error()
	}
	v, ok, err := s.Total()
	value := strconv.FormatInt(v, 10)
	if err != nil {
		value = "error 22003"
	} else if !ok {
		value = "null"
	}
	return "accepted " + value + " " + s.String()
}

func TestTextsAgainstServer(t *testing.T) {
	conn := connect(t, false)
	if _, err := conn.Exec(ctx, `CREATE FUNCTION pg_temp.try(input text) RETURNS text LANGUAGE plpgsql AS $$
	  DECLARE c counter_crdt; v text;
	  BEGIN
	    BEGIN c := input::counter_crdt;
	    EXCEPTION WHEN OTHERS THEN RETURN 'refused ' || SQLSTATE; END;
	    BEGIN v := c::bigint::text;
	    EXCEPTION WHEN OTHERS THEN v := 'error ' || SQLSTATE; END;
	    RETURN 'accepted ' || coalesce(v, 'null') || ' ' || c::text;
	  END $$`); err != nil {
		t.Fatal(err)
	}
	r := rng(t)
	texts := []string{"{}", "tombstone", " TombStone ", "{ }", "", "{", "0", "5", "{}x",
		"{7fffffff-ffff-ffff-ffff-ffffffffffff:1:9223372036854775807} folded {80000000-0000-0000-0000-000000000000>7fffffff-ffff-ffff-ffff-ffffffffffff:1:1:9223372036854775807:0}",
		"{7fffffff-ffff-ffff-ffff-ffffffffffff:4:110, 80000000-0000-0000-0000-000000000000:6:103} folded {80000000-0000-0000-0000-000000000000>7fffffff-ffff-ffff-ffff-ffffffffffff:4:5:100:100}"}
	for i := 0; i < 150; i++ {
		s := randPlain(r, 4).String()
		f := randFolded(r)
		texts = append(texts, s, f, mutations[r.Intn(len(mutations))](s, r), mutations[r.Intn(len(mutations))](f, r))
	}
	kinds := map[string]int{}
	for _, text := range texts {
		var server string
		if err := conn.QueryRow(ctx, "SELECT pg_temp.try($1)", text).Scan(&server); err != nil {
			t.Fatal(err)
		}
		kinds[strings.Fields(server)[0]]++
		if strings.Contains(server, " folded {") {
			kinds["folded"]++
		}
		if strings.Contains(server, "error 22003") {
			kinds["out of range"]++
		}
		if client := clientTry(text); client != server {
			t.Errorf("%q: server %q, client %q", text, server, client)
		}
	}
	t.Logf("%d texts: %v", len(texts), kinds)
	if kinds["accepted"] < 200 || kinds["refused"] < 60 || kinds["folded"] < 40 || kinds["out of range"] == 0 {
		t.Errorf("the random texts lack a kind: %v", kinds)
	}
}

// raw sends its bytes as a binary parameter.
type raw []byte

func (b raw) EncodeBinary(_ *pgtype.ConnInfo, buf []byte) ([]byte, error) {
	return append(buf, b...), nil
}

func TestBinaryAgainstServer(t *testing.T) {
	conn := connect(t, true)
	r := rng(t)
	n, damaged := 0, 0
	for i := 0; i < 300; i++ {
		text := randFolded(r)
		if i%2 == 0 {
			text = randPlain(r, 5).String()
		}
		if i%17 == 0 {
			text = "tombstone"
		}
		s, err := countercrdt.Parse(text)
		if err != nil {
			continue
		}
		n++
		// the server's send, as raw bytes of a binary result
		rows, err := conn.Query(ctx, "SELECT $1::text::counter_crdt", text)
		if err != nil {
			t.Fatal(err)
		}
		rows.Next()
		if rows.FieldDescriptions()[0].Format != 1 {
			t.Fatalf("results of counter_crdt are not binary after Register")
		}
		server := append([]byte(nil), rows.RawValues()[0]...)
		rows.Close()
		mine, _ := s.MarshalBinary()
		if string(mine) != string(server) {
			t.Errorf("%s: MarshalBinary differs from the server's send", s)
		}
		var back countercrdt.State
		if err := conn.QueryRow(ctx, "SELECT $1::text::counter_crdt", text).Scan(&back); err != nil || !back.Equal(s) {
			t.Errorf("%s: scanned (binary) as %s, %v", s, back, err)
		}
		// the client's binary, read by the server's recv
		var got string
		if err := conn.QueryRow(ctx, "SELECT $1::counter_crdt::text", s).Scan(&got); err != nil || got != s.String() {
			t.Errorf("%s: the server reads the client's binary as %q, %v", s, got, err)
		}
		// damaged values: refused by both, or read alike
		cases := [][]byte{mine[:r.Intn(len(mine))], append([]byte{3}, mine[1:]...), append(append([]byte{}, mine...), 'x'),
			append([]byte{mine[0], mine[1] | 2}, mine[2:]...)}
		if len(mine) >= 70 {
			swapped := append(append(append([]byte{}, mine[:6]...), mine[38:70]...), mine[6:38]...)
			cases = append(cases, append(swapped, mine[70:]...))
		}
		for _, c := range cases {
			server, client := serverRecv(t, conn, c), clientRecv(c)
			damaged++
			if client != server {
				t.Errorf("%x: server %q, client %q", c, server, client)
			}
		}
	}
	t.Logf("%d states, %d damaged values", n, damaged)
}

func TestMergeAgainstServer(t *testing.T) {
	conn := connect(t, true)
	r := rng(t)
	for i := 0; i < 300; i++ {
		a, b := randPlain(r, 5), randPlain(r, 5)
		// equal clocks with other values: the value breaks the tie
		var shards []countercrdt.Shard
		for _, sh := range b.Shards() {
			if o, ok := a.Shard(sh.ID); ok && r.Intn(2) == 0 {
				sh.Clock = o.Clock
			}
			shards = append(shards, sh)
		}
		b, _ = countercrdt.New(shards, nil)
		if i%9 == 0 {
			b = countercrdt.Tombstone()
		}
		mine, err := a.Merge(b)
		if err != nil {
			t.Fatal(err)
		}
		var server countercrdt.State
		if err := conn.QueryRow(ctx, "SELECT counter_crdt_merge($1, $2)", a, b).Scan(&server); err != nil || !server.Equal(mine) {
			t.Errorf("merge(%s, %s): server %s, client %s, %v", a, b, server, mine, err)
		}
	}
	folded, _ := countercrdt.Parse("{7fffffff-ffff-ffff-ffff-ffffffffffff:4:110} folded {80000000-0000-0000-0000-000000000000>7fffffff-ffff-ffff-ffff-ffffffffffff:4:5:100:100}")
	if _, err := folded.Merge(countercrdt.State{}); err != countercrdt.ErrFolded {
		t.Errorf("merging a state with fold records: %v, want ErrFolded", err)
	}
	if m, _ := folded.Merge(countercrdt.Tombstone()); !m.IsTombstone() {
		t.Errorf("a tombstone does not absorb a state with fold records")
	}
}

func TestNullTombstoneAndText(t *testing.T) {
	for _, register := range []bool{false, true} {
		conn := connect(t, register)
		var s countercrdt.State
		var p *countercrdt.State
		if err := conn.QueryRow(ctx, "SELECT NULL::counter_crdt").Scan(&s); err != nil || !s.IsNull() {
			t.Errorf("register %v: NULL scans as %s, %v", register, s, err)
		}
		if err := conn.QueryRow(ctx, "SELECT NULL::counter_crdt").Scan(&p); err != nil || p != nil {
			t.Errorf("register %v: NULL into **State: %v, %v", register, p, err)
		}
		if err := conn.QueryRow(ctx, "SELECT 'tombstone'::counter_crdt").Scan(&s); err != nil || !s.IsTombstone() {
			t.Errorf("register %v: tombstone scans as %s, %v", register, s, err)
		}
		if _, ok, _ := s.Total(); ok {
			t.Errorf("a tombstone has a value")
		}
		if err := conn.QueryRow(ctx, "SELECT NULL::counter_crdt + 5").Scan(&s); err != nil {
			t.Errorf("register %v: %v", register, err)
		} else if v, ok, err := s.Total(); v != 5 || !ok || err != nil {
			t.Errorf("register %v: NULL + 5 scans as %s", register, s)
		}
	}
}

// Two goroutines, each on its own connection, increment one counter 1,000
// times: 2,000 in 2,000 increments of this server's shard. A state read
// and written back is refused by the guard; merged, it loses nothing.
func TestIncrements(t *testing.T) {
	conn := connect(t, true)
	if _, err := conn.Exec(ctx, `DROP TABLE IF EXISTS go_pages;
		CREATE TABLE go_pages (id int PRIMARY KEY, views counter_crdt DEFAULT '{}');
		SELECT counter_crdt_guard_writes('go_pages');
		INSERT INTO go_pages VALUES (1)`); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := 0; g < 2; g++ {
		c := connect(t, true)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 1000; i++ {
				if _, err := c.Exec(ctx, "UPDATE go_pages SET views = views + $1 WHERE id = 1", 1); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	var s countercrdt.State
	var id string
	if err := conn.QueryRow(ctx, "SELECT views, counter_crdt_node_id()::text FROM go_pages WHERE id = 1").Scan(&s, &id); err != nil {
		t.Fatal(err)
	}
	if v, _, _ := s.Total(); v != 2000 || len(s.Shards()) != 1 || s.Shards()[0] != (countercrdt.Shard{ID: id, Clock: 2000, Value: 2000}) {
		t.Errorf("2 x 1,000 increments give %s", s)
	}
	if _, err := conn.Exec(ctx, "UPDATE go_pages SET views = views + 1 WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
	_, err := conn.Exec(ctx, "UPDATE go_pages SET views = $1 WHERE id = 1", s)
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "23000" {
		t.Errorf("writing back a stale state: %v, want 23000 from the guard", err)
	}
	if _, err := conn.Exec(ctx, "UPDATE go_pages SET views = counter_crdt_merge(views, $1) WHERE id = 1", s); err != nil {
		t.Error(err)
	}
	var v int64
	if err := conn.QueryRow(ctx, "SELECT views::bigint FROM go_pages WHERE id = 1").Scan(&v); err != nil || v != 2001 {
		t.Errorf("after a merge of the stale state: %d, %v; want 2001", v, err)
	}
}

// The compact binary form (version 3), sent by the server when
// counter_crdt.binary_format is 'compact': values of every layout, at the
// edges of each width, scanned through pgx's binary path equal their text;
// a tombstone and a value with fold records still come as versions 1 and 2.

type compactCase struct {
	text           string
	version, byte1 byte // byte 1: the layout of version 3, the flags of 1 and 2
}

const folded = "{7fffffff-ffff-ffff-ffff-ffffffffffff:4:110, 80000000-0000-0000-0000-000000000000:6:103} folded {80000000-0000-0000-0000-000000000000>7fffffff-ffff-ffff-ffff-ffffffffffff:4:5:100:100}"

func compactCases() []compactCase {
	one := func(clock, value int64) string { return fmt.Sprintf("{%s:%d:%d}", pool[3], clock, value) }
	cases := []compactCase{
		{"{}", 3, 0x05}, {"tombstone", 1, 1}, {folded, 2, 0},
		{one(1, 0), 3, 0x05}, {one(1, -128), 3, 0x05}, {one(1, 127), 3, 0x05},
		{one(1, -129), 3, 0x09}, {one(1, 128), 3, 0x09}, {one(1, -32768), 3, 0x09}, {one(1, 32767), 3, 0x09},
		{one(1, -32769), 3, 0x0d}, {one(1, 32768), 3, 0x0d}, {one(1, -1<<31), 3, 0x0d}, {one(1, 1<<31-1), 3, 0x0d},
		{one(1, -1<<31-1), 3, 0x01}, {one(1, 1<<31), 3, 0x01}, {one(1, -1<<63), 3, 0x01}, {one(1, 1<<63-1), 3, 0x01},
		{one(255, -1), 3, 0x05}, {one(256, -1), 3, 0x06}, {one(65535, 1), 3, 0x06},
		{one(65536, 1), 3, 0x07}, {one(1<<32-1, 1), 3, 0x07}, {one(1<<32, 1), 3, 0x04}, {one(1<<63-1, 1), 3, 0x04},
	}
	// every layout: clock width code cc, value width code vc, with the
	// least and greatest numbers of each width in one value, ids in any
	// order and letter case
	clockLo := [4]int64{1 << 32, 1, 256, 65536}
	clockHi := [4]int64{1<<63 - 1, 255, 65535, 1<<32 - 1}
	valMin := [4]int64{-1 << 63, -128, -32768, -1 << 31}
	valMax := [4]int64{1<<63 - 1, 127, 32767, 1<<31 - 1}
	valPast := [4][2]int64{{-1<<31 - 1, 1 << 31}, {-1, 0}, {-129, 128}, {-32769, 32768}}
	for cc := 0; cc < 4; cc++ {
		for vc := 0; vc < 4; vc++ {
			text := fmt.Sprintf("{%s:%d:%d, %s:%d:%d, %s:%d:%d, %s:%d:%d}",
				pool[6], clockHi[cc]/2, valPast[vc][1], strings.ToUpper(pool[1]), clockLo[cc], valMin[vc],
				pool[0], clockHi[cc], valMax[vc], pool[4], 1, valPast[vc][0])
			cases = append(cases, compactCase{text, 3, byte(cc | vc<<2)})
		}
	}
	return cases
}

func setCompact(t *testing.T, conn *pgx.Conn) {
	t.Helper()
	if _, err := conn.Exec(ctx, "SET counter_crdt.binary_format = 'compact'"); err != nil {
		t.Fatal(err)
	}
}

func TestCompactAgainstServer(t *testing.T) {
	conn := connect(t, true)
	setCompact(t, conn)
	r := rng(t)
	cases := compactCases()
	for i := 0; i < 200; i++ {
		// random states: version 3, any layout (0xff)
		cases = append(cases, compactCase{randPlain(r, 5).String(), 3, 0xff})
	}
	layouts := map[byte]int{}
	for _, c := range cases {
		want, err := countercrdt.Parse(c.text)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := conn.Query(ctx, "SELECT c, c::text, counter_crdt_send(c) FROM (SELECT $1::text::counter_crdt AS c) v", c.text)
		if err != nil {
			t.Fatal(err)
		}
		if !rows.Next() {
			t.Fatal(rows.Err())
		}
		if rows.FieldDescriptions()[0].Format != 1 {
			t.Fatalf("results of counter_crdt are not binary after Register")
		}
		result := append([]byte(nil), rows.RawValues()[0]...)
		var got countercrdt.State
		var text string
		var sent []byte
		err = rows.Scan(&got, &text, &sent)
		rows.Close()
		if err != nil {
			t.Errorf("%s (%x): %v", c.text, result, err)
			continue
		}
		if string(result) != string(sent) || len(sent) < 2 || sent[0] != c.version || (c.byte1 != 0xff && sent[1] != c.byte1) {
			t.Errorf("%s: the result %x, counter_crdt_send %x; want version %d, byte 1 0x%02x", c.text, result, sent, c.version, c.byte1)
			continue
		}
		if sent[0] == 3 {
			layouts[sent[1]]++
		}
		if got.String() != text || !got.Equal(want) {
			t.Errorf("%x: scanned (binary) as %s; the server's text %s", sent, got, text)
		}
		// sent back (version 1 or 2), the server reads the same value
		var back string
		if err := conn.QueryRow(ctx, "SELECT $1::counter_crdt::text", got).Scan(&back); err != nil || back != text {
			t.Errorf("%s: sent back, the server reads %q, %v", text, back, err)
		}
	}
	if len(layouts) != 16 {
		t.Errorf("not every layout was sent: %v", layouts)
	}
	// the setting is what makes version 3: portable gives version 1
	var sent []byte
	if _, err := conn.Exec(ctx, "RESET counter_crdt.binary_format"); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(ctx, "SELECT counter_crdt_send('{}')").Scan(&sent); err != nil || len(sent) == 0 || sent[0] != 1 {
		t.Errorf("portable: %x, %v", sent, err)
	}
}

// What the server and the client make of bytes sent as a binary parameter:
// "accepted TEXT" or "refused SQLSTATE: DETAIL".
func serverRecv(t *testing.T, conn *pgx.Conn, b []byte) string {
	t.Helper()
	var text string
	err := conn.QueryRow(ctx, "SELECT $1::counter_crdt::text", raw(b)).Scan(&text)
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return "refused " + pe.Code + ": " + pe.Detail
	} else if err != nil {
		t.Fatal(err)
	}
	return "accepted " + text
}

func clientRecv(b []byte) string {
	var s countercrdt.State
	err := s.UnmarshalBinary(b)
	var pe *countercrdt.ParseError
	if errors.As(err, &pe) {
		return "refused 22P03: " + pe.Detail
	} else if err != nil {
		return "unexpected " + err.Error()
	}
	return "accepted " + s.String()
}

// Damaged version 3 values, refused by both with the same message or read
// alike; and the unsupported versions, whose message names 1, 2 and 3.
func TestCompactRefusalsAgainstServer(t *testing.T) {
	conn := connect(t, true)
	setCompact(t, conn)
	r := rng(t)
	ia, ib := strings.ReplaceAll(pool[3], "-", ""), strings.ReplaceAll(pool[4], "-", "")
	var bad [][]byte
	for _, h := range []string{"", "03", "0305", "0385", "03ff", "031005" + ia + "0105", "0305" + ia + "01", "0305" + ia + "010500",
		"0305" + ib + "0105" + ia + "0105", "0305" + ia + "0105" + ia + "0205", "0305" + ia + "0005", "0307" + ia + "0000000005",
		"0305" + ia + "0105" + ib + "0005", "0304" + ia + "800000000000000005", "0304" + ia + "ffffffffffffffff05",
		"030600", "000000000000", "040000000000", "ff0100000000", "04"} {
		b, _ := hex.DecodeString(h)
		bad = append(bad, b)
	}
	texts := []string{}
	for _, c := range compactCases() {
		texts = append(texts, c.text)
	}
	for i := 0; i < 100; i++ {
		texts = append(texts, randPlain(r, 5).String())
	}
	for _, text := range texts {
		var good []byte
		if err := conn.QueryRow(ctx, "SELECT counter_crdt_send($1::text::counter_crdt)", text).Scan(&good); err != nil {
			t.Fatal(err)
		}
		if good[0] != 3 {
			continue
		}
		widths := [4]int{8, 1, 2, 4}
		size := 16 + widths[good[1]&3] + widths[good[1]>>2&3]
		damage := func(f func(b []byte) []byte) { bad = append(bad, f(append([]byte(nil), good...))) }
		damage(func(b []byte) []byte { return b[:r.Intn(len(b))] })
		damage(func(b []byte) []byte { return append(b, byte(r.Intn(256))) })
		damage(func(b []byte) []byte { b[1] = byte(r.Intn(256)); return b })
		damage(func(b []byte) []byte { b[1] = byte(r.Intn(16)); return b })
		damage(func(b []byte) []byte { b[r.Intn(len(b)-1)+1] ^= 1 << r.Intn(8); return b })
		damage(func(b []byte) []byte { b[0] = []byte{0, 4, 255}[r.Intn(3)]; return b })
		if len(good) > 2 {
			// a record's clock zeroed
			damage(func(b []byte) []byte {
				k := r.Intn((len(b) - 2) / size)
				cw := widths[b[1]&3]
				copy(b[2+k*size+16:2+k*size+16+cw], make([]byte, cw))
				return b
			})
			// the top byte of a record's value set: sign extension
			damage(func(b []byte) []byte {
				k := r.Intn((len(b) - 2) / size)
				vw := widths[b[1]>>2&3]
				b[2+(k+1)*size-vw] |= 0x80
				return b
			})
		}
		if len(good) > 2+size {
			// two records swapped, or the first one twice
			damage(func(b []byte) []byte {
				first := append([]byte(nil), b[2:2+size]...)
				copy(b[2:], b[2+size:2+2*size])
				copy(b[2+size:], first)
				return b
			})
			damage(func(b []byte) []byte { copy(b[2+size:], b[2:2+size]); return b })
		}
	}
	kinds := map[string]int{}
	for _, b := range bad {
		server, client := serverRecv(t, conn, b), clientRecv(b)
		kinds[refusalKind(server)]++
		if server != client {
			t.Errorf("%x: server %q, client %q", b, server, client)
		}
	}
	t.Logf("%d damaged values: %v", len(bad), kinds)
	for _, k := range refusalKinds {
		if kinds[k] == 0 {
			t.Errorf("no damaged value of kind %q", k)
		}
	}
	if kinds["accepted"] < 50 {
		t.Errorf("too few damaged values read: %v", kinds)
	}
}

var refusalKinds = []string{"header alone takes 6", "header of format version 3", "Unknown layout bits", "not a whole number",
	"clocks start at 1", "out of ascending order", "appears more than once", "versions 1, 2 and 3"}

func refusalKind(answer string) string {
	if strings.HasPrefix(answer, "accepted ") {
		return "accepted"
	}
	for _, k := range refusalKinds {
		if strings.Contains(answer, k) {
			return k
		}
	}
	return answer
}
