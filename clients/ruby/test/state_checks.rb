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
      "refused #{e.result&.error_field(PG::PG_DIAG_SQLSTATE)}: #{e.result&.error_field(PG::PG_DIAG_MESSAGE_DETAIL)}"
    end
    client = begin
      CounterCrdt::State.from_binary(bytes).to_s
    rescue CounterCrdt::ParseError => e
      "refused 22P03: #{e.message}"
    end
    kinds[server.start_with?("refused") ? "refused" : "accepted"] += 1
    bad << "#{bytes.unpack1('H*')}: server #{server}, client #{client}" if server != client
  end
end
check(bad.empty? && kinds["refused"] > 100, "damaged binary values: the client refuses what the server's recv refuses (22P03, the same detail), reads the rest alike (#{kinds.sort.map { |k, v| "#{k} #{v}" }.join(', ')})",
      bad.first(5).join("\n# "))

# --- the compact binary form (version 3) ----------------------------------------
# With counter_crdt.binary_format = 'compact' (since 1.12) the server sends a
# live value without fold records as version 3, in the narrowest layout that
# holds its shards; a tombstone and a value with fold records stay versions
# 1 and 2.  from_binary reads them all as their text.
conn.exec("SET counter_crdt.binary_format = 'compact'")
V3_IDS = ["0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90", "7f0cab51-fb72-3e98-bdb4-0404a982865d",
          "80000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff"].freeze
WIDTH_CODE = { 8 => 0, 1 => 1, 2 => 2, 4 => 3 }.freeze
# the numbers that need each width: the smallest and the largest
CLOCK_EDGES = { 1 => [1, 255], 2 => [256, 65_535], 4 => [65_536, 2**32 - 1], 8 => [2**32, 2**63 - 1] }.freeze
VALUE_EDGES = { 1 => [-128, 127, 0, -1], 2 => [-129, 128, -32_768, 32_767],
                4 => [-32_769, 32_768, -2**31, 2**31 - 1], 8 => [-2**31 - 1, 2**31, -2**63, 2**63 - 1] }.freeze
def layout(cw, vw)
  WIDTH_CODE[cw] | WIDTH_CODE[vw] << 2
end

# [text, the first bytes the server must send]
v3_cases = [["{}", [3, 0x05].pack("CC")]]
CLOCK_EDGES.each do |cw, clocks|
  clocks.each { |c| v3_cases << ["{#{V3_IDS[1]}:#{c}:0}", [3, layout(cw, 1)].pack("CC")] }
  VALUE_EDGES.each do |vw, values|
    shards = values.each_with_index.map { |v, i| "#{V3_IDS[i]}:#{clocks[i % 2]}:#{v}" }
    v3_cases << ["{#{shards.join(', ')}}", [3, layout(cw, vw)].pack("CC")]
  end
end
VALUE_EDGES.each do |vw, values|
  values.each { |v| v3_cases << ["{#{V3_IDS[2]}:1:#{v}}", [3, layout(1, vw)].pack("CC")] }
end
v3_cases << ["tombstone", [1, 1, 0].pack("CCN")]
v3_cases << [texts.find { |t| t.start_with?("{#{FF[0]}:4:110} folded") }, [2, 0].pack("CC")]

bad = []
layouts = Hash.new(0)
v3_cases.each do |text, head|
  r = conn.exec_params("SELECT $1::counter_crdt, counter_crdt_send($1::counter_crdt), $1::counter_crdt::text, $1::counter_crdt::bigint::text",
                       [text], 1).values.first
  bytes, sent, server_text, server_value = r
  server_text = server_text.force_encoding("UTF-8")
  layouts[bytes.getbyte(1)] += 1 if bytes.getbyte(0) == 3
  bad << "#{text}: the binary result differs from counter_crdt_send" if bytes != sent
  bad << "#{text}: sent as #{bytes[0, head.size].unpack1('H*')}, not #{head.unpack1('H*')}" if bytes[0, head.size] != head
  state = begin
    CounterCrdt::State.from_binary(bytes)
  rescue CounterCrdt::ParseError => e
    bad << "#{text}: from_binary(#{bytes.unpack1('H*')}) refuses: #{e.message}"
    next
  end
  bad << "#{text}: from_binary(#{bytes.unpack1('H*')}) reads #{state}, the server's text is #{server_text}" if state.to_s != server_text
  value = begin
    state.value&.to_s
  rescue CounterCrdt::RangeError => e
    e.message
  end
  bad << "#{text}: from_binary's value #{value.inspect}, the server's #{server_value.inspect}" if value != server_value
end
check(bad.empty? && layouts.size == 16,
      "binary_format compact: #{v3_cases.size} values (clock widths 1/2/4/8 x value widths 1/2/4/8 at their edges, {}, a tombstone, a folded value): " \
      "version 3 in the narrowest layout (#{layouts.size} of 16 layouts), versions 1 and 2 for the tombstone and the folded value; from_binary reads each as its text and value",
      bad.first(5).join("\n# "))

bad = []
versions = Hash.new(0)
compact = []
states.uniq.each do |s|
  bytes = conn.exec_params("SELECT $1::counter_crdt", [s.to_s], 1).getvalue(0, 0)
  versions[bytes.getbyte(0)] += 1
  compact << bytes if bytes.getbyte(0) == 3
  want = s.tombstone? ? 1 : s.folded? ? 2 : 3
  bad << "#{s}: sent as version #{bytes.getbyte(0)}, not #{want}" if bytes.getbyte(0) != want
  back = begin
    CounterCrdt::State.from_binary(bytes)
  rescue CounterCrdt::ParseError => e
    e.message
  end
  bad << "#{s}: from_binary(#{bytes.unpack1('H*')}) gives #{back}" if back != s
end
check(bad.empty? && versions[3] > 40 && versions[2] > 20,
      "binary_format compact: #{states.uniq.size} random states read back from the server's binary results (#{versions.sort.map { |k, v| "version #{k}: #{v}" }.join(', ')})",
      bad.first(5).join("\n# "))

# through ruby-pg: binary results (result_format 1) of a connection with the
# gem's coders, and of PG::BasicTypeMapForResults with its registry
conn3 = PG.connect
conn3.exec("SET counter_crdt.binary_format = 'compact'")
conn3.exec("CREATE TEMP TABLE v3_t (k int PRIMARY KEY, c counter_crdt)")
v3_cases.each_with_index { |(text, _), k| conn3.exec_params("INSERT INTO v3_t VALUES ($1, $2)", [k, text]) }
sql = "SELECT c, c::text AS t, counter_crdt_send(c) AS b FROM v3_t ORDER BY k"
bad = []
# a row the decoder refuses raises from to_a: a row of its message instead
def decoded_rows(conn, sql)
  conn.exec_params(sql, [], 1).to_a
rescue CounterCrdt::ParseError => e
  [{ "c" => e.message, "t" => "(to_a raised)", "b" => "" }]
end
CounterCrdt::PG.register(conn3)
rows = decoded_rows(conn3, sql)
conn4 = PG.connect
conn4.exec("SET counter_crdt.binary_format = 'compact'")
conn4.type_map_for_results = PG::BasicTypeMapForResults.new(conn4, registry: CounterCrdt::PG.register_types(PG::BasicTypeRegistry.new.register_default_types))
rows4 = decoded_rows(conn4, sql.sub("v3_t", "(VALUES #{v3_cases.each_with_index.map { |(t, _), k| "(#{k}, '#{t}'::counter_crdt)" }.join(', ')}) AS v (k, c)"))
[["register", rows], ["BasicTypeMapForResults", rows4]].each do |how, rs|
  bad << "#{how}: #{rs.size} rows" if rs.size != v3_cases.size
  rs.each do |row|
    text = row["t"].b.force_encoding("UTF-8")
    unless row["c"].is_a?(CounterCrdt::State) && row["c"] == CounterCrdt::State.parse(text)
      bad << "#{how}: #{text} decodes to #{row['c'].inspect}"
      next
    end
    want = text == "tombstone" ? 1 : text.include?("folded") ? 2 : 3
    bad << "#{how}: #{text} was sent as version #{row['b'].getbyte(0)}, not #{want}" if row["b"].b.getbyte(0) != want
  end
end
check(bad.empty?, "binary_format compact, ruby-pg binary results: CounterCrdt::PG.register and PG::BasicTypeMapForResults decode #{v3_cases.size} rows to the State of their text",
      bad.first(5).join("\n# "))
conn3.close
conn4.close

# Bytes of version 3 made by hand and damaged: what the client makes of them
# is what the server's recv makes of them, the same text or the same refusal
# (22P03) with the same detail.
def server_reads(conn, oid, bytes)
  conn.exec_params("SELECT $1::text", [{ value: bytes, type: oid, format: 1 }]).getvalue(0, 0)
rescue PG::Error => e
  "refused #{e.result&.error_field(PG::PG_DIAG_SQLSTATE)}: #{e.result&.error_field(PG::PG_DIAG_MESSAGE_DETAIL)}"
end

def client_reads(bytes)
  CounterCrdt::State.from_binary(bytes).to_s
rescue CounterCrdt::ParseError => e
  "refused 22P03: #{e.message}"
end

WIDTH_OF = { 0 => 8, 1 => 1, 2 => 2, 3 => 4 }.freeze
CLOCK_PACK = { 1 => "C", 2 => "n", 4 => "N", 8 => "Q>" }.freeze
VALUE_PACK = { 1 => "c", 2 => "s>", 4 => "l>", 8 => "q>" }.freeze
def v3_record(lay, id, clock, value)
  [id.delete("-")].pack("H32") + [clock].pack(CLOCK_PACK[WIDTH_OF[lay & 3]]) + [value].pack(VALUE_PACK[WIDTH_OF[lay >> 2 & 3]])
end

hand = [[3].pack("C"), [3, 0x05].pack("CC"), [3, 0, 0].pack("CCN"), [4].pack("C"),
        [4, 0, 0].pack("CCN"), [0, 0, 0].pack("CCN"), [255, 0, 0].pack("CCN")]
16.times do |lay|
  cw = WIDTH_OF[lay & 3]
  vw = WIDTH_OF[lay >> 2]
  top = cw == 8 ? 2**63 - 1 : 2**(8 * cw) - 1
  low = -2**(8 * vw - 1)
  head = [3, lay].pack("CC")
  good = head + v3_record(lay, V3_IDS[0], 1, -1) + v3_record(lay, V3_IDS[1], top, low) + v3_record(lay, V3_IDS[3], cw == 8 ? 2**62 : 2**(8 * cw - 1), -low - 1)
  hand << good << good[0...-1] << good + "\x00" << good[0, 2 + 16]
  hand << head + v3_record(lay, V3_IDS[0], 0, 5)                                                 # clock 0
  hand << head + v3_record(lay, V3_IDS[0], 1, 5) + v3_record(lay, V3_IDS[1], 0, 5)              # a later clock 0
  hand << head + v3_record(lay, V3_IDS[1], 1, 5) + v3_record(lay, V3_IDS[0], 2, 5)              # descending ids
  hand << head + v3_record(lay, V3_IDS[2], 1, 5) + v3_record(lay, V3_IDS[2], 2, 5)              # one id twice
  [0x10, 0x20, 0x40, 0x80, 0xF0].each { |bit| hand << [3, lay | bit].pack("CC") + good[2..] }     # unknown layout bits
end
[2**63, 2**64 - 1, 2**63 - 1].each do |clock|
  [0x00, 0x0C].each { |lay| hand << [3, lay].pack("CC") + v3_record(lay, V3_IDS[0], clock, 7) }
end

mutated = []
compact.first(150).each do |b|
  mutated << b[0, rng.rand(b.size)] << b + [rng.rand(256)].pack("C") << b[0] + [rng.rand(16)].pack("C") + b[2..]
  mutated << b[0] + [rng.rand(256)].pack("C") + b[2..]
  if b.size > 2
    i = rng.rand(2...b.size)
    mutated << b[0, i] + [rng.rand(256)].pack("C") + b[(i + 1)..]
  end
end

[["hand-made", hand], ["damaged", mutated]].each do |name, cases|
  bad = []
  kinds = Hash.new(0)
  cases.each do |bytes|
    server = server_reads(conn, oid, bytes)
    client = client_reads(bytes)
    kinds[server.start_with?("refused") ? "refused" : "accepted"] += 1
    bad << "#{bytes.unpack1('H*')}: server #{server}, client #{client}" if server != client
  end
  check(bad.empty? && kinds["refused"] > 50 && kinds["accepted"] > 15,
        "#{cases.size} #{name} version 3 values: the client reads them as the server's recv does, the same text or the same refusal and detail (#{kinds.sort.map { |k, v| "#{k} #{v}" }.join(', ')})",
        bad.first(5).join("\n# "))
end
conn.exec("RESET counter_crdt.binary_format")

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
