package io.github.countercrdt;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

import org.postgresql.PGConnection;

/**
 * The right ways to write a counter through JDBC. A counter is never
 * written by reading its state and writing a changed state back: two
 * clients that do so at once lose one another's increments, and a table
 * under counter_crdt_guard_writes refuses the stale state with SQLSTATE
 * 23000. Instead, an increment is {@code c = c + ?} on the server, a state
 * from elsewhere is merged in with {@code counter_crdt_merge(c, ?)}, and a
 * new row starts at {@code NULL::counter_crdt + ?}.
 *
 * <p>Table and column names are quoted as identifiers; the key is a
 * parameter.
 */
public final class Counters {
    private Counters() {
    }

    /** Registers {@link CounterState} for the type counter_crdt on a pgjdbc connection (or a pool's wrapper of one). */
    public static void register(Connection conn) throws SQLException {
        conn.unwrap(PGConnection.class).addDataType(CounterState.TYPE, CounterState.class);
    }

    /** A name as an SQL identifier, in double quotes. */
    static String ident(String name) {
        return '"' + name.replace("\"", "\"\"") + '"';
    }

    /** {@code UPDATE table SET counter = counter + delta WHERE key = k}: the number of rows incremented. */
    public static int increment(Connection conn, String table, String counter, String key, Object k, long delta) throws SQLException {
        String c = ident(counter);
        return update(conn, "UPDATE " + ident(table) + " SET " + c + " = " + c + " + ? WHERE " + ident(key) + " = ?", delta, k);
    }

    /** {@code UPDATE table SET counter = counter_crdt_merge(counter, state) WHERE key = k}: the number of rows merged into. */
    public static int merge(Connection conn, String table, String counter, String key, Object k, CounterState state) throws SQLException {
        String c = ident(counter);
        return update(conn, "UPDATE " + ident(table) + " SET " + c + " = counter_crdt_merge(" + c + ", ?::counter_crdt) WHERE " + ident(key) + " = ?", state, k);
    }

    private static int update(Connection conn, String sql, Object operand, Object k) throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement(sql)) {
            ps.setObject(1, operand);
            ps.setObject(2, k);
            return ps.executeUpdate();
        }
    }

    /** {@code INSERT INTO table (key, counter) VALUES (k, NULL::counter_crdt + initial)}: a new row counting initial (0 gives '{}'). */
    public static void insert(Connection conn, String table, String counter, String key, Object k, long initial) throws SQLException {
        String sql = "INSERT INTO " + ident(table) + " (" + ident(key) + ", " + ident(counter) + ") VALUES (?, "
                + (initial == 0 ? "'{}'::counter_crdt)" : "NULL::counter_crdt + ?)");
        try (PreparedStatement ps = conn.prepareStatement(sql)) {
            ps.setObject(1, k);
            if (initial != 0) {
                ps.setLong(2, initial);
            }
            ps.executeUpdate();
        }
    }
}
