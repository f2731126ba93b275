# frozen_string_literal: true

# One application process of the concurrency test: ARGV[1] times, load the
# page ARGV[0], views += 1, save!.  Connects with the PG* environment.
require "active_record"
require "counter_crdt"

ActiveRecord::Base.establish_connection(adapter: "postgresql")

class Page < ActiveRecord::Base
end

id = Integer(ARGV[0])
n = Integer(ARGV[1])
n.times do
  page = Page.find(id)
  page.views += 1
  page.save!
end
puts "saved #{n}"
