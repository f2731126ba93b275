# frozen_string_literal: true

require "active_record"
require "active_record/connection_adapters/postgresql_adapter"
require "counter_crdt"

module CounterCrdt
  # What a counter_crdt attribute reads as: its value, an Integer in all
  # arithmetic and comparisons, carrying the state it was read from
  # (#state).  Arithmetic gives plain Integers: page.views + 1 is 6.
  class Value < Numeric
    attr_reader :state

    def initialize(state)
      super()
      @state = state
      @value = state.value
      freeze
    end

    def to_i
      @value
    end
    alias to_int to_i

    def to_s(*args)
      @value.to_s(*args)
    end

    def inspect
      @value.inspect
    end

    def to_f
      @value.to_f
    end

    def to_r
      @value.to_r
    end

    def integer?
      true
    end

    def coerce(other)
      [other, @value]
    end

    %i[+ - * / % ** div modulo fdiv divmod pow & | ^ << >>].each do |op|
      define_method(op) { |other| @value.public_send(op, other.is_a?(Value) ? other.to_i : other) }
    end

    %i[-@ +@ abs zero? positive? negative? succ pred floor ceil round truncate even? odd?].each do |op|
      define_method(op) { |*args| @value.public_send(op, *args) }
    end

    def <=>(other)
      @value <=> (other.is_a?(Value) ? other.to_i : other)
    end

    def ==(other)
      @value == (other.is_a?(Value) ? other.to_i : other)
    end

    def eql?(other)
      other.is_a?(Value) && other.state == @state
    end

    def hash
      @value.hash
    end

    def as_json(*)
      @value
    end

    def to_json(*args)
      @value.to_json(*args)
    end
  end

  module ActiveRecord
    # The attribute type of a counter_crdt column: reads as a
    # CounterCrdt::Value (nil for NULL and for a tombstone); takes
    # Integers (saved as increments from the value read, never as a state),
    # CounterCrdt::State (saved as a merge) and state text.
    class Type < ::ActiveRecord::Type::Value
      def type
        :counter_crdt
      end

      # A state read, or a number: what sum(views), max(views) return.
      def deserialize(value)
        case value
        when nil, Integer then value
        when State then value.tombstone? ? nil : CounterCrdt::Value.new(value)
        when Numeric then value == value.to_i ? value.to_i : value
        when /\A\s*-?\d+(\.0*)?\s*\z/ then Integer(value[/-?\d+/], 10)
        else deserialize(State.parse(value))
        end
      end

      # A number is written as '{}' when it is 0 (a new counter), else as
      # itself, which the server refuses as a state: saving a record
      # increments instead (CounterCrdt::ActiveRecord::Persistence), and
      # update_all refuses numbers (Relation#update_all).
      def serialize(value)
        case value
        when nil then nil
        when State then value.to_s
        when String then serialize(cast(value))
        when Numeric then value.zero? ? "{}" : value.to_i
        else raise Error, "cannot write #{value.class} to a counter_crdt column"
        end
      end

      # schema.rb: a default counter as its state text.
      def type_cast_for_schema(value)
        value.is_a?(CounterCrdt::Value) ? value.state.to_s.inspect : super
      end

      def changed_in_place?(_raw_old_value, _new_value)
        false
      end

      private

      def cast_value(value)
        case value
        when CounterCrdt::Value, State, Integer then value
        when String
          text = value.strip
          return State.parse(text) if text.start_with?("{") || text.downcase.start_with?("tombstone")
          Integer(text, 10)
        when Numeric
          raise ArgumentError, "a counter counts whole numbers, not #{value}" unless value == value.to_i
          value.to_i
        else
          raise ArgumentError, "cannot read #{value.class} as a counter_crdt"
        end
      end
    end

    # The adapter knows the type by name: its OID is looked up with the
    # other types' when a connection loads them.
    module Adapter
      private

      def initialize_type_map(m = type_map)
        m.register_type("counter_crdt", Type.new)
        super(m)
      end
    end

    # t.counter_crdt :views in create_table and change_table: a counter
    # column, '{}' (0) by default.
    module ColumnMethods
      def counter_crdt(*names, **options)
        options = { default: "{}" }.merge(options)
        names.each { |name| column(name, :counter_crdt, **options) }
      end
    end

    # Migration statements.
    module SchemaStatements
      # Has the server refuse local writes that would lower a counter (a
      # state read earlier written back) on the table: counter_crdt 1.11's
      # counter_crdt_guard_writes(), for hand-written SQL too.
      def guard_counter_writes(table_name)
        execute("SELECT counter_crdt_guard_writes(#{quote(quote_table_name(table_name))}::regclass)")
      end

      # Drops the guard of guard_counter_writes (its inverse in a rollback).
      def unguard_counter_writes(table_name)
        execute("DROP TRIGGER IF EXISTS counter_crdt_write_guard ON #{quote_table_name(table_name)}")
      end
    end

    module CommandRecorder
      def guard_counter_writes(*args)
        record(:guard_counter_writes, args)
      end

      def unguard_counter_writes(*args)
        record(:unguard_counter_writes, args)
      end

      private

      def invert_guard_counter_writes(args)
        [:unguard_counter_writes, args]
      end

      def invert_unguard_counter_writes(args)
        [:guard_counter_writes, args]
      end
    end

    # Saving a record never writes back a counter state it read: a changed
    # counter is written as an increment by the difference from the value
    # read (views = views + 1), a CounterCrdt::State assigned to it as a
    # merge (counter_crdt_merge(views, state)), an unchanged one not at all.
    # The new state is read back (RETURNING).
    module Persistence
      # The state of a counter as read from the database (nil for NULL, or
      # for a value assigned since and not saved).
      def counter_state(name)
        raw = read_attribute_before_type_cast(name.to_s)
        case raw
        when String then State.parse(raw)
        when State then raw
        when CounterCrdt::Value then raw.state
        end
      end

      private

      def _create_record(*args, &block)
        pending = {}
        self.class.counter_crdt_attribute_names.each do |name|
          value = _read_attribute(name)
          next unless value.is_a?(Numeric) && !value.zero?
          pending[name] = [:add, Integer(value), value]
          _write_attribute(name, 0)
        end
        begin
          result = super
        rescue Exception # rubocop:disable Lint/RescueException
          pending.each { |name, (_, _, value)| _write_attribute(name, value) }
          raise
        end
        counter_crdt_write(pending) unless pending.empty?
        result
      end

      def _update_record(*args, &block)
        changes = counter_crdt_changes
        result = super
        return result if changes.empty?
        rows = counter_crdt_write(changes)
        result.is_a?(Integer) && result.zero? ? rows : result
      end

      def attributes_for_update(attribute_names)
        counters = self.class.counter_crdt_attribute_names
        super.reject { |name| counters.include?(name) }
      end

      # {name => [:add, delta] or [:merge, state]} for the counters to write.
      def counter_crdt_changes
        self.class.counter_crdt_attribute_names.each_with_object({}) do |name, out|
          next unless will_save_change_to_attribute?(name)
          old = attribute_in_database(name)
          new = _read_attribute(name)
          case new
          when State
            out[name] = [:merge, new]
          when nil
            next if old.nil?
            raise Error, "#{self.class.name}##{name} = nil would erase a counter: " \
                         "increment it (#{name} += n) or delete the record"
          else
            base = old.is_a?(State) ? old.value.to_i : old.to_i
            delta = Integer(new) - base
            out[name] = [:add, delta] unless delta.zero?
          end
        end
      end

      # One UPDATE of the record's row for the counters; the new states
      # become the attributes' values as read.  Returns the rows updated.
      def counter_crdt_write(changes)
        klass = self.class
        conn = klass.connection
        sets = changes.map do |name, (kind, arg)|
          col = conn.quote_column_name(name)
          if kind == :add
            "#{col} = #{col} #{arg.negative? ? '-' : '+'} #{arg.abs}"
          else
            "#{col} = counter_crdt_merge(#{col}, #{conn.quote(arg.to_s)}::counter_crdt)"
          end
        end
        pk = klass.primary_key
        raise Error, "#{klass.name} has no primary key: its counters cannot be saved" unless pk.is_a?(String)
        key = conn.quote(klass.type_for_attribute(pk).serialize(id_in_database || id))
        returning = changes.keys.map { |name| conn.quote_column_name(name) }.join(", ")
        sql = "UPDATE #{conn.quote_table_name(klass.table_name)} SET #{sets.join(', ')} " \
              "WHERE #{conn.quote_column_name(pk)} = #{key} RETURNING #{returning}"
        result = conn.exec_query(sql, "#{klass.name} Increment")
        conn.clear_query_cache if conn.respond_to?(:clear_query_cache)
        row = result.rows.first
        changes.keys.each_with_index { |name, i| @attributes.write_from_database(name, row[i]) } if row
        result.rows.size
      end
    end

    module ModelClassMethods
      # The names of the model's counter_crdt attributes.
      def counter_crdt_attribute_names
        attribute_types.each_with_object([]) { |(name, type), names| names << name if type.is_a?(Type) }
      end
    end

    # AR's update_counters, increment_counter and increment! write
    # COALESCE(views, 0) + $1; a counter is incremented as views + 1.
    module Relation
      # update_all(views: state) merges the state into every row's
      # counter; update_all(views: n) would overwrite the counters: refused
      # with the way to increment them.
      def update_all(updates)
        if updates.is_a?(Hash)
          updates = updates.to_h do |name, value|
            next [name, value] if value.nil? || Arel.arel_node?(value)
            next [name, value] unless klass.type_for_attribute(name.to_s).is_a?(Type)
            unless value.is_a?(State)
              raise Error, "update_all(#{name}: #{value.inspect}) would overwrite counters: " \
                           "increment them with update_counters(#{name}: n)"
            end
            column = Arel::Nodes::UnqualifiedColumn.new(table[name])
            state = Arel::Nodes::SqlLiteral.new("#{klass.connection.quote(value.to_s)}::counter_crdt")
            [name, Arel::Nodes::NamedFunction.new("counter_crdt_merge", [column, state])]
          end
        end
        super(updates)
      end

      private

      def _increment_attribute(attribute, value = 1)
        return super unless klass.type_for_attribute(attribute.name).is_a?(Type)
        n = Integer(value)
        Arel::Nodes::InfixOperation.new(n.negative? ? "-" : "+",
                                        Arel::Nodes::UnqualifiedColumn.new(attribute),
                                        Arel::Nodes::SqlLiteral.new(n.abs.to_s))
      end
    end
  end
end

ActiveRecord::Type.register(:counter_crdt, CounterCrdt::ActiveRecord::Type, adapter: :postgresql)
ActiveRecord::ConnectionAdapters::PostgreSQLAdapter.prepend(CounterCrdt::ActiveRecord::Adapter)
ActiveRecord::ConnectionAdapters::PostgreSQLAdapter.include(CounterCrdt::ActiveRecord::SchemaStatements)
unless ActiveRecord::ConnectionAdapters::PostgreSQLAdapter::NATIVE_DATABASE_TYPES.key?(:counter_crdt)
  if ActiveRecord::ConnectionAdapters::PostgreSQLAdapter::NATIVE_DATABASE_TYPES.frozen?
    types = ActiveRecord::ConnectionAdapters::PostgreSQLAdapter::NATIVE_DATABASE_TYPES.merge(counter_crdt: { name: "counter_crdt" })
    ActiveRecord::ConnectionAdapters::PostgreSQLAdapter.send(:remove_const, :NATIVE_DATABASE_TYPES)
    ActiveRecord::ConnectionAdapters::PostgreSQLAdapter.const_set(:NATIVE_DATABASE_TYPES, types.freeze)
  else
    ActiveRecord::ConnectionAdapters::PostgreSQLAdapter::NATIVE_DATABASE_TYPES[:counter_crdt] = { name: "counter_crdt" }
  end
end
ActiveRecord::ConnectionAdapters::PostgreSQL::TableDefinition.include(CounterCrdt::ActiveRecord::ColumnMethods)
ActiveRecord::ConnectionAdapters::PostgreSQL::Table.include(CounterCrdt::ActiveRecord::ColumnMethods)
ActiveRecord::Migration::CommandRecorder.include(CounterCrdt::ActiveRecord::CommandRecorder)
ActiveRecord::Base.prepend(CounterCrdt::ActiveRecord::Persistence)
ActiveRecord::Base.extend(CounterCrdt::ActiveRecord::ModelClassMethods)
ActiveRecord::Relation.prepend(CounterCrdt::ActiveRecord::Relation)
