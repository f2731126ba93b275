package io.github.countercrdt;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Random;

import io.github.countercrdt.CounterState.Shard;

/** Random states and texts for the tests, and the compact form written as the test reads cc_wire.h. */
final class Gen {
    private Gen() {
    }

    static final String[] POOL = {
        "00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff", "80000000-0000-0000-0000-000000000000",
        "0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90", "7f0cab51-fb72-3e98-bdb4-0404a982865d", "7ddd454a-30ea-3e9a-a5d1-3d0092b783a6",
        "c0ffee00-1234-4abc-8def-0123456789ab",
    };

    /** A seeded generator: COUNTER_CRDT_SEED, else the clock; the seed is printed. */
    static Random rng(String what) {
        long seed = System.nanoTime() % 1000000;
        String env = System.getenv("COUNTER_CRDT_SEED");
        if (env != null && !env.isEmpty()) {
            seed = Long.parseLong(env);
        }
        System.out.println(what + ": seed " + seed);
        return new Random(seed);
    }

    static long between(Random r, long lo, long hi) {
        return lo + Math.floorMod(r.nextLong(), hi - lo + 1);
    }

    static long value(Random r) {
        switch (r.nextInt(10)) {
            case 0:
                return new long[] {Long.MAX_VALUE, Long.MIN_VALUE, Long.MAX_VALUE - 1}[r.nextInt(3)];
            case 1:
                return between(r, -(1L << 61), (1L << 61) - 1);
            default:
                return r.nextInt(201) - 100;
        }
    }

    static List<Integer> perm(Random r, int n) {
        List<Integer> p = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            p.add(i);
        }
        Collections.shuffle(p, r);
        return p;
    }

    /** A state of up to max shards, no fold records. */
    static CounterState plain(Random r, int max) {
        List<Shard> shards = new ArrayList<>();
        for (int i : perm(r, POOL.length).subList(0, r.nextInt(max + 1))) {
            long clock = r.nextInt(5) == 0 ? between(r, 1, 1L << 62) : r.nextInt(4) + 1;
            shards.add(new Shard(POOL[i], clock, value(r)));
        }
        return CounterState.of(shards, List.of());
    }

    /** Shards and fold records as folds make them; the server may still refuse some. */
    static String folded(Random r) {
        List<Integer> perm = perm(r, POOL.length);
        List<Integer> ids = perm.subList(0, 1 + r.nextInt(3));
        java.util.Map<Integer, Long> clocks = new java.util.LinkedHashMap<>();
        for (int i : ids) {
            clocks.put(i, (long) r.nextInt(6) + 1);
        }
        List<Integer> retired = new ArrayList<>(perm.subList(ids.size(), ids.size() + 1 + r.nextInt(2)));
        if (ids.size() > 1 && r.nextInt(3) == 0) {
            retired.add(ids.get(0));
        }
        List<String> folds = new ArrayList<>();
        for (int a : retired) {
            long top = 0;
            for (int k = 0; k < ids.size(); k++) {
                int t = ids.get(k);
                if (t == a || (k > 0 && r.nextInt(2) == 0)) {
                    continue;
                }
                long tclock = between(r, 1, clocks.get(t));
                long aclock = r.nextInt(5) + 1;
                top = Math.max(top, aclock);
                folds.add(String.format("%s > %s:%d:%d:%d:%d", POOL[a].toUpperCase(Locale.ROOT), POOL[t], tclock, aclock, r.nextInt(101), r.nextInt(101)));
            }
            if (clocks.containsKey(a)) {
                clocks.put(a, top + r.nextInt(3));
            }
        }
        List<String> shards = new ArrayList<>();
        clocks.forEach((i, c) -> shards.add(String.format(" %s : %d : %d", POOL[i], c, r.nextInt(250) - 50)));
        String text = "{" + String.join(",", shards) + "}";
        return folds.isEmpty() ? text : text + " folded {" + String.join(", ", folds) + "}";
    }

    /** One damage to a text. */
    static String mutate(String t, Random r) {
        switch (r.nextInt(7)) {
            case 0: {
                int i = r.nextInt(t.length());
                return t.substring(0, i) + t.substring(i + 1);
            }
            case 1: {
                int i = r.nextInt(t.length() + 1);
                return t.substring(0, i) + "{}:,>- 0a9xf+".charAt(r.nextInt(13)) + t.substring(i);
            }
            case 2:
                return t.replaceFirst(":1:", ":0:");
            case 3:
                return t.replaceFirst("}", "99999999999999999999}");
            case 4:
                return t + " x";
            case 5:
                return t.replaceFirst("-", "");
            default:
                return t.replaceFirst("}", "} folded {}");
        }
    }

    /** The bytes of each width code of the compact form. */
    static final int[] WIDTH = {8, 1, 2, 4};

    /** Version 3 of layout lay: each number's low bytes of its width, big-endian. */
    static byte[] compact(int lay, Shard... shards) {
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        b.write(3);
        b.write(lay);
        for (Shard sh : shards) {
            b.writeBytes(hex(sh.id().replace("-", "")));
            long[] n = {sh.clock(), sh.value()};
            for (int k = 0; k < 2; k++) {
                int w = WIDTH[(lay >> (2 * k)) & 3];
                for (int i = w - 1; i >= 0; i--) {
                    b.write((int) (n[k] >>> (8 * i)));
                }
            }
        }
        return b.toByteArray();
    }

    static byte[] hex(String h) {
        byte[] b = new byte[h.length() / 2];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) Integer.parseInt(h.substring(2 * i, 2 * i + 2), 16);
        }
        return b;
    }

    static String hex(byte[] b) {
        StringBuilder s = new StringBuilder();
        for (byte x : b) {
            s.append(String.format("%02x", x & 0xff));
        }
        return s.toString();
    }

    /** What the client makes of bytes: "accepted TEXT" or "refused 22P03: DETAIL". */
    static String clientRecv(byte[] b) {
        try {
            return "accepted " + CounterState.fromBinary(b);
        } catch (CounterStateException e) {
            return "refused 22P03: " + e.getDetail();
        }
    }
}
