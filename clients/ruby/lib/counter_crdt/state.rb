# frozen_string_literal: true

module CounterCrdt
  # A bad text or binary form of a counter (the server's 22P02 and 22P03).
  class ParseError < ArgumentError; end

  # A total outside the bigint range (the server's 22003).
  class RangeError < ::RangeError; end

  # An operation that the client leaves to the server (merging values with
  # fold records), or a write that would lose counts.
  class Error < StandardError; end

  # One writer's part of a counter: its id (a lower-case uuid), the number of
  # increments it made (clock) and their sum (value).
  Shard = Struct.new(:id, :clock, :value)

  # A fold record: writer +target+ holds +absorbed+ of retired writer
  # +retired+'s count (see doc/retiring-writers.md).
  Fold = Struct.new(:retired, :target, :tclock, :aclock, :avalue, :absorbed)

  # The value of a counter_crdt column: a set of shards (at most one per
  # writer id), with fold records where writers were retired, or a tombstone
  # (a deleted counter).  Parsed and printed exactly as the server does
  # (doc/contract.md sections 4 and 5); immutable.
  class State
    INT64_MIN = -(2**63)
    INT64_MAX = 2**63 - 1
    SPACE = " \t\n\r\f\v"
    UUID = /\A\h{8}-\h{4}-\h{4}-\h{4}-\h{12}\z/.freeze
    BINARY_VERSION = 1
    BINARY_VERSION_FOLDED = 2
    BINARY_VERSION_COMPACT = 3
    # The compact form's width codes (cc_wire.h): code => [bytes, unpack
    # format of a clock, unpack format of a value].  An 8-byte clock is read
    # as an int64, as the server reads it: 2^63 and more are negative.
    COMPACT_WIDTHS = [[8, "q>", "q>"], [1, "C", "c"], [2, "n", "s>"], [4, "N", "l>"]].freeze
    COMPACT_LAYOUT_MASK = 0x0F

    attr_reader :shards, :folds

    # shards: Shard (or [id, clock, value]) in any order; folds likewise.
    def initialize(shards = [], folds = [], tombstone: false)
      @tombstone = tombstone ? true : false
      @shards = shards.map { |s| s.is_a?(Shard) ? s.dup : Shard.new(*s) }
      @folds = folds.map { |f| f.is_a?(Fold) ? f.dup : Fold.new(*f) }
      @shards.each { |s| s.id = State.normalize_id(s.id) }
      @folds.each { |f| f.retired = State.normalize_id(f.retired); f.target = State.normalize_id(f.target) }
      raise ParseError, "A tombstone has no shards or fold records." if @tombstone && !(@shards.empty? && @folds.empty?)
      @shards.sort_by!(&:id)
      @folds.sort_by! { |f| [f.retired, f.target] }
      @shards.each { |s| s.freeze }
      @folds.each { |f| f.freeze }
      @shards.freeze
      @folds.freeze
      @by_id = @shards.to_h { |s| [s.id, s] }.freeze
      check!
      freeze
    end

    TOMBSTONE_TEXT = "tombstone"

    def self.tombstone
      new([], [], tombstone: true)
    end

    def self.empty
      new
    end

    def self.normalize_id(id)
      s = id.to_s
      raise ParseError, "Invalid writer id #{s.inspect}: expected a uuid such as 7f0cab51-fb72-3e98-bdb4-0404a982865d." unless UUID.match?(s)
      s.downcase
    end

    def tombstone?
      @tombstone
    end

    def folded?
      !@folds.empty?
    end

    # The counter's total: an Integer, or nil for a tombstone.  Raises
    # CounterCrdt::RangeError where the server's c::bigint fails (22003).
    def value
      return nil if @tombstone
      total = @shards.sum(&:value)
      by_retired = @folds.group_by(&:retired)
      by_retired.each do |retired, records|
        unless @by_id.key?(retired)
          latest = records.max_by { |f| [f.aclock, f.avalue] }
          total += latest.avalue
        end
        total -= records.sum(&:absorbed)
      end
      unless total.between?(INT64_MIN, INT64_MAX)
        raise CounterCrdt::RangeError, "The total #{total} of the counter leaves the bigint range."
      end
      total
    end

    # The shard of writer id, or nil.
    def [](id)
      @by_id[State.normalize_id(id)]
    end

    # The replicas' merge (contract 1): a tombstone absorbs everything, else
    # per writer the shard of the higher clock, then the higher value.
    # States with fold records are merged by the server
    # (counter_crdt_merge(a, b)): this raises CounterCrdt::Error for them.
    def merge(other)
      return self if other.nil?
      other = State.parse(other) if other.is_a?(String)
      return self if @tombstone
      return other if other.tombstone?
      if folded? || other.folded?
        raise Error, "States with fold records are merged by the server: SELECT counter_crdt_merge(a, b)."
      end
      by_id = {}
      (@shards + other.shards).each do |s|
        cur = by_id[s.id]
        by_id[s.id] = s if cur.nil? || s.clock > cur.clock || (s.clock == cur.clock && s.value > cur.value)
      end
      State.new(by_id.values)
    end
    alias | merge

    def ==(other)
      other.is_a?(State) && other.tombstone? == @tombstone && other.shards == @shards && other.folds == @folds
    end
    alias eql? ==

    def hash
      [@tombstone, @shards, @folds].hash
    end

    # The canonical text form, as the server prints it.
    def to_s
      return TOMBSTONE_TEXT if @tombstone
      text = +"{" << @shards.map { |s| "#{s.id}:#{s.clock}:#{s.value}" }.join(", ") << "}"
      unless @folds.empty?
        text << " folded {" << @folds.map { |f|
          "#{f.retired}>#{f.target}:#{f.tclock}:#{f.aclock}:#{f.avalue}:#{f.absorbed}"
        }.join(", ") << "}"
      end
      text
    end

    def inspect
      "#<CounterCrdt::State #{self}>"
    end

    # The binary form (the server's send/recv, cc_wire.h): version 1 without
    # fold records, version 2 with them; big-endian.
    def to_binary
      out = [folded? ? BINARY_VERSION_FOLDED : BINARY_VERSION, @tombstone ? 1 : 0, @shards.size].pack("CCN")
      @shards.each { |s| out << [s.id.delete("-")].pack("H32") << [s.clock, s.value].pack("q>q>") }
      unless @folds.empty?
        out << [@folds.size].pack("N")
        @folds.each do |f|
          out << [f.retired.delete("-"), f.target.delete("-")].pack("H32H32")
          out << [f.tclock, f.aclock, f.avalue, f.absorbed].pack("q>q>q>q>")
        end
      end
      out
    end

    # Reads the binary form of any version (1, 2, or 3: the compact form a
    # session with counter_crdt.binary_format = 'compact' is sent, since
    # 1.12), checked as the server's recv checks it.
    def self.from_binary(bytes)
      b = bytes.b
      len = b.bytesize
      return from_compact(b) if len >= 1 && b.getbyte(0) == BINARY_VERSION_COMPACT
      raise ParseError, "The value is #{len} byte#{len == 1 ? '' : 's'} long; the header alone takes 6." if len < 6
      version, flags, count = b.unpack("CCN")
      unless [BINARY_VERSION, BINARY_VERSION_FOLDED].include?(version)
        raise ParseError, "Format version #{version} is not supported; this build reads versions 1, 2 and 3."
      end
      raise ParseError, format("Unknown flag bits 0x%02x are set.", flags & ~1) if flags & ~1 != 0
      tombstone = flags & 1 == 1
      body = len - 6
      if version == BINARY_VERSION
        if body % 32 != 0 || body / 32 != count
          raise ParseError, "The header announces #{count} shard#{count == 1 ? '' : 's'} but #{body} byte#{body == 1 ? '' : 's'} of shard data follow#{body == 1 ? 's' : ''}."
        end
        raise ParseError, "A tombstone has no shards, but #{count} #{count == 1 ? 'is' : 'are'} present." if tombstone && count != 0
        nf = 0
      else
        raise ParseError, "A tombstone has no fold records, but format version 2 is for values with them." if tombstone
        if body / 32 < count || body - count * 32 < 4
          raise ParseError, "The header announces #{count} shard#{count == 1 ? '' : 's'} but the value ends before its fold record count (#{body} byte#{body == 1 ? '' : 's'} after the header)."
        end
        rest = body - count * 32 - 4
        nf = b.byteslice(6 + count * 32, 4).unpack1("N")
        raise ParseError, "The fold record count is 0; format version 2 is for values with fold records." if nf.zero?
        if rest % 64 != 0 || rest / 64 != nf
          raise ParseError, "The value announces #{nf} fold record#{nf == 1 ? '' : 's'} but #{rest} byte#{rest == 1 ? '' : 's'} of record data follow#{rest == 1 ? 's' : ''}."
        end
      end
      shards = Array.new(count) do |i|
        hex, clock, value = b.byteslice(6 + i * 32, 32).unpack("H32q>q>")
        Shard.new(format_id(hex), clock, value)
      end
      check_canonical(shards)
      at = 6 + count * 32 + 4
      folds = Array.new(nf) do |i|
        r, t, *nums = b.byteslice(at + i * 64, 64).unpack("H32H32q>q>q>q>")
        Fold.new(format_id(r), format_id(t), *nums)
      end
      folds.each_cons(2) do |x, y|
        cmp = [x.retired, x.target] <=> [y.retired, y.target]
        next if cmp.negative?
        raise ParseError, "Fold record #{y.retired}>#{y.target} #{cmp.zero? ? 'appears more than once' : 'is out of ascending (retired, target) order'}."
      end
      new(shards, folds, tombstone: tombstone)
    end

    # Version 3 (cc_wire.h): a layout byte (clock width code in bits 0-1,
    # value width code in bits 2-3, other bits zero), then records of id,
    # clock (unsigned) and value (two's complement) of those widths, as many
    # as the length holds exactly; a live value without fold records.
    def self.from_compact(b)
      len = b.bytesize
      raise ParseError, "The value is #{len} byte#{len == 1 ? '' : 's'} long; the header of format version 3 takes 2." if len < 2
      lay = b.getbyte(1)
      raise ParseError, format("Unknown layout bits 0x%02x are set.", lay & ~COMPACT_LAYOUT_MASK) if lay & ~COMPACT_LAYOUT_MASK != 0
      cw, clock_format, = COMPACT_WIDTHS[lay & 3]
      vw, _, value_format = COMPACT_WIDTHS[(lay >> 2) & 3]
      size = 16 + cw + vw
      body = len - 2
      if body % size != 0
        raise ParseError, format("%d byte%s of shard data %s not a whole number of %d-byte records (layout 0x%02x).",
                                 body, body == 1 ? "" : "s", body == 1 ? "is" : "are", size, lay)
      end
      shards = Array.new(body / size) do |i|
        at = 2 + i * size
        hex = b.byteslice(at, 16).unpack1("H32")
        clock = b.byteslice(at + 16, cw).unpack1(clock_format)
        value = b.byteslice(at + 16 + cw, vw).unpack1(value_format)
        Shard.new(format_id(hex), clock, value)
      end
      check_canonical(shards)
      new(shards)
    end

    def self.format_id(hex)
      "#{hex[0, 8]}-#{hex[8, 4]}-#{hex[12, 4]}-#{hex[16, 4]}-#{hex[20, 12]}"
    end

    # Shards as they lie (ascending ids, clocks >= 1), as cc_check_canonical.
    def self.check_canonical(shards)
      shards.each_with_index do |s, i|
        raise ParseError, "Writer #{s.id} has clock #{s.clock}; clocks start at 1." if s.clock < 1
        next if i.zero?
        cmp = shards[i - 1].id <=> s.id
        next if cmp.negative?
        raise ParseError, "Writer #{s.id} #{cmp.zero? ? 'appears more than once' : 'is out of ascending order'}."
      end
    end

    # Parses the text form as the server's input function does (contract 4):
    # white space around every token, ids in any letter case and any order.
    def self.parse(text)
      Parser.new(text.to_s).parse
    end

    private

    # The checks of the server on a state: canonical shards, and fold records
    # in agreement with them (cc_fold_check).
    def check!
      [@shards.map(&:clock), @shards.map(&:value), *@folds.map { |f| [f.tclock, f.aclock, f.avalue, f.absorbed] }].flatten.each do |n|
        raise ParseError, "#{n.inspect} is not a bigint." unless n.is_a?(Integer) && n.between?(INT64_MIN, INT64_MAX)
      end
      State.check_canonical(@shards)
      @folds.each_with_index do |f, i|
        name = "#{f.retired}>#{f.target}"
        raise ParseError, "Fold record #{name} names one writer as retired and target." if f.retired == f.target
        if f.tclock < 1 || f.aclock < 1
          which = f.tclock < 1 ? "tclock" : "aclock"
          raise ParseError, "Fold record #{name} has #{which} #{f.tclock < 1 ? f.tclock : f.aclock}; clocks start at 1."
        end
        next if i.zero?
        prev = @folds[i - 1]
        if [prev.retired, prev.target] == [f.retired, f.target]
          raise ParseError, "Fold record #{name} appears more than once."
        end
      end
      retired = @folds.to_h { |f| [f.retired, true] }
      @folds.group_by(&:retired).each do |a, records|
        aclock = records.max_by { |f| [f.aclock, f.avalue] }.aclock
        shard = self[a]
        if shard && shard.clock <= aclock
          raise ParseError, "Retired writer #{a} keeps its shard of clock #{shard.clock}, which its fold records have seen (aclock #{aclock})."
        end
        records.each do |f|
          next if retired.key?(f.target)
          t = self[f.target]
          raise ParseError, "The target of fold record #{f.retired}>#{f.target} has no shard." unless t
          if t.clock < f.tclock
            raise ParseError, "Fold record #{f.retired}>#{f.target} has tclock #{f.tclock}, newer than its target's shard (clock #{t.clock})."
          end
        end
      end
    end

    # The grammar of src/core/cc_text.c.
    class Parser
      def initialize(str)
        @s = str.b
        @pos = 0
      end

      def parse
        skip_space
        shards = []
        folds = []
        tombstone = false
        if @pos < @s.length && (@s[@pos] == "t" || @s[@pos] == "T")
          syntax('Expected "{" or "tombstone"') unless @s[@pos, 9].downcase == "tombstone"
          @pos += 9
          tombstone = true
        else
          syntax('Expected "{" or "tombstone"') unless @s[@pos] == "{"
          @pos += 1
          skip_space
          if @s[@pos] == "}"
            @pos += 1
          else
            loop do
              id = parse_id("a writer id")
              expect(":", "after a writer id")
              clock = parse_int("clock", "writer #{id}")
              expect(":", "after a clock")
              value = parse_int("value", "writer #{id}")
              raise ParseError, "Writer #{id} has clock #{clock}; clocks start at 1." if clock < 1
              shards << Shard.new(id, clock, value)
              skip_space
              if @s[@pos] == ","
                @pos += 1
                skip_space
                next
              end
              if @s[@pos] == "}"
                @pos += 1
                break
              end
              syntax('Expected "," or "}" after a shard')
            end
          end
        end
        skip_space
        if @pos < @s.length && @s[@pos, 6].downcase == "folded"
          at = @pos
          @pos += 6
          raise ParseError, "A tombstone has no fold records, found \"folded\" at position #{at + 1}." if tombstone
          folds = parse_folds
          skip_space
        end
        syntax("Expected end of input") if @pos < @s.length
        shards.sort_by!(&:id)
        State.check_canonical(shards)
        State.new(shards, folds, tombstone: tombstone)
      end

      private

      def parse_folds
        skip_space
        syntax('Expected "{" after "folded"') unless @s[@pos] == "{"
        @pos += 1
        skip_space
        syntax('Expected a fold record: a value without fold records has no "folded" part') if @s[@pos] == "}"
        folds = []
        loop do
          r = parse_id("the retired writer id of a fold record")
          expect(">", "after the retired writer id of a fold record")
          t = parse_id("the target writer id of a fold record")
          expect(":", "after the target writer id of a fold record")
          owner = "fold record #{r}>#{t}"
          tclock = parse_int("tclock", owner)
          expect(":", "after a tclock")
          aclock = parse_int("aclock", owner)
          expect(":", "after an aclock")
          avalue = parse_int("avalue", owner)
          expect(":", "after an avalue")
          absorbed = parse_int("absorbed", owner)
          folds << Fold.new(r, t, tclock, aclock, avalue, absorbed)
          skip_space
          if @s[@pos] == ","
            @pos += 1
            skip_space
            next
          end
          if @s[@pos] == "}"
            @pos += 1
            break
          end
          syntax('Expected "," or "}" after a fold record')
        end
        folds
      end

      def skip_space
        @pos += 1 while @pos < @s.length && SPACE.include?(@s[@pos])
      end

      def expect(char, context)
        skip_space
        syntax("Expected \"#{char}\" #{context}") unless @s[@pos] == char
        @pos += 1
        skip_space
      end

      def parse_id(what)
        start = @pos
        @pos = @s.index(/[^0-9a-fA-F-]/, @pos) || @s.length
        if @pos == start
          syntax("Expected #{what}")
        end
        text = @s[start...@pos]
        unless UUID.match?(text)
          shown = text.length > 40 ? "#{text[0, 40]}..." : text
          raise ParseError, "Invalid writer id \"#{shown}\" at position #{start + 1}: expected a uuid such as 7f0cab51-fb72-3e98-bdb4-0404a982865d."
        end
        text.downcase
      end

      def parse_int(what, owner)
        start = @pos
        @pos += 1 if @s[@pos] == "+" || @s[@pos] == "-"
        syntax("Expected the #{what} of #{owner} as a whole number") unless @s[@pos]&.match?(/[0-9]/)
        @pos = @s.index(/[^0-9]/, @pos) || @s.length
        n = Integer(@s[start...@pos], 10)
        unless n.between?(INT64_MIN, INT64_MAX)
          text = @s[start...@pos]
          shown = text.length > 40 ? "#{text[0, 40]}..." : text
          raise ParseError, "The #{what} \"#{shown}\" of #{owner} is out of range for type bigint."
        end
        n
      end

      def syntax(expected)
        found = if @pos >= @s.length
                  ", found end of input."
                else
                  quote = @s[@pos, 16][/\A[\x20-\x7e]*/]
                  if quote.empty?
                    format(", found byte 0x%02x at position %d.", @s[@pos].ord & 0xff, @pos + 1)
                  else
                    ", found \"#{quote}#{@pos + quote.length < @s.length ? '...' : ''}\" at position #{@pos + 1}."
                  end
                end
        raise ParseError, expected + found
      end
    end
  end
end
