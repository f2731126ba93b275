// pgjdbc (Debian's libpostgresql-jdbc-java) against counter_crdt, as
// test/t/019_clients.pl runs it: one "ok N - what" or "not ok N - what"
// line per check, exit status 1 if any failed.  A single source file,
// run without compiling first (Java 11 and later):
//
//   PGHOST=127.0.0.1 PGPORT=... PGUSER=... PGDATABASE=... \
//   java -cp /usr/share/java/postgresql.jar Clients.java
//
// pgjdbc types its parameters: setShort, setInt and setLong send smallint,
// integer and bigint, setBigDecimal numeric, setDouble double precision, and
// setString varchar, for which
// no counter operator exists (42883) -- unless the connection says
// stringtype=unspecified, when a string is untyped and read as a counter
// state (22P02), as node-postgres's parameters are.
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Properties;

public class Clients {
	static int nChecks = 0;
	static int nFailed = 0;

	static void check(boolean ok, String what, Object got) {
		nChecks++;
		if (ok) {
			System.out.println("ok " + nChecks + " - " + what);
		} else {
			nFailed++;
			System.out.println("not ok " + nChecks + " - " + what);
			System.out.println("#   got: " + got);
		}
	}

	interface Binder {
		void bind(PreparedStatement ps) throws SQLException;
	}

	static List<Object> column(Connection conn, String sql, Binder b) throws SQLException {
		List<Object> out = new ArrayList<>();
		try (PreparedStatement ps = conn.prepareStatement(sql)) {
			b.bind(ps);
			try (ResultSet rs = ps.executeQuery()) {
				while (rs.next()) {
					out.add(rs.getObject(1));
				}
			}
		}
		return out;
	}

	static Object one(Connection conn, String sql, Binder b) throws SQLException {
		return column(conn, sql, b).get(0);
	}

	static Connection connect(String extra) throws SQLException {
		String url = "jdbc:postgresql://" + System.getenv("PGHOST") + ":" + System.getenv("PGPORT")
				+ "/" + System.getenv("PGDATABASE") + extra;
		Properties props = new Properties();
		props.setProperty("user", System.getenv("PGUSER"));
		return DriverManager.getConnection(url, props);
	}

	public static void main(String[] args) throws Exception {
		try (Connection conn = connect("")) {
			run(conn);
		} catch (Exception e) {
			check(false, "the program ran to its end", e);
			e.printStackTrace(System.out);
		}
		System.out.println("1.." + nChecks);
		System.exit(nFailed > 0 ? 1 : 0);
	}

	static void run(Connection conn) throws Exception {
		try (Statement st = conn.createStatement()) {
			st.execute("CREATE EXTENSION IF NOT EXISTS counter_crdt");
			st.execute("DROP TABLE IF EXISTS t");
			st.execute("CREATE TABLE t (k int PRIMARY KEY, c counter_crdt)");
			st.execute("INSERT INTO t SELECT k, NULL::counter_crdt + 0 FROM generate_series(1, 3) k");
		}
		String me = (String) one(conn, "SELECT counter_crdt_node_id()::text", ps -> {});

		// What each setter sends.
		Object got = one(conn, "SELECT pg_typeof(?)::text", ps -> ps.setShort(1, (short) 100));
		check("smallint".equals(got), "setShort sends smallint", got);
		got = one(conn, "SELECT pg_typeof(?)::text", ps -> ps.setInt(1, 100));
		check("integer".equals(got), "setInt sends integer", got);
		got = one(conn, "SELECT pg_typeof(?)::text", ps -> ps.setLong(1, 100L));
		check("bigint".equals(got), "setLong sends bigint", got);
		got = one(conn, "SELECT pg_typeof(?)::text", ps -> ps.setBigDecimal(1, new BigDecimal("149.5")));
		check("numeric".equals(got), "setBigDecimal sends numeric", got);
		got = one(conn, "SELECT pg_typeof(?)::text", ps -> ps.setDouble(1, 149.5));
		check("double precision".equals(got), "setDouble sends double precision", got);
		got = one(conn, "SELECT pg_typeof(?)::text", ps -> ps.setString(1, "100"));
		check("character varying".equals(got), "setString sends character varying", got);

		// Increments with bound parameters.
		long[][] incs = { { 5, 1 }, { 7, 1 }, { -2, 1 }, { 100, 2 }, { 50, 2 }, { 3000000000L, 3 } };
		try (PreparedStatement ps = conn.prepareStatement("UPDATE t SET c = c + ? WHERE k = ?")) {
			for (long[] inc : incs) {
				ps.setLong(1, inc[0]);
				ps.setInt(2, (int) inc[1]);
				int n = ps.executeUpdate();
				check(n == 1, "UPDATE t SET c = c + ? WHERE k = ? with setLong(" + inc[0] + "), setInt(" + inc[1] + ")", n);
			}
			ps.setInt(1, 0);
			ps.setInt(2, 2);
			int n = ps.executeUpdate();
			check(n == 1, "UPDATE t SET c = c + ? WHERE k = ? with setInt(0)", n);
		}

		// The value (getLong) and the state (getString; getObject gives a PGobject).
		try (PreparedStatement ps = conn.prepareStatement("SELECT c::bigint, c FROM t WHERE k = ?")) {
			ps.setInt(1, 3);
			try (ResultSet rs = ps.executeQuery()) {
				rs.next();
				check(rs.getLong(1) == 3000000000L, "getLong reads c::bigint: 3000000000", rs.getLong(1));
				check(rs.getString(2).equals("{" + me + ":2:3000000000}"),
						"getString reads the state: {writer:clock:value}", rs.getString(2));
				Object o = rs.getObject(2);
				check(o instanceof org.postgresql.util.PGobject
						&& "counter_crdt".equals(((org.postgresql.util.PGobject) o).getType()),
						"getObject gives a PGobject of type counter_crdt", o.getClass());
			}
		}

		// Filters: c > ? with each numeric setter.
		List<Object> keys = column(conn, "SELECT k FROM t WHERE c > ? ORDER BY k", ps -> ps.setShort(1, (short) 100));
		check(keys.equals(List.of(2, 3)), "WHERE c > ? with setShort(100): keys 2, 3", keys);
		keys = column(conn, "SELECT k FROM t WHERE c > ? ORDER BY k", ps -> ps.setInt(1, 100));
		check(keys.equals(List.of(2, 3)), "WHERE c > ? with setInt(100): keys 2, 3", keys);
		keys = column(conn, "SELECT k FROM t WHERE c > ? ORDER BY k", ps -> ps.setLong(1, 2999999999L));
		check(keys.equals(List.of(3)), "WHERE c > ? with setLong(2999999999): key 3", keys);
		keys = column(conn, "SELECT k FROM t WHERE c > ? ORDER BY k", ps -> ps.setBigDecimal(1, new BigDecimal("149.5")));
		check(keys.equals(List.of(2, 3)), "WHERE c > ? with setBigDecimal(149.5): keys 2, 3", keys);
		keys = column(conn, "SELECT k FROM t WHERE c > ? ORDER BY k", ps -> ps.setDouble(1, 149.5));
		check(keys.equals(List.of(2, 3)), "WHERE c > ? with setDouble(149.5): keys 2, 3", keys);

		// setString: varchar, and no operator counter_crdt > varchar.
		try {
			column(conn, "SELECT k FROM t WHERE c > ?", ps -> ps.setString(1, "100"));
			check(false, "WHERE c > ? with setString fails", "no error");
		} catch (SQLException e) {
			check("42883".equals(e.getSQLState())
					&& e.getMessage().contains("operator does not exist: counter_crdt > character varying"),
					"WHERE c > ? with setString fails: operator does not exist (42883)", e.getSQLState() + " " + e.getMessage());
		}
		keys = column(conn, "SELECT k FROM t WHERE c > ?::bigint ORDER BY k", ps -> ps.setString(1, "100"));
		check(keys.equals(List.of(2, 3)), "WHERE c > ?::bigint with setString(\"100\"): keys 2, 3", keys);

		// With stringtype=unspecified a string is untyped: read as a counter state.
		try (Connection loose = connect("?stringtype=unspecified")) {
			try {
				column(loose, "SELECT k FROM t WHERE c > ?", ps -> ps.setString(1, "100"));
				check(false, "stringtype=unspecified: WHERE c > ? with setString fails", "no error");
			} catch (SQLException e) {
				check("22P02".equals(e.getSQLState()) && e.getMessage().contains("::bigint"),
						"stringtype=unspecified: WHERE c > ? with setString fails with 22P02, hinting ::bigint",
						e.getSQLState() + " " + e.getMessage());
			}
		}

		// Sums: sum(c) is numeric, a BigDecimal.
		got = one(conn, "SELECT sum(c) FROM t", ps -> {});
		check(new BigDecimal("3000000160").equals(got), "sum(c) is BigDecimal 3000000160", got);
		got = one(conn, "SELECT sum(c) FROM t WHERE c > ?", ps -> ps.setInt(1, 100));
		check(new BigDecimal("3000000150").equals(got), "sum(c) WHERE c > ? is 3000000150", got);
	}
}
