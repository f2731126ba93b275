# frozen_string_literal: true

# CounterCrdt::State and the ruby-pg coders against a real server: every
# check prints "ok N - what" or "not ok N - what", then the plan.
# Connects with the PG* environment; COUNTER_CRDT_SEED fixes the random
# states (printed as a comment).
require "counter_crdt"
require "counter_crdt/pg"

$n = 0
$failed = 0
def check(ok, what, detail = nil)
  $n += 1
  $failed += 1 unless ok
  puts "#{ok ? 'ok' : 'not ok'} #{$n} - #{what}"
  puts "# #{detail}" if !ok && detail
  ok
end

seed = (ENV["COUNTER_CRDT_SEED"] || Random.new_seed % 1_000_000).to_i
puts "# seed #{seed}"
rng = Random.new(seed)

conn = PG.connect
conn.exec("SET client_min_messages = warning")
conn.exec("CREATE EXTENSION IF NOT EXISTS counter_crdt")
conn.exec(<<~SQL)
  CREATE OR REPLACE FUNCTION pg_temp.try(input text) RETURNS text LANGUAGE plpgsql AS $$
  DECLARE c counter_crdt; v text;
  BEGIN
    BEGIN c := input::counter_crdt;
    EXCEPTION WHEN OTHERS THEN RETURN 'refused ' || SQLSTATE; END;
    BEGIN v := c::bigint::text;
    EXCEPTION WHEN OTHERS THEN v := 'error ' || SQLSTATE; END;
    RETURN 'accepted ' || coalesce(v, 'null') || ' ' || c::text;
  END $$;
SQL
oid = CounterCrdt::PG.oid(conn)

# What the client makes of a text: the same shape as pg_temp.try's answer.
def client_try(text)
  state = CounterCrdt::State.parse(text)
  value = begin
    state.value.nil? ? "null" : state.value.to_s
  rescue CounterCrdt::RangeError
    "error 22003"
  end
  "accepted #{value} #{state}"
rescue CounterCrdt::ParseError
  "refused 22P02"
end

# --- random states ---------------------------------------------------------
POOL = Array.new(6) { |i| format("%08x-%04x-%04x-%04x-%012x", rng.rand(2**32), rng.rand(2**16), rng.rand(2**16), rng.rand(2**16), rng.rand(2**48)) }
POOL << "00000000-0000-0000-0000-000000000000" << "ffffffff-ffff-ffff-ffff-ffffffffffff" << "80000000-0000-0000-0000-000000000000"

def rand_value(rng)
  case rng.rand(10)
  when 0 then [CounterCrdt::State::INT64_MAX, CounterCrdt::State::INT64_MIN, CounterCrdt::State::INT64_MAX - rng.rand(3)].sample(random: rng)
  when 1 then rng.rand(-2**62..2**62)
  else rng.rand(-100..100)
  end
end

def rand_plain(rng, max = 4)
  ids = POOL.sample(rng.rand(0..max), random: rng)
  CounterCrdt::State.new(ids.map { |id| [id, rng.rand(5).zero? ? rng.rand(1..2**62) : rng.rand(1..4), rand_value(rng)] })
end

# shards and fold records in the way fold records are made (a state the
# server may still refuse: the agreement is checked, not the validity)
def rand_folded_parts(rng)
  ids = POOL.sample(rng.rand(1..4), random: rng)
  shards = ids.to_h { |id| [id, [id, rng.rand(1..6), rng.rand(-50..200)]] }
  retired = (POOL - ids).sample(rng.rand(1..2), random: rng)
  retired << ids.first if ids.size > 1 && rng.rand(3).zero?
  folds = []
  retired.uniq.each do |a|
    targets = (ids - [a]).sample(rng.rand(1..2), random: rng)
    targets = (POOL - [a]).sample(1, random: rng) if targets.empty?
    targets.each do |t|
      tclock = shards[t] ? rng.rand(1..shards[t][1]) : rng.rand(1..3)
      folds << [a, t, tclock, rng.rand(1..5), rng.rand(0..100), rng.rand(0..100)]
    end
    if shards[a]
      top = folds.select { |f| f[0] == a }.map { |f| f[3] }.max
      shards[a][1] = top + rng.rand(0..2)   # 0: a shard the records have seen (refused)
    end
  end
  [shards.values, folds]
end

def text_of(shards, folds, tombstone: false)
  return "tombstone" if tombstone
  t = "{" + shards.map { |s| s.join(":") }.join(", ") + "}"
  t += " folded {" + folds.map { |f| "#{f[0]}>#{f[1]}:#{f[2..].join(':')}" }.join(", ") + "}" unless folds.empty?
  t
end

# The same value spelled as a user may: spaces, letter case, order, signs.
def messy(rng, shards, folds)
  sp = -> { [" ", "", "\t", "\n ", "  "].sample(random: rng) }
  id = ->(x) { rng.rand(2).zero? ? x.upcase : x }
  num = ->(x) { x >= 0 && rng.rand(4).zero? ? "+0#{x}" : x.to_s }
  t = "#{sp.call}{#{sp.call}" + shards.shuffle(random: rng).map { |s|
    "#{id.call(s[0])}#{sp.call}:#{sp.call}#{num.call(s[1])}#{sp.call}:#{sp.call}#{num.call(s[2])}"
  }.join("#{sp.call},#{sp.call}") + "#{sp.call}}"
  unless folds.empty?
    t += "#{sp.call} #{%w[folded FOLDED Folded].sample(random: rng)}#{sp.call}{" + folds.shuffle(random: rng).map { |f|
      "#{id.call(f[0])}#{sp.call}>#{sp.call}#{id.call(f[1])}#{sp.call}:" + f[2..].map { |x| num.call(x) }.join("#{sp.call}:#{sp.call}")
    }.join(", ") + "}"
  end
  t + sp.call
end

MUTATIONS = [
  ->(t, r) { i = r.rand(t.size); t[0...i] + t[(i + 1)..] },
  ->(t, r) { i = r.rand(t.size + 1); t[0...i] + "{}:,>- 0a9xf+".chars.sample(random: r) + t[i..] },
  ->(t, r) { t.sub(/:\d+:/, ":0:") },
  ->(t, r) { t.sub(/-?\d+\}/, "99999999999999999999}") },
  ->(t, r) { t.sub(/:(-?\d+)([,}])/, ':-9223372036854775809\2') },
  ->(t, r) { t.sub(/\{([^{}]+?)(,|\})/) { "{#{$1}, #{$1}#{$2}" } },
  ->(t, r) { t + " x" },
  ->(t, r) { t.sub("-", "") },
  ->(t, r) { t.sub("}", "} folded {}") },
  ->(t, r) { "tombstone folded {}" },
]

texts = ["{}", "tombstone", " TombStone ", "{ }", "", "{", "0", "5", "{}x"]
120.times do
  s = rand_plain(rng)
  parts = [s.shards.map(&:to_a), []]
  texts << s.to_s << messy(rng, *parts)
  texts << MUTATIONS.sample(random: rng).call(s.to_s.dup, rng) unless s.shards.empty?
end
120.times do
  shards, folds = rand_folded_parts(rng)
  texts << text_of(shards, folds) << messy(rng, shards, folds)
  texts << MUTATIONS.sample(random: rng).call(text_of(shards, folds), rng)
end
# the values of sql/fold_forms.sql
FF = ["7fffffff-ffff-ffff-ffff-ffffffffffff", "80000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff"].freeze
texts << "{#{FF[0]}:4:110} folded {#{FF[1]}>#{FF[0]}:4:5:100:100}"
texts << "{#{FF[0]}:5:300} folded {#{FF[2]}>#{FF[0]}:5:2:200:200, #{FF[1]}>#{FF[0]}:4:5:100:100}"
texts << "{#{FF[0]}:4:50} folded {#{FF[1]}>#{FF[0]}:4:5:100:50}"
texts << "{#{FF[0]}:4:110, #{FF[1]}:6:103} folded {#{FF[1]}>#{FF[0]}:4:5:100:100}"
texts << "{#{FF[0]}:1:9223372036854775807, #{FF[2]}:1:10} folded {#{FF[1]}>#{FF[0]}:1:1:-20:0}"
texts << "{#{FF[0]}:1:9223372036854775807} folded {#{FF[1]}>#{FF[0]}:1:1:9223372036854775807:0}"

kinds = Hash.new(0)
bad = []
states = []
texts.each do |text|
  server = conn.exec_params("SELECT pg_temp.try($1)", [text]).getvalue(0, 0)
  client = client_try(text)
  kinds[server.split.first] += 1
  kinds["folded"] += 1 if server.include?(" folded {")
  kinds["value out of range"] += 1 if server.include?("error 22003")
  bad << "#{text.inspect}: server #{server.inspect}, client #{client.inspect}" if server != client
  states << CounterCrdt::State.parse(text) if server.start_with?("accepted")
end
check(bad.empty?, "#{texts.size} texts: the client accepts what the server accepts, with the same canonical text and value (#{kinds.sort.map { |k, v| "#{k} #{v}" }.join(', ')})",
      bad.first(5).join("\n# "))
check(kinds["accepted"] > 200 && kinds["refused"] > 60 && kinds["folded"] > 40 && kinds["value out of range"] > 0,
      "the random texts hold accepted, refused, folded and out-of-range values")

# --- binary form -------------------------------------------------------------
bad = []
states.uniq.each do |s|
  bytes = conn.exec_params("SELECT $1::counter_crdt", [s.to_s], 1).getvalue(0, 0)
  bad << "#{s}: to_binary differs from the server's send" if bytes != s.to_binary
  back = CounterCrdt::State.from_binary(bytes)
  bad << "#{s}: from_binary gives #{back}" if back != s
  text = conn.exec_params("SELECT $1::text", [{ value: s.to_binary, type: oid, format: 1 }]).getvalue(0, 0)
  bad << "#{s}: the server reads the client's binary as #{text}" if text != s.to_s
end
check(bad.empty?, "#{states.uniq.size} states: binary form equal to the server's send, read back, and read by the server's recv", bad.first(5).join("\n# "))

bad = []
kinds = Hash.new(0)
states.uniq.first(150).each do |s|
  b = s.to_binary
  cases = [b[0, rng.rand(b.size)], [3].pack("C") + b[1..], b[0] + [2 | b.getbyte(1)].pack("C") + b[2..], b + "x",
           b[0, 2] + [b[2, 4].unpack1("N") + 1].pack("N") + b[6..]]
  if s.shards.size >= 2
    cases << b[0, 6] + b[38, 32] + b[6, 32] + b[70..]                          # two shards swapped
    cases << b[0, 6] + b[6, 16] + [0].pack("q>") + b[30..]                    # clock 0
  end
  cases << [1, 1, 0].pack("CCN") + b[6..] if !s.tombstone? && !s.shards.empty? && !s.folded?  # a tombstone with shards
  cases.each do |bytes|
    server = begin
      conn.exec_params("SELECT $1::text", [{ value: bytes, type: oid, format: 1 }]).getvalue(0, 0)
    rescue PG::Error => e
      "refused #{e.result&.error_field(PG::PG_DIAG_SQLSTATE)}"
    end
    client = begin
      CounterCrdt::State.from_binary(bytes).to_s
    rescue CounterCrdt::ParseError
      "refused 22P03"
    end
    kinds[server.start_with?("refused") ? "refused" : "accepted"] += 1
    bad << "#{bytes.unpack1('H*')}: server #{server}, client #{client}" if server != client
  end
end
check(bad.empty? && kinds["refused"] > 100, "damaged binary values: the client refuses what the server's recv refuses (22P03), reads the rest alike (#{kinds.sort.map { |k, v| "#{k} #{v}" }.join(', ')})",
      bad.first(5).join("\n# "))

# --- merge -------------------------------------------------------------------
bad = []
300.times do
  a = rand_plain(rng, 5)
  b = rng.rand(8).zero? ? CounterCrdt::State.tombstone : rand_plain(rng, 5)
  # equal clocks with other values, so that the value breaks the tie
  b = CounterCrdt::State.new(b.shards.map { |s| [s.id, a[s.id] ? a[s.id].clock : s.clock, s.value] }) unless b.tombstone?
  a, b = b, a if rng.rand(2).zero?
  server = conn.exec_params("SELECT counter_crdt_merge($1::counter_crdt, $2::counter_crdt)::text", [a.to_s, b.to_s]).getvalue(0, 0)
  bad << "merge(#{a}, #{b}): server #{server}, client #{a.merge(b)}" if a.merge(b).to_s != server
end
check(bad.empty?, "300 random pairs: merge equals the server's counter_crdt_merge", bad.first(3).join("\n# "))
f = CounterCrdt::State.parse(texts.find { |t| t.start_with?("{#{FF[0]}:4:110} folded") })
refusal = begin
  f.merge(CounterCrdt::State.parse("{#{FF[0]}:5:111}"))
  nil
rescue CounterCrdt::Error => e
  e.message
end
check(refusal&.include?("counter_crdt_merge"), "merging a state with fold records is refused, naming counter_crdt_merge", refusal.inspect)
check(f.merge(CounterCrdt::State.tombstone).tombstone? && CounterCrdt::State.tombstone.merge(f).tombstone?,
      "a tombstone absorbs a state with fold records")
check(f.merge(nil) == f, "merge with nil is the identity")

# --- ruby-pg coders ------------------------------------------------------------
conn.exec("DROP TABLE IF EXISTS coder_t; CREATE TABLE coder_t (k int PRIMARY KEY, c counter_crdt)")
conn.exec("INSERT INTO coder_t VALUES (1, NULL::counter_crdt + 5), (2, 'tombstone'), (3, NULL), (4, '#{texts.find { |t| t.start_with?("{#{FF[0]}:4:50}") }}')")
check(CounterCrdt::PG.register(conn) == oid, "CounterCrdt::PG.register returns the type's OID")
rows = conn.exec("SELECT k, c FROM coder_t ORDER BY k").map { |r| r["c"] }
check(rows[0].is_a?(CounterCrdt::State) && rows[0].value == 5 && rows[1].tombstone? && rows[2].nil? && rows[3].value == 100,
      "text results decode to CounterCrdt::State (5, tombstone, NULL, a folded 100)", rows.inspect)
rows = conn.exec_params("SELECT k, c FROM coder_t ORDER BY k", [], 1).map { |r| r["c"] }
check(rows[0].is_a?(CounterCrdt::State) && rows[0].value == 5 && rows[1].tombstone? && rows[2].nil? && rows[3].value == 100,
      "binary results decode to CounterCrdt::State alike", rows.inspect)
extra = CounterCrdt::State.new([["00000000-0000-0000-0000-00000000000a", 1, 1000]])
conn.exec_params("UPDATE coder_t SET c = counter_crdt_merge(c, $1) WHERE k = 1", [extra])
check(conn.exec("SELECT c::bigint AS v FROM coder_t WHERE k = 1").getvalue(0, 0) == "1005",
      "a CounterCrdt::State parameter is sent typed counter_crdt (counter_crdt_merge(c, $1) resolves)")
# a registry by name, for PG::BasicTypeMapForResults
registry = CounterCrdt::PG.register_types(PG::BasicTypeRegistry.new.register_default_types)
conn2 = PG.connect
conn2.type_map_for_results = PG::BasicTypeMapForResults.new(conn2, registry: registry)
row = conn2.exec("SELECT c, c::bigint AS v FROM coder_t WHERE k = 1").first
check(row["c"].is_a?(CounterCrdt::State) && row["c"].value == 1005 && row["v"] == 1005,
      "PG::BasicTypeMapForResults with CounterCrdt::PG.register_types decodes counters and numbers", row.inspect)
conn2.close
conn.exec("DROP TABLE coder_t")
conn.close

puts "1..#{$n}"
exit($failed.zero? ? 0 : 1)
