package io.github.countercrdt;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.After;
import org.junit.Assume;
import org.junit.Before;
import org.junit.Test;
import org.postgresql.PGConnection;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

import io.github.countercrdt.CounterState.Shard;

/**
 * CounterState through pgjdbc against a server (COUNTER_CRDT_JDBC_URL,
 * e.g. jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres): random
 * texts, binary values (the server's send, portable and compact), damaged
 * binary values read by the server's recv through binary COPY, and merges,
 * compared with the server's own answers; NULL and tombstones as
 * getObject and setObject see them; two threads x 1,000 increments; the
 * write guard's refusal of a state written back.
 *
 * <p>Without COUNTER_CRDT_JDBC_URL these tests are skipped (test/t/035_java.pl
 * sets it and fails on a skipped test).
 */
public class ServerTest {
    private static final String URL = System.getenv("COUNTER_CRDT_JDBC_URL");
    private final List<Connection> open = new ArrayList<>();
    private Connection conn;

    private Connection connect() throws SQLException {
        Connection c = DriverManager.getConnection(URL);
        open.add(c);
        try (Statement st = c.createStatement()) {
            st.execute("SET client_min_messages = warning");
            st.execute("CREATE EXTENSION IF NOT EXISTS counter_crdt");
        }
        Counters.register(c);
        return c;
    }

    @Before
    public void setUp() throws SQLException {
        Assume.assumeTrue("COUNTER_CRDT_JDBC_URL is not set", URL != null && !URL.isEmpty());
        conn = connect();
    }

    @After
    public void tearDown() throws SQLException {
        for (Connection c : open) {
            c.close();
        }
    }

    private void exec(String sql) throws SQLException {
        try (Statement st = conn.createStatement()) {
            st.execute(sql);
        }
    }

    private String one(String sql, Object... params) throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next());
                return rs.getString(1);
            }
        }
    }

    /** What the client makes of a text, in the shape of pg_temp.try's answer. */
    private static String clientTry(String text) {
        CounterState s;
        try {
            s = CounterState.parse(text);
        } catch (CounterStateException e) {
            return "refused 22P02: " + e.getDetail();
        }
        String value;
        try {
            value = s.isTombstone() ? "null" : Long.toString(s.value());
        } catch (ArithmeticException e) {
            value = "error 22003";
        }
        return "accepted " + value + " " + s;
    }

    @Test
    public void textsAgainstTheServer() throws SQLException {
        exec("CREATE FUNCTION pg_temp.try(input text) RETURNS text LANGUAGE plpgsql AS $$\n"
            + "  DECLARE c counter_crdt; v text; d text;\n"
            + "  BEGIN\n"
            + "    BEGIN c := input::counter_crdt;\n"
            + "    EXCEPTION WHEN OTHERS THEN GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL; RETURN 'refused ' || SQLSTATE || ': ' || d; END;\n"
            + "    BEGIN v := c::bigint::text;\n"
            + "    EXCEPTION WHEN OTHERS THEN v := 'error ' || SQLSTATE; END;\n"
            + "    RETURN 'accepted ' || coalesce(v, 'null') || ' ' || c::text;\n"
            + "  END $$");
        Random r = Gen.rng("texts against the server");
        List<String> texts = new ArrayList<>(List.of("{}", "tombstone", " TombStone ", "{ }", "", "{", "0", "5", "{}x", "{\u00e9}",
            "{7fffffff-ffff-ffff-ffff-ffffffffffff:1:9223372036854775807} folded {80000000-0000-0000-0000-000000000000>7fffffff-ffff-ffff-ffff-ffffffffffff:1:1:9223372036854775807:0}",
            CounterStateTest.FOLDED));
        for (int i = 0; i < 150; i++) {
            String s = Gen.plain(r, 4).toString(), f = Gen.folded(r);
            texts.addAll(List.of(s, f, Gen.mutate(s, r), Gen.mutate(f, r)));
        }
        Map<String, Integer> kinds = new TreeMap<>();
        List<String> wrong = new ArrayList<>();
        for (String text : texts) {
            String server = one("SELECT pg_temp.try(?)", text);
            kinds.merge(server.split(" ")[0], 1, Integer::sum);
            if (server.contains(" folded {")) {
                kinds.merge("folded", 1, Integer::sum);
            }
            if (server.contains("error 22003")) {
                kinds.merge("out of range", 1, Integer::sum);
            }
            String client = clientTry(text);
            if (!client.equals(server)) {
                wrong.add(text + ": server " + server + ", client " + client);
            }
        }
        System.out.println(texts.size() + " texts: " + kinds);
        assertEquals(List.of(), wrong);
        assertTrue(kinds.toString(), kinds.getOrDefault("accepted", 0) >= 200 && kinds.getOrDefault("refused", 0) >= 60
            && kinds.getOrDefault("folded", 0) >= 40 && kinds.getOrDefault("out of range", 0) > 0);
    }

    @Test
    public void getObjectAndSetObject() throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement("SELECT NULL::counter_crdt, 'tombstone'::counter_crdt, NULL::counter_crdt + 5, ?::text::counter_crdt")) {
            ps.setString(1, " { " + Gen.POOL[4].toUpperCase() + " : 2 : 7 , " + Gen.POOL[3] + ":1:1 }");
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next());
                assertNull(rs.getObject(1));
                CounterState t = (CounterState) rs.getObject(2);
                assertTrue(t.isTombstone());
                assertEquals(5, ((CounterState) rs.getObject(3)).value());
                assertEquals(CounterState.parse("{" + Gen.POOL[3] + ":1:1, " + Gen.POOL[4] + ":2:7}"), rs.getObject(4));
                assertEquals(8, rs.getObject(4, CounterState.class).value());
            }
        }
        Random r = Gen.rng("getObject and setObject");
        for (int i = 0; i < 200; i++) {
            CounterState s = i % 17 == 0 ? CounterState.tombstone() : Gen.plain(r, 6);
            try (PreparedStatement ps = conn.prepareStatement("SELECT ?::counter_crdt, ?::counter_crdt::text, pg_typeof(?)::text")) {
                ps.setObject(1, s);
                ps.setObject(2, s);
                ps.setObject(3, s);
                try (ResultSet rs = ps.executeQuery()) {
                    assertTrue(rs.next());
                    assertEquals(s, rs.getObject(1));
                    assertEquals(s.toString(), rs.getString(2));
                    assertEquals("counter_crdt", rs.getString(3));
                }
            }
        }
    }

    /** The server's send of a text, in the session's binary format. */
    private byte[] send(String text) throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement("SELECT counter_crdt_send(?::text::counter_crdt)")) {
            ps.setString(1, text);
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next());
                return rs.getBytes(1);
            }
        }
    }

    /**
     * What the server makes of bytes, read by its recv through binary COPY:
     * "accepted TEXT" or "refused SQLSTATE: DETAIL".
     */
    private String serverRecv(byte[] b) throws SQLException, IOException {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(buf);
        out.write("PGCOPY\n\377\r\n\0".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
        out.writeInt(0);
        out.writeInt(0);
        out.writeShort(1);
        out.writeInt(b.length);
        out.write(b);
        out.writeShort(-1);
        exec("TRUNCATE recv");
        try {
            conn.unwrap(PGConnection.class).getCopyAPI()
                .copyIn("COPY recv FROM STDIN (FORMAT binary)", new ByteArrayInputStream(buf.toByteArray()));
        } catch (PSQLException e) {
            ServerErrorMessage m = e.getServerErrorMessage();
            assertNotNull(e.toString(), m);
            return "refused " + m.getSQLState() + ": " + m.getDetail();
        }
        return "accepted " + one("SELECT c::text FROM recv");
    }

    @Test
    public void binaryAgainstTheServer() throws SQLException, IOException {
        exec("CREATE TEMP TABLE recv (c counter_crdt)");
        Random r = Gen.rng("binary against the server");
        int n = 0, damaged = 0;
        List<String> wrong = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            String text = i % 17 == 0 ? "tombstone" : i % 2 == 0 ? Gen.plain(r, 5).toString() : Gen.folded(r);
            CounterState s;
            try {
                s = CounterState.parse(text);
            } catch (CounterStateException e) {
                continue;
            }
            n++;
            byte[] server = send(text);
            byte[] mine = s.toBinary();
            assertArrayEquals(s.toString(), server, mine);
            assertEquals(s, CounterState.fromBinary(server));
            assertEquals("accepted " + s, serverRecv(mine));
            List<byte[]> cases = new ArrayList<>();
            cases.add(java.util.Arrays.copyOf(mine, r.nextInt(mine.length)));
            byte[] v3 = mine.clone();
            v3[0] = 3;
            cases.add(v3);
            byte[] longer = java.util.Arrays.copyOf(mine, mine.length + 1);
            longer[mine.length] = 'x';
            cases.add(longer);
            byte[] flag = mine.clone();
            flag[1] |= 2;
            cases.add(flag);
            if (mine.length >= 70) {
                byte[] swapped = mine.clone();
                System.arraycopy(mine, 38, swapped, 6, 32);
                System.arraycopy(mine, 6, swapped, 38, 32);
                cases.add(swapped);
            }
            byte[] flip = mine.clone();
            flip[r.nextInt(flip.length)] ^= (byte) (1 << r.nextInt(8));
            cases.add(flip);
            for (byte[] c : cases) {
                damaged++;
                String sv = serverRecv(c), cl = Gen.clientRecv(c);
                if (!sv.equals(cl)) {
                    wrong.add(Gen.hex(c) + ": server " + sv + ", client " + cl);
                }
            }
        }
        System.out.println(n + " states, " + damaged + " damaged values");
        assertEquals(List.of(), wrong);
        assertTrue(n > 200);
    }

    private static final String[] P = Gen.POOL;

    /** Texts of every compact layout at the edges of its widths; tombstone and fold records stay versions 1 and 2. */
    private static List<Object[]> compactCases() {
        List<Object[]> cases = new ArrayList<>();
        java.util.function.BiFunction<Long, Long, String> one = (c, v) -> "{" + P[3] + ":" + c + ":" + v + "}";
        cases.add(new Object[] {"{}", 3, 0x05});
        cases.add(new Object[] {"tombstone", 1, 1});
        cases.add(new Object[] {CounterStateTest.FOLDED, 2, 0});
        long[][] singles = {{1, 0, 0x05}, {1, -128, 0x05}, {1, 127, 0x05}, {1, -129, 0x09}, {1, 128, 0x09}, {1, -32768, 0x09}, {1, 32767, 0x09},
            {1, -32769, 0x0d}, {1, 32768, 0x0d}, {1, Integer.MIN_VALUE, 0x0d}, {1, Integer.MAX_VALUE, 0x0d},
            {1, (long) Integer.MIN_VALUE - 1, 0x01}, {1, 1L << 31, 0x01}, {1, Long.MIN_VALUE, 0x01}, {1, Long.MAX_VALUE, 0x01},
            {255, -1, 0x05}, {256, -1, 0x06}, {65535, 1, 0x06}, {65536, 1, 0x07}, {(1L << 32) - 1, 1, 0x07}, {1L << 32, 1, 0x04}, {Long.MAX_VALUE, 1, 0x04}};
        for (long[] s : singles) {
            cases.add(new Object[] {one.apply(s[0], s[1]), 3, (int) s[2]});
        }
        for (int cc = 0; cc < 4; cc++) {
            for (int vc = 0; vc < 4; vc++) {
                String text = String.format("{%s:%d:%d, %s:%d:%d, %s:%d:%d, %s:%d:%d}",
                    P[6], CounterStateTest.CLOCK_HI[cc] / 2, CounterStateTest.VAL_PAST[vc][1], P[1].toUpperCase(), CounterStateTest.CLOCK_LO[cc], CounterStateTest.VAL_MIN[vc],
                    P[0], CounterStateTest.CLOCK_HI[cc], CounterStateTest.VAL_MAX[vc], P[4], 1, CounterStateTest.VAL_PAST[vc][0]);
                cases.add(new Object[] {text, 3, cc | vc << 2});
            }
        }
        return cases;
    }

    @Test
    public void compactAgainstTheServer() throws SQLException {
        exec("SET counter_crdt.binary_format = 'compact'");
        Random r = Gen.rng("compact against the server");
        List<Object[]> cases = compactCases();
        for (int i = 0; i < 200; i++) {
            cases.add(new Object[] {Gen.plain(r, 5).toString(), 3, -1});
        }
        Map<Integer, Integer> layouts = new TreeMap<>();
        for (Object[] c : cases) {
            String text = (String) c[0];
            byte[] sent = send(text);
            assertEquals(text, (int) c[1], sent[0]);
            if ((int) c[2] >= 0) {
                assertEquals(text, (int) c[2], sent[1] & 0xff);
            }
            if (sent[0] == 3) {
                layouts.merge(sent[1] & 0xff, 1, Integer::sum);
            }
            CounterState got = CounterState.fromBinary(sent);
            assertEquals(Gen.hex(sent), CounterState.parse(text), got);
            assertEquals(one("SELECT ?::text::counter_crdt::text", text), got.toString());
            // sent back (versions 1 and 2), the server reads the same value
            assertEquals(got.toString(), one("SELECT ?::counter_crdt::text", got));
        }
        assertEquals("every layout: " + layouts, 16, layouts.size());
        exec("RESET counter_crdt.binary_format");
        assertEquals(1, send("{}")[0]);
    }

    @Test
    public void compactRefusalsAgainstTheServer() throws SQLException, IOException {
        exec("CREATE TEMP TABLE recv (c counter_crdt)");
        exec("SET counter_crdt.binary_format = 'compact'");
        Random r = Gen.rng("compact refusals against the server");
        String ia = P[3].replace("-", ""), ib = P[4].replace("-", "");
        List<byte[]> bad = new ArrayList<>();
        for (String h : new String[] {"", "03", "0305", "0385", "03ff", "031005" + ia + "0105", "0305" + ia + "01", "0305" + ia + "010500",
            "0305" + ib + "0105" + ia + "0105", "0305" + ia + "0105" + ia + "0205", "0305" + ia + "0005", "0307" + ia + "0000000005",
            "0305" + ia + "0105" + ib + "0005", "0304" + ia + "800000000000000005", "0304" + ia + "ffffffffffffffff05",
            "030600", "000000000000", "040000000000", "ff0100000000", "04"}) {
            bad.add(Gen.hex(h));
        }
        List<String> texts = new ArrayList<>();
        for (Object[] c : compactCases()) {
            texts.add((String) c[0]);
        }
        for (int i = 0; i < 100; i++) {
            texts.add(Gen.plain(r, 5).toString());
        }
        for (String text : texts) {
            byte[] good = send(text);
            if (good[0] != 3) {
                continue;
            }
            int cw = Gen.WIDTH[good[1] & 3], vw = Gen.WIDTH[(good[1] >> 2) & 3], size = 16 + cw + vw;
            bad.add(java.util.Arrays.copyOf(good, r.nextInt(good.length)));
            byte[] x = java.util.Arrays.copyOf(good, good.length + 1);
            x[good.length] = (byte) r.nextInt(256);
            bad.add(x);
            x = good.clone();
            x[1] = (byte) r.nextInt(256);
            bad.add(x);
            x = good.clone();
            x[1] = (byte) r.nextInt(16);
            bad.add(x);
            x = good.clone();
            x[r.nextInt(x.length - 1) + 1] ^= (byte) (1 << r.nextInt(8));
            bad.add(x);
            x = good.clone();
            x[0] = (byte) new int[] {0, 4, 255}[r.nextInt(3)];
            bad.add(x);
            if (good.length > 2) {
                int k = r.nextInt((good.length - 2) / size);
                x = good.clone();
                java.util.Arrays.fill(x, 2 + k * size + 16, 2 + k * size + 16 + cw, (byte) 0);
                bad.add(x);
                x = good.clone();
                x[2 + (k + 1) * size - vw] |= (byte) 0x80;
                bad.add(x);
            }
            if (good.length > 2 + size) {
                x = good.clone();
                System.arraycopy(good, 2 + size, x, 2, size);
                System.arraycopy(good, 2, x, 2 + size, size);
                bad.add(x);
                x = good.clone();
                System.arraycopy(good, 2, x, 2 + size, size);
                bad.add(x);
            }
        }
        String[] kindsWanted = {"header alone takes 6", "header of format version 3", "Unknown layout bits", "not a whole number",
            "clocks start at 1", "out of ascending order", "appears more than once", "versions 1, 2 and 3"};
        Map<String, Integer> kinds = new TreeMap<>();
        List<String> wrong = new ArrayList<>();
        for (byte[] b : bad) {
            String server = serverRecv(b), client = Gen.clientRecv(b);
            String kind = server.startsWith("accepted ") ? "accepted" : server;
            for (String k : kindsWanted) {
                if (server.contains(k)) {
                    kind = k;
                }
            }
            kinds.merge(kind, 1, Integer::sum);
            if (!server.equals(client)) {
                wrong.add(Gen.hex(b) + ": server " + server + ", client " + client);
            }
        }
        System.out.println(bad.size() + " damaged values: " + kinds);
        assertEquals(List.of(), wrong);
        for (String k : kindsWanted) {
            assertTrue("no damaged value of kind " + k + ": " + kinds, kinds.getOrDefault(k, 0) > 0);
        }
        assertTrue(kinds.toString(), kinds.getOrDefault("accepted", 0) >= 50);
    }

    @Test
    public void mergeAgainstTheServer() throws SQLException {
        Random r = Gen.rng("merge against the server");
        for (int i = 0; i < 300; i++) {
            CounterState a = Gen.plain(r, 5), b = Gen.plain(r, 5);
            // equal clocks with other values: the value breaks the tie
            List<Shard> shards = new ArrayList<>();
            for (Shard sh : b.shards()) {
                Shard o = a.shard(sh.id()).orElse(null);
                shards.add(o != null && r.nextBoolean() ? new Shard(sh.id(), o.clock(), sh.value()) : sh);
            }
            b = i % 9 == 0 ? CounterState.tombstone() : CounterState.of(shards, List.of());
            CounterState mine = a.merge(b);
            try (PreparedStatement ps = conn.prepareStatement("SELECT counter_crdt_merge(?, ?), counter_crdt_merge(?, ?)")) {
                ps.setObject(1, a);
                ps.setObject(2, b);
                ps.setObject(3, b);
                ps.setObject(4, a);
                try (ResultSet rs = ps.executeQuery()) {
                    assertTrue(rs.next());
                    assertEquals(a + " + " + b, rs.getObject(1), mine);
                    assertEquals(b + " + " + a, rs.getObject(2), b.merge(a));
                }
            }
        }
    }

    /**
     * Two threads, each on its own connection, increment one counter 1,000
     * times: 2,000 in 2,000 increments of this server's shard. A state read
     * and written back is refused by the guard with 23000 and the server's
     * hint; merged, it loses nothing. Counters' helpers write new rows.
     */
    @Test
    public void incrementsAndTheGuard() throws Exception {
        exec("DROP TABLE IF EXISTS java_pages; CREATE TABLE java_pages (id int PRIMARY KEY, views counter_crdt DEFAULT '{}');"
            + "SELECT counter_crdt_guard_writes('java_pages')");
        Counters.insert(conn, "java_pages", "views", "id", 1, 0);
        AtomicReference<Throwable> failed = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
            Connection c = connect();
            threads.add(new Thread(() -> {
                try {
                    for (int i = 0; i < 1000; i++) {
                        assertEquals(1, Counters.increment(c, "java_pages", "views", "id", 1, 1));
                    }
                } catch (Throwable e) {
                    failed.set(e);
                }
            }));
        }
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            t.join();
        }
        if (failed.get() != null) {
            throw new AssertionError(failed.get());
        }
        String id = one("SELECT counter_crdt_node_id()::text");
        CounterState s;
        try (Statement st = conn.createStatement(); ResultSet rs = st.executeQuery("SELECT views FROM java_pages WHERE id = 1")) {
            assertTrue(rs.next());
            s = (CounterState) rs.getObject("views");
        }
        assertEquals(CounterState.of(new Shard(id, 2000, 2000)), s);
        assertEquals(2000, s.value());
        // another increment, then the stale state written back: refused
        exec("UPDATE java_pages SET views = views + 1 WHERE id = 1");
        try (PreparedStatement ps = conn.prepareStatement("UPDATE java_pages SET views = ? WHERE id = 1")) {
            ps.setObject(1, s);
            ps.executeUpdate();
            fail("the guard let a stale state through");
        } catch (PSQLException e) {
            assertEquals("23000", e.getSQLState());
            ServerErrorMessage m = e.getServerErrorMessage();
            assertEquals("cannot write counter column \"views\" of table \"java_pages\": the new state lacks increments that the row holds", m.getMessage());
            assertEquals("Increment with views = views + n; to bring in another server's state, write counter_crdt_merge(views, state).", m.getHint());
        }
        // merged, nothing is lost
        assertEquals(1, Counters.merge(conn, "java_pages", "views", "id", 1, s));
        CounterState other = CounterState.of(new Shard(P[3], 3, 42));
        assertEquals(1, Counters.merge(conn, "java_pages", "views", "id", 1, other));
        assertEquals(0, Counters.merge(conn, "java_pages", "views", "id", 2, other));
        assertEquals("2043", one("SELECT views::bigint FROM java_pages WHERE id = 1"));
        // new rows: '{}' and NULL::counter_crdt + n
        Counters.insert(conn, "java_pages", "views", "id", 2, 5);
        Counters.insert(conn, "java_pages", "views", "id", 3, 0);
        assertEquals("{" + id + ":1:5}", one("SELECT views::text FROM java_pages WHERE id = 2"));
        assertEquals("{}", one("SELECT views::text FROM java_pages WHERE id = 3"));
        // identifiers are quoted
        exec("DROP TABLE IF EXISTS \"Odd \"\"t\"\"\"; CREATE TABLE \"Odd \"\"t\"\"\" (\"K\" int PRIMARY KEY, \"V v\" counter_crdt)");
        Counters.insert(conn, "Odd \"t\"", "V v", "K", 1, 3);
        assertEquals(1, Counters.increment(conn, "Odd \"t\"", "V v", "K", 1, -1));
        assertEquals("2", one("SELECT \"V v\"::bigint FROM \"Odd \"\"t\"\"\""));
        assertFalse(s.isTombstone());
    }
}
