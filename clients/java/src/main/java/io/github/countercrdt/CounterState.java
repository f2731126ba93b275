package io.github.countercrdt;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.sql.SQLDataException;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

import org.postgresql.util.PGobject;

/**
 * The value of a counter_crdt column: shards in ascending id order (and fold
 * records where writers were retired), or a tombstone. Parsed and printed in
 * the text form, and read from the binary forms (versions 1, 2 and 3),
 * exactly as the server does (doc/contract.md sections 4 and 5).
 *
 * <p>A state is a value: {@link #merge}, {@link #parse} and
 * {@link #fromBinary} make new states, equality is by state. As a
 * {@link PGobject} it is registered for the type "counter_crdt"
 * ({@link Counters#register}), so that {@code rs.getObject("views")} returns
 * a CounterState and {@code ps.setObject(i, state)} sends one; the driver
 * fills a new instance once through {@link #setValue}, and a state that
 * holds a value refuses to be set again.
 */
public final class CounterState extends PGobject {
    private static final long serialVersionUID = 1L;

    /** The type's name, as registered with the driver. */
    public static final String TYPE = "counter_crdt";

    private static final String FOLDED = "states with fold records are merged by the server: SELECT counter_crdt_merge(a, b)";
    private static final String OUT_OF_RANGE = "the total of the counter leaves the bigint range";

    /** One writer's part of a counter: its id (a lower-case uuid), the number of its increments and their sum. */
    public record Shard(String id, long clock, long value) {
        @Override
        public String toString() {
            return id + ":" + clock + ":" + value;
        }
    }

    /** A fold record: writer target holds absorbed of retired writer retired's count (doc/retiring-writers.md). */
    public record Fold(String retired, String target, long tclock, long aclock, long avalue, long absorbed) {
        @Override
        public String toString() {
            return retired + ">" + target + ":" + tclock + ":" + aclock + ":" + avalue + ":" + absorbed;
        }
    }

    private static final Comparator<Shard> BY_ID = Comparator.comparing(Shard::id);
    private static final Comparator<Fold> BY_PAIR = Comparator.comparing(Fold::retired).thenComparing(Fold::target);

    private List<Shard> shards = List.of();
    private List<Fold> folds = List.of();
    private boolean tombstone;
    private boolean filled;

    /** For the driver, which fills it through setValue; use {@link #parse} or {@link #of}. */
    public CounterState() {
        this.type = TYPE;
    }

    private CounterState(List<Shard> shards, List<Fold> folds, boolean tombstone) {
        this.type = TYPE;
        this.shards = List.copyOf(shards);
        this.folds = List.copyOf(folds);
        this.tombstone = tombstone;
        this.filled = true;
        this.value = print();
    }

    /** The empty live counter, {}. */
    public static CounterState empty() {
        return new CounterState(List.of(), List.of(), false);
    }

    /** The state of a deleted counter. */
    public static CounterState tombstone() {
        return new CounterState(List.of(), List.of(), true);
    }

    /** A live state of shards and fold records in any order, checked as the server checks a value. */
    public static CounterState of(List<Shard> shards, List<Fold> folds) {
        List<Shard> s = new ArrayList<>();
        for (Shard sh : shards) {
            String id = normalizeId(sh.id());
            if (id == null) {
                throw fail("Invalid writer id \"%s\": expected a uuid such as 7f0cab51-fb72-3e98-bdb4-0404a982865d.", sh.id());
            }
            s.add(new Shard(id, sh.clock(), sh.value()));
        }
        List<Fold> f = new ArrayList<>();
        for (Fold fo : folds) {
            String r = normalizeId(fo.retired()), t = normalizeId(fo.target());
            if (r == null || t == null) {
                throw fail("Invalid writer id in fold record %s>%s.", fo.retired(), fo.target());
            }
            f.add(new Fold(r, t, fo.tclock(), fo.aclock(), fo.avalue(), fo.absorbed()));
        }
        return checked(s, f, false);
    }

    /** A live state of shards in any order. */
    public static CounterState of(Shard... shards) {
        return of(Arrays.asList(shards), List.of());
    }

    private static CounterState checked(List<Shard> shards, List<Fold> folds, boolean tombstone) {
        shards.sort(BY_ID);
        folds.sort(BY_PAIR);
        checkCanonical(shards);
        checkFolds(shards, folds, tombstone);
        return new CounterState(shards, folds, tombstone);
    }

    // ---- the driver's side

    /**
     * The driver's hook: fills a new instance from the server's text. A state
     * is a value, so a state that holds one is not set again.
     *
     * @throws SQLDataException with SQLSTATE 22P02 where the server would refuse the text
     */
    @Override
    public void setValue(String text) throws SQLException {
        if (filled) {
            throw new IllegalStateException("counter_crdt: a CounterState is a value and is not set again; parse a new one");
        }
        if (text == null) {
            super.setValue(null);
            return;
        }
        CounterState p;
        try {
            p = parse(text);
        } catch (CounterStateException e) {
            throw new SQLDataException(e.getMessage(), "22P02", e);
        }
        shards = p.shards;
        folds = p.folds;
        tombstone = p.tombstone;
        filled = true;
        value = p.value;
    }

    /** The canonical text form, as the server prints it. */
    @Override
    public String getValue() {
        return value;
    }

    @Override
    public String toString() {
        return value == null ? "NULL" : value;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof CounterState other)) {
            return false;
        }
        return tombstone == other.tombstone && filled == other.filled && shards.equals(other.shards) && folds.equals(other.folds);
    }

    @Override
    public int hashCode() {
        return (shards.hashCode() * 31 + folds.hashCode()) * 31 + (tombstone ? 1 : 0);
    }

    @Override
    public CounterState clone() throws CloneNotSupportedException {
        return (CounterState) super.clone();
    }

    // ---- reading a state

    /** Tells a deleted counter. */
    public boolean isTombstone() {
        return tombstone;
    }

    /** The shards, ascending by id (unmodifiable). */
    public List<Shard> shards() {
        return shards;
    }

    /** The fold records, ascending by (retired, target) (unmodifiable). */
    public List<Fold> folds() {
        return folds;
    }

    /** Writer id's shard (any letter case). */
    public Optional<Shard> shard(String id) {
        String n = normalizeId(id);
        if (n == null) {
            return Optional.empty();
        }
        int i = Collections.binarySearch(shards, new Shard(n, 0, 0), BY_ID);
        return i >= 0 ? Optional.of(shards.get(i)) : Optional.empty();
    }

    /**
     * The counter's value as c::numeric would read it, whatever its size:
     * the sum of the shards, with the fold records' corrections; null for a
     * tombstone (the server's NULL).
     */
    public BigInteger total() {
        if (tombstone || !filled) {
            return null;
        }
        BigInteger total = BigInteger.ZERO;
        for (Shard sh : shards) {
            total = total.add(BigInteger.valueOf(sh.value()));
        }
        for (int i = 0, j; i < folds.size(); i = j) {
            j = groupEnd(folds, i);
            for (Fold f : folds.subList(i, j)) {
                total = total.subtract(BigInteger.valueOf(f.absorbed()));
            }
            if (shard(folds.get(i).retired()).isEmpty()) {
                total = total.add(BigInteger.valueOf(latest(folds, i, j).avalue()));
            }
        }
        return total;
    }

    /**
     * The counter's value, as c::bigint reads it.
     *
     * @throws IllegalStateException for a tombstone, whose value is the server's NULL
     * @throws ArithmeticException where the total leaves the bigint range (the server's 22003); {@link #total} has it
     */
    public long value() {
        BigInteger t = total();
        if (t == null) {
            throw new IllegalStateException("counter_crdt: a tombstone has no value (c::bigint is NULL)");
        }
        if (t.bitLength() > 63) {
            throw new ArithmeticException("counter_crdt: " + OUT_OF_RANGE);
        }
        return t.longValue();
    }

    /**
     * The replicas' merge (contract 1): a tombstone absorbs everything, else
     * per writer the shard of the higher clock, then of the higher value.
     *
     * @throws UnsupportedOperationException for states with fold records, which the server merges
     */
    public CounterState merge(CounterState o) {
        if (o == null) {
            return this;
        }
        if (tombstone) {
            return this;
        }
        if (o.tombstone) {
            return o;
        }
        if (!folds.isEmpty() || !o.folds.isEmpty()) {
            throw new UnsupportedOperationException("counter_crdt: " + FOLDED);
        }
        List<Shard> out = new ArrayList<>(shards.size() + o.shards.size());
        int i = 0, j = 0;
        while (i < shards.size() || j < o.shards.size()) {
            int c = i == shards.size() ? 1 : j == o.shards.size() ? -1 : shards.get(i).id().compareTo(o.shards.get(j).id());
            if (c < 0) {
                out.add(shards.get(i++));
            } else if (c > 0) {
                out.add(o.shards.get(j++));
            } else {
                Shard a = shards.get(i++), b = o.shards.get(j++);
                out.add(b.clock() > a.clock() || (b.clock() == a.clock() && b.value() > a.value()) ? b : a);
            }
        }
        return new CounterState(out, List.of(), false);
    }

    // ---- the text form

    /** The canonical text form of a state. */
    private String print() {
        if (tombstone) {
            return "tombstone";
        }
        StringBuilder b = new StringBuilder("{");
        for (int i = 0; i < shards.size(); i++) {
            b.append(i > 0 ? ", " : "").append(shards.get(i));
        }
        b.append('}');
        if (!folds.isEmpty()) {
            b.append(" folded {");
            for (int i = 0; i < folds.size(); i++) {
                b.append(i > 0 ? ", " : "").append(folds.get(i));
            }
            b.append('}');
        }
        return b.toString();
    }

    /**
     * Reads the text form as the server's input function does (contract 4):
     * white space around every token, ids in any letter case and any order.
     *
     * @throws CounterStateException with the server's detail where the server refuses the text (22P02)
     */
    public static CounterState parse(String text) {
        return new TextParser(text).parse();
    }

    // ---- the binary forms

    /**
     * The binary form (the server's send, src/core/cc_wire.h): version 1
     * without fold records, version 2 with them; big-endian. It does not
     * write the compact version 3, which servers before 1.12 cannot read.
     */
    public byte[] toBinary() {
        int version = folds.isEmpty() ? 1 : 2;
        ByteBuffer b = ByteBuffer.allocate(6 + 32 * shards.size() + (folds.isEmpty() ? 0 : 4 + 64 * folds.size()));
        b.put((byte) version).put((byte) (tombstone ? 1 : 0)).putInt(shards.size());
        for (Shard sh : shards) {
            putId(b, sh.id());
            b.putLong(sh.clock()).putLong(sh.value());
        }
        if (!folds.isEmpty()) {
            b.putInt(folds.size());
            for (Fold f : folds) {
                putId(b, f.retired());
                putId(b, f.target());
                b.putLong(f.tclock()).putLong(f.aclock()).putLong(f.avalue()).putLong(f.absorbed());
            }
        }
        return b.array();
    }

    /**
     * Reads the binary form, checked as the server's recv checks it:
     * versions 1 and 2, and the compact version 3 (since 1.12, sent when
     * counter_crdt.binary_format is 'compact').
     *
     * @throws CounterStateException with the server's detail where the server refuses the bytes (22P03)
     */
    public static CounterState fromBinary(byte[] b) {
        long n = b.length;
        if (n >= 1 && b[0] == 3) {
            return fromCompact(b);
        }
        if (n < 6) {
            throw fail("The value is %d byte%s long; the header alone takes 6.", n, plural(n, "", "s"));
        }
        int version = b[0] & 0xff, flags = b[1] & 0xff;
        if (version != 1 && version != 2) {
            throw fail("Format version %d is not supported; this build reads versions 1, 2 and 3.", version);
        }
        if ((flags & ~1) != 0) {
            throw fail("Unknown flag bits 0x%02x are set.", flags & ~1);
        }
        boolean tomb = (flags & 1) == 1;
        ByteBuffer buf = ByteBuffer.wrap(b);
        long count = Integer.toUnsignedLong(buf.getInt(2));
        long body = n - 6;
        long nf = 0;
        if (version == 1) {
            if (body % 32 != 0 || body / 32 != count) {
                throw fail("The header announces %d shard%s but %d byte%s of shard data follow%s.", count, plural(count, "", "s"), body, plural(body, "", "s"), plural(body, "s", ""));
            }
            if (tomb && count != 0) {
                throw fail("A tombstone has no shards, but %d %s present.", count, plural(count, "is", "are"));
            }
        } else {
            if (tomb) {
                throw fail("A tombstone has no fold records, but format version 2 is for values with them.");
            }
            if (body / 32 < count || body - count * 32 < 4) {
                throw fail("The header announces %d shard%s but the value ends before its fold record count (%d byte%s after the header).", count, plural(count, "", "s"), body, plural(body, "", "s"));
            }
            long rest = body - count * 32 - 4;
            nf = Integer.toUnsignedLong(buf.getInt((int) (6 + count * 32)));
            if (nf == 0) {
                throw fail("The fold record count is 0; format version 2 is for values with fold records.");
            }
            if (rest % 64 != 0 || rest / 64 != nf) {
                throw fail("The value announces %d fold record%s but %d byte%s of record data follow%s.", nf, plural(nf, "", "s"), rest, plural(rest, "", "s"), plural(rest, "s", ""));
            }
        }
        List<Shard> shards = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            int p = 6 + i * 32;
            shards.add(new Shard(formatId(b, p), buf.getLong(p + 16), buf.getLong(p + 24)));
        }
        checkCanonical(shards);
        List<Fold> folds = new ArrayList<>();
        int at = (int) (6 + count * 32 + 4);
        for (int i = 0; i < nf; i++) {
            int p = at + i * 64;
            folds.add(new Fold(formatId(b, p), formatId(b, p + 16), buf.getLong(p + 32), buf.getLong(p + 40), buf.getLong(p + 48), buf.getLong(p + 56)));
        }
        for (int i = 1; i < folds.size(); i++) {
            int c = BY_PAIR.compare(folds.get(i - 1), folds.get(i));
            if (c >= 0) {
                Fold f = folds.get(i);
                throw fail("Fold record %s>%s %s.", f.retired(), f.target(), c == 0 ? "appears more than once" : "is out of ascending (retired, target) order");
            }
        }
        checkFolds(shards, folds, tomb);
        return new CounterState(shards, folds, tomb);
    }

    /** The widths in bytes of the compact form's width codes (cc_stored.h). */
    private static final int[] WIDTHS = {8, 1, 2, 4};

    /**
     * Version 3 (cc_decode_header_compact and cc_decode_shards): byte 1 the
     * layout (clock width code in bits 0-1, value width code in bits 2-3),
     * then whole records of id, clock (unsigned) and value (two's
     * complement, sign-extended), without a count.
     */
    private static CounterState fromCompact(byte[] b) {
        long n = b.length;
        if (n < 2) {
            throw fail("The value is %d byte%s long; the header of format version 3 takes 2.", n, plural(n, "", "s"));
        }
        int lay = b[1] & 0xff;
        if ((lay & ~0x0f) != 0) {
            throw fail("Unknown layout bits 0x%02x are set.", lay & ~0x0f);
        }
        int cw = WIDTHS[lay & 3], vw = WIDTHS[(lay >> 2) & 3];
        int size = 16 + cw + vw;
        long body = n - 2;
        if (body % size != 0) {
            throw fail("%d byte%s of shard data %s not a whole number of %d-byte records (layout 0x%02x).",
                    body, plural(body, "", "s"), plural(body, "is", "are"), size, lay);
        }
        List<Shard> shards = new ArrayList<>();
        for (int p = 2; p < n; p += size) {
            long clock = beUint(b, p + 16, cw);
            long value = beUint(b, p + 16 + cw, vw);
            int bits = 8 * vw;
            if (bits < 64) {
                value = value << (64 - bits) >> (64 - bits);
            }
            shards.add(new Shard(formatId(b, p), clock, value));
        }
        checkCanonical(shards);
        return new CounterState(shards, List.of(), false);
    }

    /** The unsigned big-endian number of b[p..p+w). */
    private static long beUint(byte[] b, int p, int w) {
        long u = 0;
        for (int i = 0; i < w; i++) {
            u = u << 8 | (b[p + i] & 0xff);
        }
        return u;
    }

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private static String formatId(byte[] b, int p) {
        StringBuilder s = new StringBuilder(36);
        for (int i = 0; i < 16; i++) {
            if (i == 4 || i == 6 || i == 8 || i == 10) {
                s.append('-');
            }
            s.append(HEX[(b[p + i] >> 4) & 15]).append(HEX[b[p + i] & 15]);
        }
        return s.toString();
    }

    private static void putId(ByteBuffer b, String id) {
        String h = id.replace("-", "");
        for (int i = 0; i < 32; i += 2) {
            b.put((byte) Integer.parseInt(h.substring(i, i + 2), 16));
        }
    }

    // ---- the server's checks

    static CounterStateException fail(String format, Object... args) {
        return new CounterStateException(String.format(Locale.ROOT, format, args));
    }

    static String plural(long n, String one, String many) {
        return n == 1 ? one : many;
    }

    /** Clocks at least 1 and ids strictly ascending (cc_check_canonical). */
    private static void checkCanonical(List<Shard> shards) {
        for (int i = 0; i < shards.size(); i++) {
            Shard sh = shards.get(i);
            if (sh.clock() < 1) {
                throw fail("Writer %s has clock %d; clocks start at 1.", sh.id(), sh.clock());
            }
            if (i > 0) {
                int c = shards.get(i - 1).id().compareTo(sh.id());
                if (c == 0) {
                    throw fail("Writer %s appears more than once.", sh.id());
                }
                if (c > 0) {
                    throw fail("Writer %s is out of ascending order.", sh.id());
                }
            }
        }
    }

    private static Shard find(List<Shard> shards, String id) {
        int i = Collections.binarySearch(shards, new Shard(id, 0, 0), BY_ID);
        return i >= 0 ? shards.get(i) : null;
    }

    /** The fold records (sorted) against each other and the shards (cc_fold_check). */
    private static void checkFolds(List<Shard> shards, List<Fold> folds, boolean tombstone) {
        if (tombstone && (!shards.isEmpty() || !folds.isEmpty())) {
            throw fail("A tombstone has no shards or fold records.");
        }
        Set<String> retired = new HashSet<>();
        for (int i = 0; i < folds.size(); i++) {
            Fold f = folds.get(i);
            String name = f.retired() + ">" + f.target();
            if (f.retired().equals(f.target())) {
                throw fail("Fold record %s names one writer as retired and target.", name);
            }
            if (f.tclock() < 1) {
                throw fail("Fold record %s has tclock %d; clocks start at 1.", name, f.tclock());
            }
            if (f.aclock() < 1) {
                throw fail("Fold record %s has aclock %d; clocks start at 1.", name, f.aclock());
            }
            if (i > 0 && BY_PAIR.compare(folds.get(i - 1), f) == 0) {
                throw fail("Fold record %s appears more than once.", name);
            }
            retired.add(f.retired());
        }
        for (int i = 0, j; i < folds.size(); i = j) {
            j = groupEnd(folds, i);
            long aclock = latest(folds, i, j).aclock();
            String a = folds.get(i).retired();
            Shard sh = find(shards, a);
            if (sh != null && sh.clock() <= aclock) {
                throw fail("Retired writer %s keeps its shard of clock %d, which its fold records have seen (aclock %d).", a, sh.clock(), aclock);
            }
            for (int k = i; k < j; k++) {
                Fold f = folds.get(k);
                if (retired.contains(f.target())) {
                    continue;
                }
                Shard t = find(shards, f.target());
                if (t == null) {
                    throw fail("The target of fold record %s>%s has no shard.", f.retired(), f.target());
                }
                if (t.clock() < f.tclock()) {
                    throw fail("Fold record %s>%s has tclock %d, newer than its target's shard (clock %d).", f.retired(), f.target(), f.tclock(), t.clock());
                }
            }
        }
    }

    /** The end of the run of (sorted) fold records of folds[i]'s retired writer. */
    private static int groupEnd(List<Fold> folds, int i) {
        int j = i;
        while (j < folds.size() && folds.get(j).retired().equals(folds.get(i).retired())) {
            j++;
        }
        return j;
    }

    /** Of folds[i..j), the record that saw the most of the retired writer: the highest aclock, then avalue. */
    private static Fold latest(List<Fold> folds, int i, int j) {
        Fold best = folds.get(i);
        for (Fold f : folds.subList(i + 1, j)) {
            if (f.aclock() > best.aclock() || (f.aclock() == best.aclock() && f.avalue() > best.avalue())) {
                best = f;
            }
        }
        return best;
    }

    static boolean isHex(char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }

    /** The 36 characters 8-4-4-4-12, lower-cased; null if id is not one. */
    static String normalizeId(String id) {
        if (id == null || id.length() != 36) {
            return null;
        }
        for (int i = 0; i < 36; i++) {
            char c = id.charAt(i);
            if (i == 8 || i == 13 || i == 18 || i == 23 ? c != '-' : !isHex(c)) {
                return null;
            }
        }
        return id.toLowerCase(Locale.ROOT);
    }

    /** The parser of the text form (contract 4, src/core/cc_text.c). */
    private static final class TextParser {
        private final String s;
        private int pos;

        TextParser(String s) {
            this.s = s;
        }

        private static boolean isSpace(char c) {
            return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == 0x0b;
        }

        private void skipSpace() {
            while (pos < s.length() && isSpace(s.charAt(pos))) {
                pos++;
            }
        }

        private boolean at(char c) {
            return pos < s.length() && s.charAt(pos) == c;
        }

        private CounterStateException syntax(String expected) {
            if (pos >= s.length()) {
                return fail("%s, found end of input.", expected);
            }
            int q = 0;
            while (q < 16 && pos + q < s.length() && s.charAt(pos + q) >= 0x20 && s.charAt(pos + q) < 0x7f) {
                q++;
            }
            if (q == 0) {
                // the server counts bytes: the first byte of the character's UTF-8
                byte[] utf8 = s.substring(pos, pos + Character.charCount(s.codePointAt(pos))).getBytes(java.nio.charset.StandardCharsets.UTF_8);
                return fail("%s, found byte 0x%02x at position %d.", expected, utf8[0] & 0xff, bytePos(pos) + 1);
            }
            String more = pos + q < s.length() ? "..." : "";
            return fail("%s, found \"%s%s\" at position %d.", expected, s.substring(pos, pos + q), more, bytePos(pos) + 1);
        }

        /** The server counts positions in bytes of UTF-8. */
        private int bytePos(int at) {
            return s.substring(0, at).getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
        }

        private void expect(char c, String context) {
            skipSpace();
            if (!at(c)) {
                throw syntax("Expected \"" + c + "\" " + context);
            }
            pos++;
            skipSpace();
        }

        private boolean keyword(String kw) {
            if (s.length() - pos < kw.length() || !s.regionMatches(true, pos, kw, 0, kw.length())) {
                return false;
            }
            pos += kw.length();
            return true;
        }

        private String id(String what) {
            int start = pos;
            while (pos < s.length() && (isHex(s.charAt(pos)) || s.charAt(pos) == '-')) {
                pos++;
            }
            if (pos == start) {
                throw syntax("Expected " + what);
            }
            String id = normalizeId(s.substring(start, pos));
            if (id == null) {
                String shown = s.substring(start, pos);
                if (shown.length() > 40) {
                    shown = shown.substring(0, 40) + "...";
                }
                throw fail("Invalid writer id \"%s\" at position %d: expected a uuid such as 7f0cab51-fb72-3e98-bdb4-0404a982865d.", shown, bytePos(start) + 1);
            }
            return id;
        }

        private long number(String what, String owner) {
            int start = pos;
            if (at('+') || at('-')) {
                pos++;
            }
            if (pos >= s.length() || s.charAt(pos) < '0' || s.charAt(pos) > '9') {
                throw syntax("Expected the " + what + " of " + owner + " as a whole number");
            }
            while (pos < s.length() && s.charAt(pos) >= '0' && s.charAt(pos) <= '9') {
                pos++;
            }
            String text = s.substring(start, pos);
            try {
                return Long.parseLong(text);
            } catch (NumberFormatException e) {
                if (text.length() > 40) {
                    text = text.substring(0, 40) + "...";
                }
                throw fail("The %s \"%s\" of %s is out of range for type bigint.", what, text, owner);
            }
        }

        CounterState parse() {
            List<Shard> shards = new ArrayList<>();
            List<Fold> folds = new ArrayList<>();
            boolean tomb = false;
            skipSpace();
            if (at('t') || at('T')) {
                if (!keyword("tombstone")) {
                    throw syntax("Expected \"{\" or \"tombstone\"");
                }
                tomb = true;
            } else {
                if (!at('{')) {
                    throw syntax("Expected \"{\" or \"tombstone\"");
                }
                pos++;
                skipSpace();
                if (at('}')) {
                    pos++;
                } else {
                    while (true) {
                        String id = id("a writer id");
                        String owner = "writer " + id;
                        expect(':', "after a writer id");
                        long clock = number("clock", owner);
                        expect(':', "after a clock");
                        long value = number("value", owner);
                        if (clock < 1) {
                            throw fail("Writer %s has clock %d; clocks start at 1.", id, clock);
                        }
                        shards.add(new Shard(id, clock, value));
                        if (!another("a shard")) {
                            break;
                        }
                    }
                }
            }
            skipSpace();
            if (pos < s.length() && (s.charAt(pos) | 0x20) == 'f') {
                int start = pos;
                if (keyword("folded")) {
                    if (tomb) {
                        throw fail("A tombstone has no fold records, found \"folded\" at position %d.", bytePos(start) + 1);
                    }
                    folds(folds);
                    skipSpace();
                }
            }
            if (pos < s.length()) {
                throw syntax("Expected end of input");
            }
            return checked(shards, folds, tomb);
        }

        private static final String[] NAMES = {"tclock", "aclock", "avalue", "absorbed"};

        private void folds(List<Fold> out) {
            skipSpace();
            if (!at('{')) {
                throw syntax("Expected \"{\" after \"folded\"");
            }
            pos++;
            skipSpace();
            if (at('}')) {
                throw syntax("Expected a fold record: a value without fold records has no \"folded\" part");
            }
            while (true) {
                String retired = id("the retired writer id of a fold record");
                expect('>', "after the retired writer id of a fold record");
                String target = id("the target writer id of a fold record");
                expect(':', "after the target writer id of a fold record");
                String owner = "fold record " + retired + ">" + target;
                long[] n = new long[4];
                for (int k = 0; k < 4; k++) {
                    if (k > 0) {
                        String article = NAMES[k - 1].startsWith("a") ? "an" : "a";
                        expect(':', "after " + article + " " + NAMES[k - 1]);
                    }
                    n[k] = number(NAMES[k], owner);
                }
                out.add(new Fold(retired, target, n[0], n[1], n[2], n[3]));
                if (!another("a fold record")) {
                    return;
                }
            }
        }

        /** After an item of a list: true at ",", false at its closing "}". */
        private boolean another(String item) {
            skipSpace();
            if (at(',')) {
                pos++;
                skipSpace();
                return true;
            }
            if (at('}')) {
                pos++;
                return false;
            }
            throw syntax("Expected \",\" or \"}\" after " + item);
        }
    }
}
