package io.github.countercrdt;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.math.BigInteger;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import org.junit.Test;

import io.github.countercrdt.CounterState.Fold;
import io.github.countercrdt.CounterState.Shard;

/**
 * CounterState without a server: the text form (round trips, the server's
 * canonical form, refusals with its details), value and overflow, merge
 * (its laws on random states, and which shard wins), the binary forms
 * (versions 1 and 2 written and read, version 3 at every layout's edges,
 * vectors of the server's send, refusals with the server's details).
 */
public class CounterStateTest {
    static final String A = Gen.POOL[3], B = Gen.POOL[4], C = Gen.POOL[2], D = Gen.POOL[6];
    static final String FOLDED = "{7fffffff-ffff-ffff-ffff-ffffffffffff:4:110, 80000000-0000-0000-0000-000000000000:6:103} folded {80000000-0000-0000-0000-000000000000>7fffffff-ffff-ffff-ffff-ffffffffffff:4:5:100:100}";

    static String refusal(Runnable r) {
        try {
            r.run();
        } catch (CounterStateException e) {
            return e.getDetail();
        }
        return "accepted";
    }

    // ---- text

    @Test
    public void canonicalText() {
        String[][] cases = {
            {"{}", "{}"}, {" { } ", "{}"}, {"tombstone", "tombstone"}, {" TombStone ", "tombstone"},
            {"{" + B + ":2:-5," + A.toUpperCase() + " : 1 : +7}", "{" + A + ":1:7, " + B + ":2:-5}"},
            {"\t{\n" + A + ":9223372036854775807:-9223372036854775808\r}\u000b", "{" + A + ":9223372036854775807:-9223372036854775808}"},
            {FOLDED, FOLDED},
            {FOLDED.replace("folded", " FOLDED ").replace(", ", ","), FOLDED},
        };
        for (String[] c : cases) {
            CounterState s = CounterState.parse(c[0]);
            assertEquals(c[0], c[1], s.toString());
            assertEquals(c[1], s.getValue());
            assertEquals("counter_crdt", s.getType());
            assertEquals(s, CounterState.parse(s.toString()));
        }
        CounterState s = CounterState.parse("{" + B + ":2:-5, " + A + ":1:7}");
        assertEquals(List.of(new Shard(A, 1, 7), new Shard(B, 2, -5)), s.shards());
        assertEquals(new Shard(B, 2, -5), s.shard(B.toUpperCase()).get());
        assertTrue(s.shard(C).isEmpty());
        assertThrows(UnsupportedOperationException.class, () -> s.shards().add(new Shard(C, 1, 1)));
    }

    @Test
    public void textRoundTripsOfRandomStates() {
        Random r = Gen.rng("text round trips");
        for (int i = 0; i < 2000; i++) {
            CounterState s = Gen.plain(r, 7);
            String text = s.toString();
            CounterState back = CounterState.parse(text);
            assertEquals(s, back);
            assertEquals(s.hashCode(), back.hashCode());
            assertEquals(text, back.toString());
            // the same shards, shuffled and upper-cased, give the same text
            List<String> parts = new ArrayList<>();
            for (Shard sh : s.shards()) {
                parts.add(" " + sh.id().toUpperCase() + " :" + sh.clock() + ": " + sh.value());
            }
            java.util.Collections.shuffle(parts, r);
            assertEquals(text, CounterState.parse("{" + String.join(" ,", parts) + " }").toString());
            try {
                CounterState f = CounterState.parse(Gen.folded(r));
                assertEquals(f, CounterState.parse(f.toString()));
                assertEquals(f, CounterState.fromBinary(f.toBinary()));
            } catch (CounterStateException e) {
                // the server refuses some of these too (ServerTest compares)
            }
        }
    }

    @Test
    public void textRefusalsWithTheServersDetails() {
        String[][] cases = {
            {"", "Expected \"{\" or \"tombstone\", found end of input."},
            {"{", "Expected a writer id, found end of input."},
            {"5", "Expected \"{\" or \"tombstone\", found \"5\" at position 1."},
            {"{}x", "Expected end of input, found \"x\" at position 3."},
            {"tomb", "Expected \"{\" or \"tombstone\", found \"tomb\" at position 1."},
            {"{" + A + ":0:5}", "Writer " + A + " has clock 0; clocks start at 1."},
            {"{" + A + ":1:5, " + A + ":2:5}", "Writer " + A + " appears more than once."},
            {"{" + A + ":1:99999999999999999999}", "The value \"99999999999999999999\" of writer " + A + " is out of range for type bigint."},
            {"{" + A + ":x:5}", "Expected the clock of writer " + A + " as a whole number, found \"x:5}\" at position 39."},
            {"{" + A + ":1:5 " + B + ":1:1}", "Expected \",\" or \"}\" after a shard, found \"" + B.substring(0, 16) + "...\" at position 43."},
            {"{0b6e7f3a2d44-4c8e-9a51-3f0d2c7b1e90:1:5}", "Invalid writer id \"0b6e7f3a2d44-4c8e-9a51-3f0d2c7b1e90\" at position 2: expected a uuid such as 7f0cab51-fb72-3e98-bdb4-0404a982865d."},
            {"{\u00e9}", "Expected a writer id, found byte 0xc3 at position 2."},
            {"tombstone folded {}", "A tombstone has no fold records, found \"folded\" at position 11."},
            {"{} folded {}", "Expected a fold record: a value without fold records has no \"folded\" part, found \"}\" at position 12."},
            {"{" + A + ":1:5} folded {" + B + ">" + A + ":2:1:1:1}", "Fold record " + B + ">" + A + " has tclock 2, newer than its target's shard (clock 1)."},
            {"{" + A + ":1:5} folded {" + B + ">" + C + ":1:1:1:1}", "The target of fold record " + B + ">" + C + " has no shard."},
            {"{" + A + ":1:5} folded {" + A + ">" + A + ":1:1:1:1}", "Fold record " + A + ">" + A + " names one writer as retired and target."},
            {"{" + A + ":2:5, " + B + ":1:1} folded {" + A + ">" + B + ":1:2:1:1}", "Retired writer " + A + " keeps its shard of clock 2, which its fold records have seen (aclock 2)."},
            {"{" + A + ":1:5} folded {" + B + ">" + A + ":1:0:1:1}", "Fold record " + B + ">" + A + " has aclock 0; clocks start at 1."},
            {"{" + A + ":1:5} folded {" + B + ">" + A + ":1:1:1:1, " + B + ">" + A + ":1:2:1:1}", "Fold record " + B + ">" + A + " appears more than once."},
            {"{" + A + ":1:5} folded {" + B + ">" + A + ":1:1:1}", "Expected \":\" after an avalue, found \"}\" at position 131."},
        };
        for (String[] c : cases) {
            assertEquals(c[0], c[1], refusal(() -> CounterState.parse(c[0])));
        }
    }

    @Test
    public void theDriversHook() throws SQLException {
        CounterState s = new CounterState();
        s.setType("counter_crdt");
        s.setValue(" {" + B + ":2:-5}");
        assertEquals("{" + B + ":2:-5}", s.getValue());
        assertEquals(CounterState.parse("{" + B + ":2:-5}"), s);
        // a value is not set again
        assertThrows(IllegalStateException.class, () -> s.setValue("{}"));
        assertThrows(IllegalStateException.class, () -> CounterState.empty().setValue("{}"));
        SQLException e = assertThrows(SQLException.class, () -> new CounterState().setValue("{x}"));
        assertEquals("22P02", e.getSQLState());
        CounterState n = new CounterState();
        n.setValue(null);
        assertNull(n.getValue());
        assertNull(n.total());
        assertNotEquals(n, CounterState.empty());
    }

    // ---- value

    @Test
    public void valueAndOverflow() {
        assertEquals(0, CounterState.empty().value());
        assertEquals(2, CounterState.parse("{" + A + ":1:7, " + B + ":2:-5}").value());
        CounterState max = CounterState.of(new Shard(A, 1, Long.MAX_VALUE), new Shard(B, 1, 0));
        assertEquals(Long.MAX_VALUE, max.value());
        CounterState over = CounterState.of(new Shard(A, 1, Long.MAX_VALUE), new Shard(B, 1, 1));
        assertThrows(ArithmeticException.class, over::value);
        assertEquals(BigInteger.valueOf(Long.MAX_VALUE).add(BigInteger.ONE), over.total());
        CounterState min = CounterState.of(new Shard(A, 1, Long.MIN_VALUE), new Shard(B, 1, 0));
        assertEquals(Long.MIN_VALUE, min.value());
        CounterState under = CounterState.of(new Shard(A, 1, Long.MIN_VALUE), new Shard(B, 1, -1));
        assertThrows(ArithmeticException.class, under::value);
        assertEquals(BigInteger.valueOf(Long.MIN_VALUE).subtract(BigInteger.ONE), under.total());
        // back in range: MAX + MAX + MIN + MIN = -2
        CounterState back = CounterState.of(new Shard(A, 1, Long.MAX_VALUE), new Shard(B, 1, Long.MAX_VALUE),
            new Shard(C, 1, Long.MIN_VALUE), new Shard(D, 1, Long.MIN_VALUE));
        assertEquals(-2, back.value());
        assertThrows(IllegalStateException.class, () -> CounterState.tombstone().value());
        assertNull(CounterState.tombstone().total());
        // fold records: the shards, less what targets absorbed, plus the
        // retired writer's last count where its shard is gone
        assertEquals(110 + 103 - 100, CounterState.parse(FOLDED).value());
        String gone = "{7fffffff-ffff-ffff-ffff-ffffffffffff:4:110} folded {80000000-0000-0000-0000-000000000000>7fffffff-ffff-ffff-ffff-ffffffffffff:4:5:100:100}";
        assertEquals(110 - 100 + 100, CounterState.parse(gone).value());
        String two = "{" + A + ":3:10, " + B + ":2:20} folded {" + C + ">" + A + ":3:4:30:12, " + C + ">" + B + ":2:6:35:20}";
        assertEquals(10 + 20 - 12 - 20 + 35, CounterState.parse(two).value());
        // of one retired writer's records, the highest aclock counts, then the highest avalue
        String tie = "{" + A + ":3:10, " + B + ":2:20} folded {" + C + ">" + A + ":3:4:35:12, " + C + ">" + B + ":2:4:30:20}";
        assertEquals(10 + 20 - 12 - 20 + 35, CounterState.parse(tie).value());
        String older = "{" + A + ":3:10, " + B + ":2:20} folded {" + C + ">" + A + ":3:6:30:12, " + C + ">" + B + ":2:4:35:20}";
        assertEquals(10 + 20 - 12 - 20 + 30, CounterState.parse(older).value());
    }

    // ---- merge

    @Test
    public void mergeLawsOnRandomStates() {
        Random r = Gen.rng("merge laws");
        for (int i = 0; i < 3000; i++) {
            CounterState a = Gen.plain(r, 5), b = Gen.plain(r, 5), c = Gen.plain(r, 5);
            if (i % 13 == 0) {
                b = CounterState.tombstone();
            }
            assertEquals(a.merge(b), b.merge(a));
            assertEquals(a.merge(b).merge(c), a.merge(b.merge(c)));
            assertEquals(a, a.merge(a));
            CounterState m = a.merge(b);
            assertEquals(m, m.merge(a));
            assertEquals(m, m.merge(b));
            if (m.isTombstone()) {
                continue;
            }
            // per writer the higher clock, then the higher value
            for (Shard sh : m.shards()) {
                Shard x = a.shard(sh.id()).orElse(null), y = b.shard(sh.id()).orElse(null);
                Shard want = x == null ? y : y == null ? x
                    : x.clock() != y.clock() ? (x.clock() > y.clock() ? x : y) : (x.value() >= y.value() ? x : y);
                assertEquals(want, sh);
            }
            assertEquals(m.shards().size(), a.shards().stream().map(Shard::id).filter(id -> true)
                .collect(java.util.stream.Collectors.toSet()).size()
                + (int) b.shards().stream().filter(sh -> a.shard(sh.id()).isEmpty()).count());
        }
    }

    @Test
    public void mergeWinners() {
        CounterState a = CounterState.of(new Shard(A, 2, 5), new Shard(B, 7, 1));
        CounterState b = CounterState.of(new Shard(A, 3, 1), new Shard(B, 7, 4), new Shard(C, 1, -9));
        CounterState want = CounterState.of(new Shard(A, 3, 1), new Shard(B, 7, 4), new Shard(C, 1, -9));
        assertEquals(want, a.merge(b));
        assertEquals(want, b.merge(a));
        assertEquals(-4, a.merge(b).value());
        // a higher clock wins over a higher value
        assertEquals(CounterState.of(new Shard(A, 9, -100)), CounterState.of(new Shard(A, 1, 100)).merge(CounterState.of(new Shard(A, 9, -100))));
        assertEquals(CounterState.of(new Shard(A, 9, -100)), CounterState.of(new Shard(A, 9, -100)).merge(CounterState.of(new Shard(A, 1, 100))));
        // the tombstone wins, both ways, over any state
        CounterState folded = CounterState.parse(FOLDED);
        for (CounterState s : List.of(a, CounterState.empty(), folded)) {
            assertTrue(s.merge(CounterState.tombstone()).isTombstone());
            assertTrue(CounterState.tombstone().merge(s).isTombstone());
        }
        assertSame(a, a.merge(null));
        assertThrows(UnsupportedOperationException.class, () -> folded.merge(CounterState.empty()));
        assertThrows(UnsupportedOperationException.class, () -> CounterState.empty().merge(folded));
        // equality is by state
        assertEquals(CounterState.parse("{" + A.toUpperCase() + ":2:5, " + B + ":7:1}"), a);
        assertNotEquals(CounterState.of(new Shard(A, 2, 5)), CounterState.of(new Shard(A, 2, 6)));
        assertNotEquals(CounterState.of(new Shard(A, 2, 5)), CounterState.of(new Shard(A, 3, 5)));
        assertNotEquals(CounterState.empty(), CounterState.tombstone());
        assertNotEquals(folded, CounterState.parse("{7fffffff-ffff-ffff-ffff-ffffffffffff:4:110, 80000000-0000-0000-0000-000000000000:6:103}"));
    }

    // ---- binary, versions 1 and 2

    @Test
    public void binaryVersionsOneAndTwo() {
        // the bytes of a known state, big-endian
        CounterState s = CounterState.of(new Shard(A, 258, -2));
        assertEquals("0100" + "00000001" + A.replace("-", "") + "0000000000000102" + "fffffffffffffffe", Gen.hex(s.toBinary()));
        assertEquals("010000000000", Gen.hex(CounterState.empty().toBinary()));
        assertEquals("010100000000", Gen.hex(CounterState.tombstone().toBinary()));
        assertTrue(CounterState.fromBinary(Gen.hex("010100000000")).isTombstone());
        assertFalse(CounterState.fromBinary(Gen.hex("010000000000")).isTombstone());
        CounterState f = CounterState.parse(FOLDED);
        byte[] fb = f.toBinary();
        assertEquals(2, fb[0]);
        assertEquals(6 + 2 * 32 + 4 + 64, fb.length);
        assertEquals("00000001", Gen.hex(Arrays.copyOfRange(fb, 70, 74)));
        assertEquals("80000000000000000000000000000000" + "7fffffffffffffffffffffffffffffff"
            + "0000000000000004" + "0000000000000005" + "0000000000000064" + "0000000000000064", Gen.hex(Arrays.copyOfRange(fb, 74, 138)));
        assertEquals(f, CounterState.fromBinary(fb));
        Random r = Gen.rng("binary round trips");
        for (int i = 0; i < 2000; i++) {
            CounterState p = Gen.plain(r, 7);
            assertEquals(p, CounterState.fromBinary(p.toBinary()));
        }
    }

    @Test
    public void binaryRefusalsOfVersionsOneAndTwo() {
        String ia = A.replace("-", ""), ib = B.replace("-", "");
        String[][] cases = {
            {"01000000", "The value is 4 bytes long; the header alone takes 6."},
            {"01", "The value is 1 byte long; the header alone takes 6."},
            {"010200000000", "Unknown flag bits 0x02 are set."},
            {"01fe00000000", "Unknown flag bits 0xfe are set."},
            {"010000000001", "The header announces 1 shard but 0 bytes of shard data follow."},
            {"010000000000" + ia + "0000000000000001" + "0000000000000005", "The header announces 0 shards but 32 bytes of shard data follow."},
            {"010000000001" + ia + "00000000000000010000000000000005" + "00", "The header announces 1 shard but 33 bytes of shard data follow."},
            {"010100000001" + ia + "00000000000000010000000000000005", "A tombstone has no shards, but 1 is present."},
            {"010000000002" + ib + "00000000000000010000000000000005" + ia + "00000000000000010000000000000005", "Writer " + ia.substring(0, 8) + A.substring(8) + " is out of ascending order."},
            {"010000000001" + ia + "00000000000000000000000000000005", "Writer " + A + " has clock 0; clocks start at 1."},
            {"010000000001" + ia + "80000000000000000000000000000005", "Writer " + A + " has clock -9223372036854775808; clocks start at 1."},
            {"020100000000", "A tombstone has no fold records, but format version 2 is for values with them."},
            {"020000000000", "The header announces 0 shards but the value ends before its fold record count (0 bytes after the header)."},
            {"02000000000000000000", "The fold record count is 0; format version 2 is for values with fold records."},
            {"02000000000000000001", "The value announces 1 fold record but 0 bytes of record data follow."},
            {"000000000000", "Format version 0 is not supported; this build reads versions 1, 2 and 3."},
        };
        for (String[] c : cases) {
            assertEquals(c[0], c[1], refusal(() -> CounterState.fromBinary(Gen.hex(c[0]))));
        }
        // fold records out of order and twice, from the bytes of a good value
        String two = "{" + A + ":3:10, " + B + ":2:20} folded {" + C + ">" + A + ":3:4:30:12, " + C + ">" + B + ":2:6:35:20}";
        byte[] good = CounterState.parse(two).toBinary();
        int at = 6 + 64 + 4;
        byte[] swapped = good.clone();
        System.arraycopy(good, at + 64, swapped, at, 64);
        System.arraycopy(good, at, swapped, at + 64, 64);
        assertEquals("Fold record " + C + ">" + A + " is out of ascending (retired, target) order.", refusal(() -> CounterState.fromBinary(swapped)));
        byte[] twice = good.clone();
        System.arraycopy(good, at, twice, at + 64, 64);
        assertEquals("Fold record " + C + ">" + A + " appears more than once.", refusal(() -> CounterState.fromBinary(twice)));
    }

    // ---- binary, the compact version 3

    static final long[] CLOCK_LO = {1L << 32, 1, 256, 65536};
    static final long[] CLOCK_HI = {Long.MAX_VALUE, 255, 65535, (1L << 32) - 1};
    static final long[] VAL_MIN = {Long.MIN_VALUE, -128, -32768, Integer.MIN_VALUE};
    static final long[] VAL_MAX = {Long.MAX_VALUE, 127, 32767, Integer.MAX_VALUE};
    static final long[][] VAL_PAST = {{(long) Integer.MIN_VALUE - 1, 1L << 31}, {-1, 0}, {-129, 128}, {-32769, 32768}};
    static final String[] IDS = {"0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90", "7f0cab51-fb72-3e98-bdb4-0404a982865d",
        "80000000-0000-0000-0000-000000000000", "c0ffee00-1234-4abc-8def-0123456789ab"};

    /** A value of clock width code cc and value width code vc at the edges of both. */
    static Shard[] layoutShards(int cc, int vc) {
        return new Shard[] {
            new Shard(IDS[0], CLOCK_LO[cc], VAL_MIN[vc]), new Shard(IDS[1], CLOCK_HI[cc], VAL_MAX[vc]),
            new Shard(IDS[2], 1, VAL_PAST[vc][0]), new Shard(IDS[3], CLOCK_HI[cc] / 2, VAL_PAST[vc][1]),
        };
    }

    @Test
    public void compactEveryLayoutAtItsEdges() {
        int n = 0;
        for (int cc = 0; cc < 4; cc++) {
            for (int vc = 0; vc < 4; vc++) {
                int lay = cc | vc << 2;
                Shard[] shards = layoutShards(cc, vc);
                CounterState want = CounterState.of(shards);
                byte[] b = Gen.compact(lay, shards);
                assertEquals(2 + 4 * (16 + Gen.WIDTH[cc] + Gen.WIDTH[vc]), b.length);
                assertEquals(String.format("layout 0x%02x", lay), want, CounterState.fromBinary(b));
                byte[] v1 = CounterState.fromBinary(b).toBinary();
                assertEquals(1, v1[0]);
                assertEquals(6 + 4 * 32, v1.length);
                // any layout wide enough reads alike
                for (int wide = 0; wide < 16; wide++) {
                    if (Gen.WIDTH[wide & 3] < Gen.WIDTH[cc] || Gen.WIDTH[wide >> 2] < Gen.WIDTH[vc]) {
                        continue;
                    }
                    assertEquals(CounterState.of(shards[0]), CounterState.fromBinary(Gen.compact(wide, shards[0])));
                    n++;
                }
            }
        }
        assertEquals(100, n);
    }

    @Test
    public void compactServerVectors() {
        String[][] cases = {
            {"0305", "{}"},
            {"03090b6e7f3a2d444c8e9a513f0d2c7b1e90ffff7f", "{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:255:-129}"},
            {"03050b6e7f3a2d444c8e9a513f0d2c7b1e9001807f0cab51fb723e98bdb40404a982865dff7f",
                "{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:1:-128, 7f0cab51-fb72-3e98-bdb4-0404a982865d:255:127}"},
            {"03040b6e7f3a2d444c8e9a513f0d2c7b1e90000000010000000080", "{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:4294967296:-128}"},
            {"03030b6e7f3a2d444c8e9a513f0d2c7b1e90000100008000000000000000", "{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:65536:-9223372036854775808}"},
            {"030e0b6e7f3a2d444c8e9a513f0d2c7b1e9001007fffffff", "{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:256:2147483647}"},
            {"030c0b6e7f3a2d444c8e9a513f0d2c7b1e907fffffffffffffff80000000", "{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:9223372036854775807:-2147483648}"},
        };
        for (String[] c : cases) {
            byte[] b = Gen.hex(c[0]);
            assertEquals(c[0], c[1], CounterState.fromBinary(b).toString());
            assertArrayEquals(b, Gen.compact(b[1], CounterState.parse(c[1]).shards().toArray(new Shard[0])));
        }
    }

    @Test
    public void compactRefusalsWithTheServersDetails() {
        String a = IDS[0], b = IDS[1];
        List<Object[]> cases = new ArrayList<>(List.of(
            new Object[] {new byte[0], "The value is 0 bytes long; the header alone takes 6."},
            new Object[] {new byte[] {3}, "The value is 1 byte long; the header of format version 3 takes 2."},
            new Object[] {new byte[] {4}, "The value is 1 byte long; the header alone takes 6."},
            new Object[] {new byte[] {3, 5, 0, 0}, "2 bytes of shard data are not a whole number of 18-byte records (layout 0x05)."},
            new Object[] {new byte[] {3, (byte) 0xff}, "Unknown layout bits 0xf0 are set."},
            new Object[] {new byte[] {4, 0, 0, 0, 0, 0}, "Format version 4 is not supported; this build reads versions 1, 2 and 3."},
            new Object[] {new byte[] {(byte) 255, 1, 0, 0, 0, 0}, "Format version 255 is not supported; this build reads versions 1, 2 and 3."},
            new Object[] {Gen.compact(5, new Shard(b, 1, 5), new Shard(a, 1, 5)), "Writer " + a + " is out of ascending order."},
            new Object[] {Gen.compact(5, new Shard(a, 1, 5), new Shard(a, 2, 5)), "Writer " + a + " appears more than once."},
            new Object[] {Gen.compact(5, new Shard(a, 0, 5)), "Writer " + a + " has clock 0; clocks start at 1."},
            new Object[] {Gen.compact(6, new Shard(a, 0, 5)), "Writer " + a + " has clock 0; clocks start at 1."},
            new Object[] {Gen.compact(7, new Shard(a, 0, 5)), "Writer " + a + " has clock 0; clocks start at 1."},
            new Object[] {Gen.compact(4, new Shard(a, 0, 5)), "Writer " + a + " has clock 0; clocks start at 1."},
            new Object[] {Gen.compact(5, new Shard(a, 1, 5), new Shard(b, 0, 5)), "Writer " + b + " has clock 0; clocks start at 1."},
            new Object[] {Gen.compact(4, new Shard(a, Long.MIN_VALUE, 5)), "Writer " + a + " has clock -9223372036854775808; clocks start at 1."},
            new Object[] {Gen.compact(4, new Shard(a, -1, 5)), "Writer " + a + " has clock -1; clocks start at 1."}));
        byte[] one = Gen.compact(5, new Shard(a, 1, 5));
        cases.add(new Object[] {Arrays.copyOf(one, 21), "19 bytes of shard data are not a whole number of 18-byte records (layout 0x05)."});
        cases.add(new Object[] {Arrays.copyOf(one, 19), "17 bytes of shard data are not a whole number of 18-byte records (layout 0x05)."});
        byte[] two = Gen.compact(5, new Shard(a, 1, 5), new Shard(b, 2, -5));
        two[1] = 6;
        cases.add(new Object[] {two, "36 bytes of shard data are not a whole number of 19-byte records (layout 0x06)."});
        for (int bit = 4; bit < 8; bit++) {
            byte[] x = one.clone();
            x[1] = (byte) (1 << bit | 5);
            cases.add(new Object[] {x, String.format("Unknown layout bits 0x%02x are set.", 1 << bit)});
        }
        int[] sizes = {32, 25, 26, 28, 25, 18, 19, 21, 26, 19, 20, 22, 28, 21, 22, 24};
        for (int lay = 0; lay < 16; lay++) {
            assertEquals(16 + Gen.WIDTH[lay & 3] + Gen.WIDTH[lay >> 2], sizes[lay]);
            for (int body : new int[] {1, sizes[lay] - 1, sizes[lay] + 1, 2 * sizes[lay] - 1}) {
                byte[] x = new byte[2 + body];
                x[0] = 3;
                x[1] = (byte) lay;
                cases.add(new Object[] {x, String.format("%d byte%s of shard data %s not a whole number of %d-byte records (layout 0x%02x).",
                    body, body == 1 ? "" : "s", body == 1 ? "is" : "are", sizes[lay], lay)});
            }
        }
        for (Object[] c : cases) {
            byte[] x = (byte[]) c[0];
            assertEquals(Gen.hex(x), c[1], refusal(() -> CounterState.fromBinary(x)));
        }
    }

    @Test
    public void compactSignExtension() {
        // the top bit of a narrow value is its sign, of a narrow clock not
        for (int vc = 1; vc < 4; vc++) {
            int w = Gen.WIDTH[vc];
            byte[] x = Gen.compact(1 | vc << 2, new Shard(A, 200, 0));
            Arrays.fill(x, x.length - w, x.length, (byte) 0xff);
            assertEquals(new Shard(A, 200, -1), CounterState.fromBinary(x).shards().get(0));
            x[x.length - w] = (byte) 0x80;
            Arrays.fill(x, x.length - w + 1, x.length, (byte) 0);
            assertEquals(-(1L << (8 * w - 1)), CounterState.fromBinary(x).shards().get(0).value());
        }
        for (int cc = 1; cc < 4; cc++) {
            int w = Gen.WIDTH[cc];
            byte[] x = Gen.compact(cc | 1 << 2, new Shard(A, 1, 0));
            Arrays.fill(x, 18, 18 + w, (byte) 0xff);
            assertEquals((1L << (8 * w)) - 1, CounterState.fromBinary(x).shards().get(0).clock());
        }
    }

    @Test
    public void ofChecksAsTheServer() {
        assertEquals("Writer " + A + " appears more than once.", refusal(() -> CounterState.of(new Shard(A, 1, 1), new Shard(A.toUpperCase(), 2, 2))));
        assertEquals("Writer " + A + " has clock 0; clocks start at 1.", refusal(() -> CounterState.of(new Shard(A, 0, 1))));
        assertEquals("Invalid writer id \"x\": expected a uuid such as 7f0cab51-fb72-3e98-bdb4-0404a982865d.", refusal(() -> CounterState.of(new Shard("x", 1, 1))));
        assertEquals("Invalid writer id in fold record x>" + A + ".", refusal(() -> CounterState.of(List.of(new Shard(A, 1, 1)), List.of(new Fold("x", A, 1, 1, 1, 1)))));
        assertEquals(CounterState.parse(FOLDED), CounterState.of(CounterState.parse(FOLDED).shards(), CounterState.parse(FOLDED).folds()));
        try {
            CounterState.parse("{" + A + ":1:1}").shards().clear();
            fail("shards() is modifiable");
        } catch (UnsupportedOperationException e) {
            // a value
        }
    }
}
