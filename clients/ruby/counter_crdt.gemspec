# frozen_string_literal: true

require_relative "lib/counter_crdt/version"

Gem::Specification.new do |spec|
  spec.name = "counter_crdt"
  spec.version = CounterCrdt::VERSION
  spec.summary = "counter_crdt for Ruby: the state type, ruby-pg coders and ActiveRecord support"
  spec.description = "Reads and writes the PostgreSQL extension counter_crdt's counters from Ruby: " \
                     "a State value (text and binary forms), ruby-pg coders, an ActiveRecord type " \
                     "whose saves increment instead of writing back a state, and migration helpers."
  spec.license = "PostgreSQL"
  spec.authors = ["counter_crdt authors"]
  spec.files = Dir["lib/**/*.rb"] + ["README.md"]
  spec.require_paths = ["lib"]
  spec.required_ruby_version = ">= 2.7"
  # pg and activerecord are needed only by the parts that use them
  # (counter_crdt/pg, counter_crdt/active_record); Debian's ruby-pg and
  # ruby-activerecord are what the tests use.
  spec.add_development_dependency "pg", ">= 1.2"
  spec.add_development_dependency "activerecord", ">= 6.1"
end
