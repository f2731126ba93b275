package pgxv5_test

// The pgx v5 codec against a server (the PG* environment): random states
// read in binary and in text and sent back, NULL, tombstones, merges, and
// two goroutines that increment 1,000 times each.

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"sync"
	"testing"
	"time"

	countercrdt "github.com/counter-crdt/counter_crdt/clients/go"
	"github.com/counter-crdt/counter_crdt/clients/go/pgxv5"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

var ctx = context.Background()

func connect(t *testing.T) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(ctx, "")
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
