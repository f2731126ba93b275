# frozen_string_literal: true

require "pg"
require "counter_crdt"

module CounterCrdt
  # Coders for ruby-pg: results of type counter_crdt read as
  # CounterCrdt::State, in text or binary format, and States sent as
  # parameters typed counter_crdt.
  #
  #   CounterCrdt::PG.register(conn)        # by the type's OID, on this connection
  #   registry = PG::BasicTypeRegistry.new.register_default_types
  #   CounterCrdt::PG.register_types(registry)   # by name, for PG::BasicTypeMapFor*
  module PG
    class TextDecoder < ::PG::SimpleDecoder
      def decode(string, _tuple = nil, _field = nil)
        State.parse(string)
      end
    end

    class BinaryDecoder < ::PG::SimpleDecoder
      def decode(bytes, _tuple = nil, _field = nil)
        State.from_binary(bytes)
      end
    end

    class TextEncoder < ::PG::SimpleEncoder
      def encode(value)
        (value.is_a?(State) ? value : State.parse(value.to_s)).to_s
      end
    end

    class BinaryEncoder < ::PG::SimpleEncoder
      def encode(value)
        (value.is_a?(State) ? value : State.parse(value.to_s)).to_binary
      end
    end

    # The OID of type counter_crdt in conn's database (nil without the extension).
    def self.oid(conn)
      value = conn.exec("SELECT to_regtype('counter_crdt')::oid").getvalue(0, 0)
      value&.to_i
    end

    # Adds the decoders to conn's result type map (a PG::TypeMapByOid, such
    # as PG::BasicTypeMapForResults; a new one in front of any other map)
    # and the text encoder of CounterCrdt::State to its query type map (a
    # PG::TypeMapByClass, such as PG::BasicTypeMapForQueries; a new one if
    # there is none).  Returns the OID.
    def self.register(conn)
      oid = self.oid(conn) or raise Error, "type counter_crdt does not exist: CREATE EXTENSION counter_crdt"
      results = conn.type_map_for_results
      unless results.is_a?(::PG::TypeMapByOid)
        fallback = results
        results = ::PG::TypeMapByOid.new
        results.default_type_map = fallback
      end
      results.add_coder(TextDecoder.new(oid: oid, name: "counter_crdt", format: 0))
      results.add_coder(BinaryDecoder.new(oid: oid, name: "counter_crdt", format: 1))
      conn.type_map_for_results = results
      queries = conn.type_map_for_queries
      unless queries.is_a?(::PG::TypeMapByClass)
        fallback = queries
        queries = ::PG::TypeMapByClass.new
        queries.default_type_map = fallback
      end
      queries[State] = TextEncoder.new(oid: oid, name: "counter_crdt", format: 0)
      conn.type_map_for_queries = queries
      oid
    end

    # Registers the coders by name in a PG::BasicTypeRegistry.
    def self.register_types(registry)
      registry.register_type(0, "counter_crdt", TextEncoder, TextDecoder)
      registry.register_type(1, "counter_crdt", BinaryEncoder, BinaryDecoder)
      registry
    end
  end
end
