import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Multithreaded JDBC load driver for the H2 database engine (benchmark workload).
 *
 * The database does the real work; this class only issues SQL through JDBC.
 * Every worker thread owns a disjoint range of customers, so everything it
 * writes and then reads back about its own customers is deterministic and can
 * be verified; the global join/aggregate queries read everybody's data
 * concurrently (MVCC) and are only consumed.
 *
 * Usage: java -cp .:h2.jar H2Load [threads] [customersPerThread] [opsPerThread] [jdbcUrl]
 *
 * On success prints one line
 *   H2LOAD OK threads=T customers=C orders=N amount=A checksum=X
 * and exits 0. Any SQL error or failed self-check exits 1 (or 2 for usage).
 */
public class H2Load {
    static final int ITEMS = 2000;
    static final int REGIONS = 16;
    static final long ORDER_ID_STRIDE = 1_000_000_000L;

    /** Per-thread expectations, compared against the database at the end. */
    static final class Expect {
        long orders;      // live (not deleted) orders of this thread's customers
        long amount;      // sum of their amounts
        long balance;     // sum of this thread's customers' balances
        long checksum;    // mix of deterministic query results
    }

    static int[] itemPrice = new int[ITEMS];
    static int[] itemCategory = new int[ITEMS];

    public static void main(String[] args) throws Exception {
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : 4;
        int customers = args.length > 1 ? Integer.parseInt(args[1]) : 2000;
        int ops = args.length > 2 ? Integer.parseInt(args[2]) : 20000;
        String url = args.length > 3 ? args[3] : "jdbc:h2:mem:h2load;LOCK_TIMEOUT=20000";
        if (threads < 1 || customers < 1 || ops < 0) {
            System.err.println("usage: H2Load [threads] [customersPerThread] [opsPerThread] [jdbcUrl]");
            System.exit(2);
        }
        long t0 = System.nanoTime();
        // Keep this connection open for the whole run: it keeps an in-memory DB alive.
        try (Connection admin = DriverManager.getConnection(url, "sa", "")) {
            setup(admin);
            Expect[] expect = new Expect[threads];
            AtomicReference<Throwable> failure = new AtomicReference<>();
            CountDownLatch start = new CountDownLatch(1);
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                final int id = t;
                expect[t] = new Expect();
                Thread w = new Thread(() -> {
                    try {
                        start.await();
                        work(url, id, customers, ops, expect[id]);
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }, "h2load-worker-" + t);
                workers.add(w);
                w.start();
            }
            start.countDown();
            for (Thread w : workers) {
                w.join();
            }
            if (failure.get() != null) {
                System.err.println("H2LOAD FAILED in worker:");
                failure.get().printStackTrace();
                System.exit(1);
            }
            verify(admin, threads, customers, expect, t0);
        }
    }

    static void setup(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS orders");
            s.execute("DROP TABLE IF EXISTS customer");
            s.execute("DROP TABLE IF EXISTS item");
            s.execute("CREATE TABLE item(id INT PRIMARY KEY, name VARCHAR(40), price INT NOT NULL, category INT NOT NULL)");
            s.execute("CREATE TABLE customer(id INT PRIMARY KEY, name VARCHAR(64) NOT NULL, region INT NOT NULL, balance BIGINT NOT NULL)");
            s.execute("CREATE INDEX customer_region ON customer(region)");
            s.execute("CREATE TABLE orders(id BIGINT PRIMARY KEY, customer_id INT NOT NULL, item_id INT NOT NULL, "
                    + "qty INT NOT NULL, amount BIGINT NOT NULL, status INT NOT NULL, note VARCHAR(80))");
            s.execute("CREATE INDEX orders_customer ON orders(customer_id)");
            s.execute("CREATE INDEX orders_status ON orders(status, customer_id)");
        }
        Random r = new Random(42);
        c.setAutoCommit(false);
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO item VALUES(?, ?, ?, ?)")) {
            for (int i = 0; i < ITEMS; i++) {
                itemPrice[i] = 1 + r.nextInt(500);
                itemCategory[i] = r.nextInt(25);
                ps.setInt(1, i);
                ps.setString(2, "item-" + Integer.toHexString(r.nextInt()));
                ps.setInt(3, itemPrice[i]);
                ps.setInt(4, itemCategory[i]);
                ps.addBatch();
            }
            ps.executeBatch();
        }
        c.commit();
        c.setAutoCommit(true);
    }

    static long mix(long h, long v) {
        h ^= v + 0x9E3779B97F4A7C15L + (h << 6) + (h >>> 2);
        return h;
    }

    static void work(String url, int t, int customers, int ops, Expect e) throws SQLException {
        Random r = new Random(1000L + t);
        int lo = t * customers;
        int hi = lo + customers - 1;
        long[] balance = new long[customers];
        // Orders of this thread's customers that are still live: id -> amount; kept as parallel lists.
        List<long[]> live = new ArrayList<>();   // {orderId, customerId, amount}
        long nextOrder = (long) t * ORDER_ID_STRIDE;
        try (Connection c = DriverManager.getConnection(url, "sa", "")) {
            c.setAutoCommit(false);
            try (PreparedStatement ins = c.prepareStatement("INSERT INTO customer VALUES(?, ?, ?, ?)")) {
                for (int i = 0; i < customers; i++) {
                    balance[i] = 10_000 + r.nextInt(10_000);
                    ins.setInt(1, lo + i);
                    ins.setString(2, "customer-" + (lo + i) + "-" + Long.toString(r.nextLong(), 36));
                    ins.setInt(3, r.nextInt(REGIONS));
                    ins.setLong(4, balance[i]);
                    ins.addBatch();
                    if (i % 200 == 199) {
                        ins.executeBatch();
                        c.commit();
                    }
                }
                ins.executeBatch();
                c.commit();
            }
            PreparedStatement newOrder = c.prepareStatement(
                    "INSERT INTO orders(id, customer_id, item_id, qty, amount, status, note) "
                    + "SELECT ?, ?, id, ?, price * ?, 0, ? FROM item WHERE id = ?");
            PreparedStatement pay = c.prepareStatement("UPDATE customer SET balance = balance - ? WHERE id = ?");
            PreparedStatement byCustomer = c.prepareStatement(
                    "SELECT COUNT(*), COALESCE(SUM(amount), 0), COALESCE(MAX(qty), 0) FROM orders WHERE customer_id = ?");
            PreparedStatement advance = c.prepareStatement(
                    "UPDATE orders SET status = status + 1 WHERE customer_id = ? AND status < 3");
            PreparedStatement rangeJoin = c.prepareStatement(
                    "SELECT i.category, COUNT(*), SUM(o.amount) FROM orders o JOIN item i ON o.item_id = i.id "
                    + "WHERE o.customer_id BETWEEN ? AND ? GROUP BY i.category ORDER BY i.category");
            PreparedStatement cancel = c.prepareStatement("DELETE FROM orders WHERE id = ?");
            PreparedStatement refund = c.prepareStatement("UPDATE customer SET balance = balance + ? WHERE id = ?");
            PreparedStatement global = c.prepareStatement(
                    "SELECT c.region, COUNT(*), SUM(o.amount), AVG(o.qty) FROM customer c JOIN orders o ON o.customer_id = c.id "
                    + "WHERE o.status >= ? GROUP BY c.region ORDER BY 3 DESC LIMIT 5");
            PreparedStatement topCustomers = c.prepareStatement(
                    "SELECT id, balance FROM customer WHERE region = ? AND id BETWEEN ? AND ? ORDER BY balance, id LIMIT 10");
            for (int op = 0; op < ops; op++) {
                int k = r.nextInt(100);
                int ci = r.nextInt(customers);
                int cust = lo + ci;
                if (k < 40) {
                    // new order: insert + pay, one transaction
                    int item = r.nextInt(ITEMS);
                    int qty = 1 + r.nextInt(9);
                    long amount = (long) itemPrice[item] * qty;
                    long oid = nextOrder++;
                    newOrder.setLong(1, oid);
                    newOrder.setInt(2, cust);
                    newOrder.setInt(3, qty);
                    newOrder.setInt(4, qty);
                    newOrder.setString(5, "order " + oid + " of " + cust);
                    newOrder.setInt(6, item);
                    if (newOrder.executeUpdate() != 1) {
                        throw new IllegalStateException("insert failed for order " + oid);
                    }
                    pay.setLong(1, amount);
                    pay.setInt(2, cust);
                    pay.executeUpdate();
                    c.commit();
                    balance[ci] -= amount;
                    live.add(new long[] {oid, cust, amount});
                    e.orders++;
                    e.amount += amount;
                } else if (k < 70) {
                    // indexed point query on own customer: deterministic
                    byCustomer.setInt(1, cust);
                    try (ResultSet rs = byCustomer.executeQuery()) {
                        rs.next();
                        e.checksum = mix(e.checksum, rs.getLong(1) * 31 + rs.getLong(2) * 7 + rs.getLong(3));
                    }
                } else if (k < 80) {
                    advance.setInt(1, cust);
                    e.checksum = mix(e.checksum, advance.executeUpdate());
                    c.commit();
                } else if (k < 88) {
                    // join + aggregate over a slice of own customers: deterministic
                    int from = lo + r.nextInt(customers);
                    int to = Math.min(hi, from + 50);
                    rangeJoin.setInt(1, from);
                    rangeJoin.setInt(2, to);
                    try (ResultSet rs = rangeJoin.executeQuery()) {
                        while (rs.next()) {
                            e.checksum = mix(e.checksum, rs.getInt(1) * 1_000_003L + rs.getLong(2) * 17 + rs.getLong(3));
                        }
                    }
                } else if (k < 93) {
                    if (!live.isEmpty()) {
                        long[] o = live.remove(r.nextInt(live.size()));
                        cancel.setLong(1, o[0]);
                        if (cancel.executeUpdate() != 1) {
                            throw new IllegalStateException("delete failed for order " + o[0]);
                        }
                        refund.setLong(1, o[2]);
                        refund.setInt(2, (int) o[1]);
                        refund.executeUpdate();
                        c.commit();
                        balance[(int) o[1] - lo] += o[2];
                        e.orders--;
                        e.amount -= o[2];
                    }
                } else if (k < 98) {
                    topCustomers.setInt(1, r.nextInt(REGIONS));
                    topCustomers.setInt(2, lo);
                    topCustomers.setInt(3, hi);
                    try (ResultSet rs = topCustomers.executeQuery()) {
                        while (rs.next()) {
                            e.checksum = mix(e.checksum, rs.getInt(1) * 13L + rs.getLong(2));
                        }
                    }
                } else {
                    // global join/aggregate across everybody's (concurrently changing) data
                    global.setInt(1, r.nextInt(3));
                    long sink = 0;
                    try (ResultSet rs = global.executeQuery()) {
                        while (rs.next()) {
                            sink += rs.getLong(2) + rs.getLong(3);
                        }
                    }
                    if (sink < 0) {
                        throw new IllegalStateException("negative aggregate");
                    }
                    c.commit();
                }
            }
            c.commit();
        }
        for (long b : balance) {
            e.balance += b;
        }
    }

    static void verify(Connection c, int threads, int customers, Expect[] expect, long t0) throws SQLException {
        long orders = 0, amount = 0, checksum = 0;
        boolean ok = true;
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT (SELECT COUNT(*) FROM orders WHERE customer_id BETWEEN ? AND ?), "
                + "(SELECT COALESCE(SUM(amount), 0) FROM orders WHERE customer_id BETWEEN ? AND ?), "
                + "(SELECT COALESCE(SUM(balance), 0) FROM customer WHERE id BETWEEN ? AND ?)")) {
            for (int t = 0; t < threads; t++) {
                int lo = t * customers, hi = lo + customers - 1;
                for (int p = 0; p < 3; p++) {
                    ps.setInt(2 * p + 1, lo);
                    ps.setInt(2 * p + 2, hi);
                }
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    Expect e = expect[t];
                    if (rs.getLong(1) != e.orders || rs.getLong(2) != e.amount || rs.getLong(3) != e.balance) {
                        System.err.printf("H2LOAD MISMATCH thread %d: db orders=%d amount=%d balance=%d, "
                                + "expected orders=%d amount=%d balance=%d%n", t, rs.getLong(1), rs.getLong(2),
                                rs.getLong(3), e.orders, e.amount, e.balance);
                        ok = false;
                    }
                    orders += e.orders;
                    amount += e.amount;
                    checksum = mix(checksum, e.checksum);
                    checksum = mix(checksum, e.balance);
                }
            }
        }
        long dbCustomers;
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM customer")) {
            rs.next();
            dbCustomers = rs.getLong(1);
        }
        if (dbCustomers != (long) threads * customers) {
            System.err.println("H2LOAD MISMATCH customers=" + dbCustomers);
            ok = false;
        }
        if (!ok) {
            System.exit(1);
        }
        System.out.printf("H2LOAD OK threads=%d customers=%d orders=%d amount=%d checksum=%016x elapsed=%.2fs%n",
                threads, dbCustomers, orders, amount, checksum, (System.nanoTime() - t0) / 1e9);
    }
}
