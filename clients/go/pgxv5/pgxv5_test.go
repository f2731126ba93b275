package pgxv5_test

// The pgx v5 codec against a server (the PG* environment): random states
// read in binary and in text and sent back, NULL, tombstones, merges, two
// goroutines that increment 1,000 times each, and the compact binary form
// (version 3) of every layout, with damaged values refused as the server
// refuses them.

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"testing"
	"time"

	countercrdt "github.com/counter-crdt/counter_crdt/clients/go"
	"github.com/counter-crdt/counter_crdt/clients/go/pgxv5"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

var ctx = context.Background()

func connect(t *testing.T) *pgx.Conn {
	t.Helper()
	cfg, err := pgx.ParseConfig("")
	if err != nil {
		t.Fatal(err)
	}
	return connectWith(t, cfg)
}

// A connection of cfg with the extension and the type registered.
func connectWith(t *testing.T, cfg *pgx.ConnConfig) *pgx.Conn {
	t.Helper()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	if _, err := conn.Exec(ctx, "SET client_min_messages = warning; CREATE EXTENSION IF NOT EXISTS counter_crdt"); err != nil {
		t.Fatal(err)
	}
	if err := pgxv5.Register(ctx, conn); err != nil {
		t.Fatal(err)
	}
	return conn
}

var ids = []string{"00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff",
	"0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90", "7ddd454a-30ea-3e9a-a5d1-3d0092b783a6", "c0ffee00-1234-4abc-8def-0123456789ab"}

func randState(r *rand.Rand) countercrdt.State {
	var shards []countercrdt.Shard
	for _, i := range r.Perm(len(ids))[:r.Intn(len(ids)+1)] {
		shards = append(shards, countercrdt.Shard{ID: ids[i], Clock: r.Int63n(5) + 1, Value: r.Int63() - r.Int63()})
	}
	s, _ := countercrdt.New(shards, nil)
	return s
}

func TestStatesBinaryAndText(t *testing.T) {
	conn := connect(t)
	seed := time.Now().UnixNano() % 1000000
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewSource(seed))
	folded := "{7fffffff-ffff-ffff-ffff-ffffffffffff:4:110, 80000000-0000-0000-0000-000000000000:6:103} folded {80000000-0000-0000-0000-000000000000>7fffffff-ffff-ffff-ffff-ffffffffffff:4:5:100:100}"
	texts := []string{"tombstone", "{}", folded}
	for i := 0; i < 200; i++ {
		texts = append(texts, randState(r).String())
	}
	for _, text := range texts {
		want, err := countercrdt.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeSimpleProtocol} {
			var got countercrdt.State
			var back string
			// read (binary in the extended protocol, text in the simple one), then sent back
			if err := conn.QueryRow(ctx, "SELECT $1::text::counter_crdt", mode, text).Scan(&got); err != nil || !got.Equal(want) {
				t.Errorf("%s (mode %v): scanned %s, %v", text, mode, got, err)
			}
			if err := conn.QueryRow(ctx, "SELECT $1::counter_crdt::text", mode, got).Scan(&back); err != nil || back != want.String() {
				t.Errorf("%s (mode %v): sent back, the server reads %q, %v", text, mode, back, err)
			}
		}
		var v *int64
		if err := conn.QueryRow(ctx, "SELECT $1::text::counter_crdt::bigint", text).Scan(&v); err == nil {
			total, ok, _ := want.Total()
			if (v == nil) != !ok || (v != nil && *v != total) {
				t.Errorf("%s: the server's value %v, the client's %d %v", text, v, total, ok)
			}
		}
	}
	var n countercrdt.State
	var p *countercrdt.State
	if err := conn.QueryRow(ctx, "SELECT NULL::counter_crdt").Scan(&n); err != nil || !n.IsNull() {
		t.Errorf("NULL scans as %s, %v", n, err)
	}
	if err := conn.QueryRow(ctx, "SELECT NULL::counter_crdt").Scan(&p); err != nil || p != nil {
		t.Errorf("NULL into **State: %v, %v", p, err)
	}
	var anyv any
	if err := conn.QueryRow(ctx, "SELECT $1::counter_crdt", folded).Scan(&anyv); err != nil || fmt.Sprint(anyv) != folded {
		t.Errorf("scanned into any: %v, %v", anyv, err)
	}
	for i := 0; i < 100; i++ {
		a, b := randState(r), randState(r)
		mine, _ := a.Merge(b)
		var server countercrdt.State
		if err := conn.QueryRow(ctx, "SELECT counter_crdt_merge($1, $2)", a, b).Scan(&server); err != nil || !server.Equal(mine) {
			t.Errorf("merge(%s, %s): server %s, client %s, %v", a, b, server, mine, err)
		}
	}
}

func TestIncrements(t *testing.T) {
	conn := connect(t)
	if _, err := conn.Exec(ctx, `DROP TABLE IF EXISTS go5_pages;
		CREATE TABLE go5_pages (id int PRIMARY KEY, views counter_crdt DEFAULT '{}');
		SELECT counter_crdt_guard_writes('go5_pages');
		INSERT INTO go5_pages VALUES (1)`); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := 0; g < 2; g++ {
		c := connect(t)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 1000; i++ {
				if _, err := c.Exec(ctx, "UPDATE go5_pages SET views = views + $1 WHERE id = 1", 1); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	var s countercrdt.State
	var id string
	if err := conn.QueryRow(ctx, "SELECT views, counter_crdt_node_id()::text FROM go5_pages WHERE id = 1").Scan(&s, &id); err != nil {
		t.Fatal(err)
	}
	if v, _, _ := s.Total(); v != 2000 || len(s.Shards()) != 1 || s.Shards()[0] != (countercrdt.Shard{ID: id, Clock: 2000, Value: 2000}) {
		t.Errorf("2 x 1,000 increments give %s", s)
	}
	conn.Exec(ctx, "UPDATE go5_pages SET views = views + 1 WHERE id = 1")
	_, err := conn.Exec(ctx, "UPDATE go5_pages SET views = $1 WHERE id = 1", s)
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "23000" {
		t.Errorf("writing back a stale state: %v, want 23000 from the guard", err)
	}
}

// A connection whose session sends version 3 (the setting as a run-time
// parameter of the connection).
func connectCompact(t *testing.T) *pgx.Conn {
	t.Helper()
	cfg, err := pgx.ParseConfig("")
	if err != nil {
		t.Fatal(err)
	}
	cfg.RuntimeParams["counter_crdt.binary_format"] = "compact"
	return connectWith(t, cfg)
}

// Values at the edges of each width, in every layout (clock width code
// cc, value width code vc: layout cc | vc<<2), with their layout byte.
func compactTexts() map[string]byte {
	one := func(clock, value int64) string { return fmt.Sprintf("{%s:%d:%d}", ids[2], clock, value) }
	texts := map[string]byte{"{}": 0x05,
		one(1, -128): 0x05, one(1, 127): 0x05, one(1, -129): 0x09, one(1, 128): 0x09,
		one(1, -1<<31): 0x0d, one(1, 1<<31): 0x01, one(1, 1<<63-1): 0x01, one(1, -1<<63): 0x01,
		one(255, 0): 0x05, one(256, 0): 0x06, one(65535, 0): 0x06, one(65536, 0): 0x07, one(1<<32, 0): 0x04}
	clockLo := [4]int64{1 << 32, 1, 256, 65536}
	clockHi := [4]int64{1<<63 - 1, 255, 65535, 1<<32 - 1}
	valMin := [4]int64{-1 << 63, -128, -32768, -1 << 31}
	valMax := [4]int64{1<<63 - 1, 127, 32767, 1<<31 - 1}
	valPast := [4][2]int64{{-1<<31 - 1, 1 << 31}, {-1, 0}, {-129, 128}, {-32769, 32768}}
	for cc := 0; cc < 4; cc++ {
		for vc := 0; vc < 4; vc++ {
			texts[fmt.Sprintf("{%s:%d:%d, %s:%d:%d, %s:%d:%d, %s:%d:%d}",
				ids[4], clockHi[cc]/2, valPast[vc][1], ids[1], clockLo[cc], valMin[vc],
				ids[0], clockHi[cc], valMax[vc], ids[3], 1, valPast[vc][0])] = byte(cc | vc<<2)
		}
	}
	return texts
}

func TestCompactStates(t *testing.T) {
	conn := connectCompact(t)
	folded := "{7fffffff-ffff-ffff-ffff-ffffffffffff:4:110, 80000000-0000-0000-0000-000000000000:6:103} folded {80000000-0000-0000-0000-000000000000>7fffffff-ffff-ffff-ffff-ffffffffffff:4:5:100:100}"
	type want struct{ version, byte1 byte }
	cases := map[string]want{"tombstone": {1, 1}, folded: {2, 0}}
	for text, lay := range compactTexts() {
		cases[text] = want{3, lay}
	}
	layouts := map[byte]bool{}
	for text, w := range cases {
		rows, err := conn.Query(ctx, "SELECT c, c::text, counter_crdt_send(c) FROM (SELECT $1::text::counter_crdt AS c) v", text)
		if err != nil {
			t.Fatal(err)
		}
		if !rows.Next() {
			t.Fatal(rows.Err())
		}
		if rows.FieldDescriptions()[0].Format != pgtype.BinaryFormatCode {
			t.Fatalf("results of counter_crdt are not binary")
		}
		result := append([]byte(nil), rows.RawValues()[0]...)
		var got countercrdt.State
		var server string
		var sent []byte
		err = rows.Scan(&got, &server, &sent)
		rows.Close()
		if err != nil {
			t.Errorf("%s (%x): %v", text, result, err)
			continue
		}
		if string(result) != string(sent) || len(sent) < 2 || sent[0] != w.version || sent[1] != w.byte1 {
			t.Errorf("%s: the result %x, counter_crdt_send %x; want version %d, byte 1 0x%02x", text, result, sent, w.version, w.byte1)
			continue
		}
		if sent[0] == 3 {
			layouts[sent[1]] = true
		}
		if want, _ := countercrdt.Parse(text); got.String() != server || !got.Equal(want) {
			t.Errorf("%x: scanned (binary) as %s; the server's text %s", sent, got, server)
		}
		// into any, through the codec's DecodeValue
		var v any
		if err := conn.QueryRow(ctx, "SELECT $1::text::counter_crdt", text).Scan(&v); err != nil || fmt.Sprint(v) != server {
			t.Errorf("%s: scanned into any: %v, %v", text, v, err)
		}
	}
	if len(layouts) != 16 {
		t.Errorf("not every layout was sent: %v", layouts)
	}
}

// Damaged version 3 values: the server's recv (bytes sent as a binary
// parameter) and the codec's binary scan plan give the same answer,
// "accepted TEXT" or "refused 22P03: DETAIL".
func TestCompactRefusals(t *testing.T) {
	conn := connectCompact(t)
	typ, ok := conn.TypeMap().TypeForName("counter_crdt")
	if !ok {
		t.Fatal("counter_crdt is not registered")
	}
	ia, ib := strings.ReplaceAll(ids[2], "-", ""), strings.ReplaceAll(ids[3], "-", "")
	var bad [][]byte
	for _, h := range []string{"", "03", "0305", "03ff", "031005" + ia + "0105", "0305" + ia + "01", "0305" + ia + "010500",
		"0305" + ib + "0105" + ia + "0105", "0305" + ia + "0105" + ia + "0205", "0305" + ia + "0005", "0307" + ia + "0000000005",
		"0304" + ia + "800000000000000005", "0305" + ia + "01ff", "0309" + ia + "01ff7f", "030d" + ia + "0180000000", "040000000000"} {
		b, _ := hex.DecodeString(h)
		bad = append(bad, b)
	}
	for text := range compactTexts() {
		var good []byte
		if err := conn.QueryRow(ctx, "SELECT counter_crdt_send($1::text::counter_crdt)", text).Scan(&good); err != nil {
			t.Fatal(err)
		}
		// the bytes read in every layout, and with unknown layout bits
		for _, lay := range []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0x10, 0x85, 0xff} {
			b := append([]byte(nil), good...)
			b[1] = lay
			bad = append(bad, b, b[:len(b)-1])
		}
	}
	accepted := 0
	for _, b := range bad {
		server := ""
		res := conn.PgConn().ExecParams(ctx, "SELECT $1::counter_crdt::text", [][]byte{b}, []uint32{typ.OID},
			[]int16{pgtype.BinaryFormatCode}, []int16{pgtype.TextFormatCode}).Read()
		var pe *pgconn.PgError
		if errors.As(res.Err, &pe) {
			server = "refused " + pe.Code + ": " + pe.Detail
		} else if res.Err != nil {
			t.Fatal(res.Err)
		} else {
			server = "accepted " + string(res.Rows[0][0])
			accepted++
		}
		var s countercrdt.State
		client := ""
		err := conn.TypeMap().PlanScan(typ.OID, pgtype.BinaryFormatCode, &s).Scan(b, &s)
		var ce *countercrdt.ParseError
		if errors.As(err, &ce) {
			client = "refused 22P03: " + ce.Detail
		} else if err != nil {
			client = "unexpected " + err.Error()
		} else {
			client = "accepted " + s.String()
		}
		if server != client {
			t.Errorf("%x: server %q, client %q", b, server, client)
		}
	}
	t.Logf("%d damaged values, %d read", len(bad), accepted)
	if accepted < 10 || accepted > len(bad)-100 {
		t.Errorf("%d damaged values, %d read: too few of one kind", len(bad), accepted)
	}
}
