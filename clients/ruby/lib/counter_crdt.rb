# frozen_string_literal: true

# Ruby support for the PostgreSQL extension counter_crdt.
#
#   require "counter_crdt"                 # CounterCrdt::State
#   require "counter_crdt/pg"              # ruby-pg decoders and encoders
#   require "counter_crdt/active_record"   # the ActiveRecord type, increments, migrations
#
# In an application that loads ActiveRecord, requiring "counter_crdt" loads
# the ActiveRecord part as ActiveRecord loads.
require "counter_crdt/version"
require "counter_crdt/state"

if defined?(ActiveSupport) && ActiveSupport.respond_to?(:on_load)
  ActiveSupport.on_load(:active_record) { require "counter_crdt/active_record" }
end
