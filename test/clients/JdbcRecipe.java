// JdbcRecipe.java - idgen and idgen128 through JDBC (Debian's pgjdbc)
//
// usage: java -cp <dir>:/usr/share/java/postgresql.jar JdbcRecipe JDBC-URL
//
// Compiled and run by test/t/053_orms.pl; the recipe of docs/clients.md.
// Prints "check <name> ok|FAIL <detail>" lines and "done"; exits 1 when a
// check failed.
//
//   - getLong reads an idgen exactly (a Java long has all 63 bits), above
//     2^53 too; getString is the same decimal text;
//   - getObject(col, UUID.class) reads an idgen128 selected as uuid (the
//     cast is free: the same 16 bytes); on the idgen128 itself pgjdbc
//     returns a PGobject, so UUID.fromString(getString(col)) reads it;
//   - batch inserts return the new IDs with generated keys, by column
//     names and with RETURN_GENERATED_KEYS;
//   - setLong and setObject(uuid) go back in as parameters.

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

public class JdbcRecipe {
    private static int failures = 0;

    private static void check(String name, boolean ok, String detail) {
        if (ok) {
            System.out.println("check " + name + " ok");
        } else {
            failures++;
            System.out.println("check " + name + " FAIL " + detail);
        }
        System.out.flush();
    }

    private static final long BIG = (1L << 53) + 1;

    public static void main(String[] args) throws SQLException {
        try (Connection conn = DriverManager.getConnection(args[0])) {
            run(conn);
        }
        System.out.println("done");
        System.exit(failures == 0 ? 0 : 1);
    }

    private static void run(Connection conn) throws SQLException {
        try (Statement st = conn.createStatement()) {
            st.execute("DROP TABLE IF EXISTS orders; CREATE TABLE orders (id idgen PRIMARY KEY DEFAULT idgen_next(),"
                       + " public_id idgen128 NOT NULL DEFAULT idgen_next128(), item text)");
        }

        // getLong for idgen; UUID.class for idgen128 selected as uuid
        List<Long> ids = new ArrayList<>();
        boolean exact = true, notDouble = false, above = true;
        try (Statement st = conn.createStatement();
             ResultSet rs = st.executeQuery(
                 "SELECT b, b::text, u::uuid, u::text FROM idgen_next_batch(100) AS b,"
                 + " LATERAL (SELECT idgen_next128() AS u) AS x ORDER BY 1")) {
            while (rs.next()) {
                long id = rs.getLong(1);
                UUID u = rs.getObject(3, UUID.class);
                exact &= Long.toString(id).equals(rs.getString(2)) && u.toString().equals(rs.getString(4));
                notDouble |= (long) (double) id != id;
                above &= id > (1L << 53);
                ids.add(id);
            }
        }
        check("getlong_exact", exact && ids.size() == 100, "a value differs from the server's text");
        check("getlong_above_2_53", above && notDouble, "above " + above + ", one no double " + notDouble);

        // the idgen128 itself: a PGobject to getObject, its text to UUID
        try (Statement st = conn.createStatement();
             ResultSet rs = st.executeQuery("SELECT u, u::text FROM idgen_next128() AS u")) {
            rs.next();
            UUID u = UUID.fromString(rs.getString(1));
            check("idgen128_from_string", u.version() == 7 && u.toString().equals(rs.getString(2)),
                  "got " + u);
            boolean refused = false;
            try {
                rs.getObject(1, UUID.class);
            } catch (ClassCastException | SQLException e) {
                refused = true;
            }
            check("idgen128_getobject_needs_uuid_cast", refused
                  && rs.getObject(1).getClass().getName().equals("org.postgresql.util.PGobject"),
                  "getObject(col, UUID.class) on an idgen128 no longer fails: update docs/clients.md");
        }

        // batch inserts, the new IDs back as generated keys
        List<Long> keys = new ArrayList<>();
        List<UUID> publicIds = new ArrayList<>();
        try (PreparedStatement ps = conn.prepareStatement(
                 "INSERT INTO orders (item) VALUES (?)", new String[] {"id", "public_id"})) {
            for (int k = 0; k < 20; k++) {
                ps.setString(1, "item" + k);
                ps.addBatch();
            }
            ps.executeBatch();
            try (ResultSet rs = ps.getGeneratedKeys()) {
                while (rs.next()) {
                    keys.add(rs.getLong("id"));
                    publicIds.add(UUID.fromString(rs.getString("public_id")));
                }
            }
        }
        boolean match = keys.size() == 20;
        try (PreparedStatement ps = conn.prepareStatement(
                 "SELECT id::text, public_id::text FROM orders WHERE item = ?")) {
            for (int k = 0; match && k < 20; k++) {
                ps.setString(1, "item" + k);
                try (ResultSet rs = ps.executeQuery()) {
                    match = rs.next() && rs.getString(1).equals(Long.toString(keys.get(k)))
                            && rs.getString(2).equals(publicIds.get(k).toString());
                }
            }
        }
        check("batch_generated_keys", match, "keys " + keys);
        check("batch_keys_ascend", keys.size() == 20 && keys.get(0) > (1L << 53)
              && keys.stream().sorted().distinct().toList().equals(keys), "keys " + keys);

        long key;
        try (Statement st = conn.createStatement()) {
            st.executeUpdate("INSERT INTO orders (item) VALUES ('one')", Statement.RETURN_GENERATED_KEYS);
            try (ResultSet rs = st.getGeneratedKeys()) {
                rs.next();
                key = rs.getLong("id");
            }
            try (ResultSet rs = st.executeQuery("SELECT id::text FROM orders WHERE item = 'one'")) {
                rs.next();
                check("return_generated_keys", rs.getString(1).equals(Long.toString(key)), "key " + key);
            }
        }

        // parameters: setLong for idgen, setObject(uuid) with a cast for
        // idgen128 (uuid to idgen128 is an explicit cast; = compares them)
        UUID fixed = UUID.fromString("01234567-89ab-7def-8123-456789abcdef");
        try (PreparedStatement ps = conn.prepareStatement(
                 "INSERT INTO orders (id, public_id, item) VALUES (?, ?::idgen128, 'fixed')")) {
            ps.setLong(1, BIG);
            ps.setObject(2, fixed);
            ps.executeUpdate();
        }
        try (PreparedStatement ps = conn.prepareStatement(
                 "SELECT id, id::text, public_id::uuid FROM orders WHERE id = ? AND public_id = ?")) {
            ps.setLong(1, BIG);
            ps.setObject(2, fixed);
            try (ResultSet rs = ps.executeQuery()) {
                boolean ok = rs.next() && rs.getLong(1) == BIG && rs.getString(2).equals("9007199254740993")
                             && rs.getObject(3, UUID.class).equals(fixed);
                check("parameters_exact", ok, "the fixed row was not found or differs");
            }
        }
        try (PreparedStatement ps = conn.prepareStatement(
                 "SELECT item FROM orders WHERE id > ? AND id <= ? ORDER BY id DESC")) {
            ps.setLong(1, keys.get(14));
            ps.setLong(2, keys.get(17));
            List<String> items = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    items.add(rs.getString(1));
                }
            }
            check("compare_order", items.equals(List.of("item17", "item16", "item15")), "items " + items);
        }
    }
}
