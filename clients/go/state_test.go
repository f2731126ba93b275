package countercrdt

// The decoder of the compact binary form (version 3) without a server:
// every layout at the edges of its widths, vectors of the server's send,
// and the refusals of counter_crdt_recv with its messages
// (expected/binary_compact.out).

import (
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
)

var testIDs = []string{"0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90", "7f0cab51-fb72-3e98-bdb4-0404a982865d",
	"80000000-0000-0000-0000-000000000000", "c0ffee00-1234-4abc-8def-0123456789ab"}

// compact writes version 3 as the test reads the format (cc_wire.h): each
// number's low bytes of its width, big-endian.
func compact(lay byte, shards ...Shard) []byte {
	b := []byte{3, lay}
	for _, sh := range shards {
		b = appendID(b, sh.ID)
		for k, n := range []int64{sh.Clock, sh.Value} {
			w := width[lay>>(2*k)&3]
			for i := w - 1; i >= 0; i-- {
				b = append(b, byte(uint64(n)>>(8*i)))
			}
		}
	}
	return b
}

// The smallest and largest clock of each width code, and the least and
// greatest values (with those one past the next narrower width).
var (
	clockLo = [4]int64{1 << 32, 1, 256, 65536}
	clockHi = [4]int64{1<<63 - 1, 255, 65535, 1<<32 - 1}
	valMin  = [4]int64{-1 << 63, -128, -32768, -1 << 31}
	valMax  = [4]int64{1<<63 - 1, 127, 32767, 1<<31 - 1}
	valPast = [4][2]int64{{-1<<31 - 1, 1 << 31}, {-1, 0}, {-129, 128}, {-32769, 32768}}
)

// layoutShards is a value of clock width code cc and value width code vc
// at the edges of both.
func layoutShards(cc, vc int) []Shard {
	return []Shard{
		{testIDs[0], clockLo[cc], valMin[vc]},
		{testIDs[1], clockHi[cc], valMax[vc]},
		{testIDs[2], 1, valPast[vc][0]},
		{testIDs[3], clockHi[cc] / 2, valPast[vc][1]},
	}
}

func TestCompactEveryLayout(t *testing.T) {
	for cc := 0; cc < 4; cc++ {
		for vc := 0; vc < 4; vc++ {
			lay := byte(cc | vc<<2)
			shards := layoutShards(cc, vc)
			want, err := New(shards, nil)
			if err != nil {
				t.Fatal(err)
			}
			var got State
			b := compact(lay, shards...)
			if err := got.UnmarshalBinary(b); err != nil || !got.Equal(want) {
				t.Errorf("layout 0x%02x, %x: read as %s, %v; want %s", lay, b, got, err, want)
			}
			// written back as version 1, the portable form
			if v1, _ := got.MarshalBinary(); v1[0] != 1 || len(v1) != 6+4*32 {
				t.Errorf("layout 0x%02x: written back as %x", lay, v1)
			}
			// any layout wide enough reads alike: one record in each
			for wide := 0; wide < 16; wide++ {
				if width[wide&3] < width[cc] || width[wide>>2] < width[vc] {
					continue
				}
				one, _ := New(shards[:1], nil)
				if err := got.UnmarshalBinary(compact(byte(wide), shards[0])); err != nil || !got.Equal(one) {
					t.Errorf("layout 0x%02x holding %v: %s, %v", wide, shards[0], got, err)
				}
			}
		}
	}
}

// The bytes of each width code.
var width = [4]int{8, 1, 2, 4}

// Bytes of the server's counter_crdt_send with binary_format 'compact'.
func TestCompactServerVectors(t *testing.T) {
	for _, c := range []struct{ hex, text string }{
		{"0305", "{}"},
		{"03090b6e7f3a2d444c8e9a513f0d2c7b1e90ffff7f", "{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:255:-129}"},
		{"03050b6e7f3a2d444c8e9a513f0d2c7b1e9001807f0cab51fb723e98bdb40404a982865dff7f",
			"{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:1:-128, 7f0cab51-fb72-3e98-bdb4-0404a982865d:255:127}"},
		{"03040b6e7f3a2d444c8e9a513f0d2c7b1e90000000010000000080",
			"{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:4294967296:-128}"},
		{"03030b6e7f3a2d444c8e9a513f0d2c7b1e90000100008000000000000000",
			"{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:65536:-9223372036854775808}"},
		{"030e0b6e7f3a2d444c8e9a513f0d2c7b1e9001007fffffff",
			"{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:256:2147483647}"},
		{"030c0b6e7f3a2d444c8e9a513f0d2c7b1e907fffffffffffffff80000000",
			"{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:9223372036854775807:-2147483648}"},
	} {
		b, _ := hex.DecodeString(c.hex)
		var s State
		if err := s.UnmarshalBinary(b); err != nil || s.String() != c.text {
			t.Errorf("%s: read as %s, %v; want %s", c.hex, s, err, c.text)
		}
		want, _ := Parse(c.text)
		if mine := compact(b[1], want.shards...); string(mine) != string(b) {
			t.Errorf("%s: the test's writer gives %x", c.hex, mine)
		}
	}
}

type refusal struct {
	bytes []byte
	msg   string
}

// Refusals, each with counter_crdt_recv's message.
func TestCompactRefusals(t *testing.T) {
	a, b := testIDs[0], testIDs[1]
	ia := strings.ReplaceAll(a, "-", "")
	cases := []refusal{
		{[]byte{}, "The value is 0 bytes long; the header alone takes 6."},
		{[]byte{3}, "The value is 1 byte long; the header of format version 3 takes 2."},
		{[]byte{4}, "The value is 1 byte long; the header alone takes 6."},
		{[]byte{3, 5, 0, 0}, "2 bytes of shard data are not a whole number of 18-byte records (layout 0x05)."},
		{[]byte{3, 0xff}, "Unknown layout bits 0xf0 are set."},
		{[]byte{0, 0, 0, 0, 0, 0}, "Format version 0 is not supported; this build reads versions 1, 2 and 3."},
		{[]byte{4, 0, 0, 0, 0, 0}, "Format version 4 is not supported; this build reads versions 1, 2 and 3."},
		{[]byte{255, 1, 0, 0, 0, 0}, "Format version 255 is not supported; this build reads versions 1, 2 and 3."},
		{compact(5, Shard{b, 1, 5}, Shard{a, 1, 5}), "Writer " + a + " is out of ascending order."},
		{compact(5, Shard{a, 1, 5}, Shard{a, 2, 5}), "Writer " + a + " appears more than once."},
		{compact(5, Shard{a, 0, 5}), "Writer " + a + " has clock 0; clocks start at 1."},
		{compact(6, Shard{a, 0, 5}), "Writer " + a + " has clock 0; clocks start at 1."},
		{compact(7, Shard{a, 0, 5}), "Writer " + a + " has clock 0; clocks start at 1."},
		{compact(4, Shard{a, 0, 5}), "Writer " + a + " has clock 0; clocks start at 1."},
		{compact(5, Shard{a, 1, 5}, Shard{b, 0, 5}), "Writer " + b + " has clock 0; clocks start at 1."},
		{compact(4, Shard{a, -1 << 63, 5}), "Writer " + a + " has clock -9223372036854775808; clocks start at 1."},
		{compact(4, Shard{a, -1, 5}), "Writer " + a + " has clock -1; clocks start at 1."},
		{append(compact(5, Shard{a, 1, 5}), 0), "19 bytes of shard data are not a whole number of 18-byte records (layout 0x05)."},
		{compact(5, Shard{a, 1, 5})[:19], "17 bytes of shard data are not a whole number of 18-byte records (layout 0x05)."},
	}
	// bytes of layout 05 read as 06: a record of 19 bytes
	two := compact(5, Shard{a, 1, 5}, Shard{b, 2, -5})
	two[1] = 6
	cases = append(cases, refusal{two, "36 bytes of shard data are not a whole number of 19-byte records (layout 0x06)."})
	for bit := 4; bit < 8; bit++ {
		ib, _ := hex.DecodeString(fmt.Sprintf("03%02x%s0105", 1<<bit|5, ia))
		cases = append(cases, refusal{ib, fmt.Sprintf("Unknown layout bits 0x%02x are set.", 1<<bit)})
	}
	// every layout: its record size, short by one byte and one byte over
	sizes := [16]int{32, 25, 26, 28, 25, 18, 19, 21, 26, 19, 20, 22, 28, 21, 22, 24}
	for lay := 0; lay < 16; lay++ {
		for _, body := range []int{1, sizes[lay] - 1, sizes[lay] + 1, 2*sizes[lay] - 1} {
			s := plural(uint64(body), "", "s")
			is := plural(uint64(body), "is", "are")
			cases = append(cases, refusal{append([]byte{3, byte(lay)}, make([]byte, body)...),
				fmt.Sprintf("%d byte%s of shard data %s not a whole number of %d-byte records (layout 0x%02x).", body, s, is, sizes[lay], lay)})
		}
	}
	for _, c := range cases {
		s := State{shards: []Shard{{a, 9, 9}}}
		err := s.UnmarshalBinary(c.bytes)
		pe, ok := err.(*ParseError)
		if !ok || pe.Detail != c.msg {
			t.Errorf("%x: %v; want %q", c.bytes, err, c.msg)
		}
		if s.String() != "{"+a+":9:9}" {
			t.Errorf("%x: a refused value changed the State to %s", c.bytes, s)
		}
	}
	t.Logf("%d refusals", len(cases))
}
