# frozen_string_literal: true

# The ActiveRecord side of the gem against a real server, as an application
# uses it: a migration, a model, saves, increments, the guard.  Prints "ok N
# - what" or "not ok N - what" per check, then the plan.  Connects with the
# PG* environment.
require "active_record"
require "counter_crdt"
require "counter_crdt/active_record"
require "stringio"

$n = 0
$failed = 0
def check(ok, what, detail = nil)
  $n += 1
  $failed += 1 unless ok
  puts "#{ok ? 'ok' : 'not ok'} #{$n} - #{what}"
  puts "# #{detail.to_s.gsub("\n", "\n# ")}" if !ok && detail
  ok
end

# The error a block raises, or nil.
def error_of
  yield
  nil
rescue StandardError => e
  e
end

# The SQL statements a block runs.
def statements
  sql = []
  sub = ActiveSupport::Notifications.subscribe("sql.active_record") do |*, payload|
    sql << payload[:sql] unless payload[:name] == "SCHEMA" || payload[:sql] =~ /\A(BEGIN|COMMIT)/
  end
  yield
  sql
ensure
  ActiveSupport::Notifications.unsubscribe(sub)
end

ActiveRecord::Base.establish_connection(adapter: "postgresql")
ActiveRecord::Migration.verbose = false
conn = ActiveRecord::Base.connection
conn.execute("DROP TABLE IF EXISTS pages")

class CreatePages < ActiveRecord::Migration[6.1]
  def change
    enable_extension "counter_crdt"
    create_table :pages do |t|
      t.string :name
      t.counter_crdt :views
    end
    guard_counter_writes :pages
  end
end
CreatePages.migrate(:up)

class Page < ActiveRecord::Base; end

check(conn.select_value("SELECT format_type(atttypid, atttypmod) || ' ' || pg_get_expr(adbin, adrelid) FROM pg_attribute JOIN pg_attrdef ON adrelid = attrelid AND adnum = attnum WHERE attrelid = 'pages'::regclass AND attname = 'views'") == "counter_crdt '{}'::counter_crdt",
      "t.counter_crdt :views makes a counter_crdt column, '{}' by default")
check(conn.select_value("SELECT count(*) FROM pg_trigger WHERE tgrelid = 'pages'::regclass AND tgname = 'counter_crdt_write_guard'") == 1,
      "guard_counter_writes :pages puts the server's write guard on the table")
check(Page.columns_hash["views"].type == :counter_crdt && Page.type_for_attribute("views").is_a?(CounterCrdt::ActiveRecord::Type),
      "the adapter knows the column's type by its OID")
dump = StringIO.new
# ActiveRecord 7.2 dumps from a pool, 6.1 from a connection
ActiveRecord::SchemaDumper.dump(ActiveRecord.version >= Gem::Version.new("7.2") ? ActiveRecord::Base.connection_pool : conn, dump)
check(dump.string.include?('t.counter_crdt "views", default: "{}"'), "schema.rb dumps the column as t.counter_crdt",
      dump.string[/create_table "pages".*?end/m])

# create
home = Page.create!(name: "home", views: 0)
check(home.views == 0 && home.views.is_a?(CounterCrdt::Value) && home.reload.views == 0, "create!(views: 0) gives a counter of 0")
five = Page.create!(name: "five", views: 5)
check(five.views == 5 && five.reload.views == 5 && five.views.state.shards.map(&:clock) == [1],
      "create!(views: 5) inserts a counter and increments it once by 5", five.views.state.inspect)
check(Page.create!(name: "none").reload.views == 0, "create! without views counts from the default '{}'")

# the trap: two copies loaded, each incremented and saved
a = Page.find(home.id)
b = Page.find(home.id)
a.views += 1
sql = statements { a.save! }
b.views += 1
b.save!
check(home.reload.views == 2, "two copies of a record, each views += 1 and save!: 2, not 1", home.views)
check(sql.any? { |s| s.include?('"views" = "views" + 1') } && sql.none? { |s| s.include?("{") },
      "a save writes views = views + 1, never the state read", sql.inspect)
b.views += 3
b.save!
check(b.views == 5 && b.views.state == Page.find(home.id).views.state, "after save! the record holds the state the UPDATE returned", b.views.state.inspect)

# an untouched counter is not written
home.name = "Home"
sql = statements { home.save! }
check(sql.size == 1 && !sql.first.include?("views"), "saving another attribute leaves the counter out", sql.inspect)
partial = Page.respond_to?(:partial_updates=) ? :partial_updates= : :partial_writes=
Page.public_send(partial, false)
home.name = "home"
sql = statements { home.save! }
Page.public_send(partial, true)
check(sql.size == 1 && !sql.first.include?("views"), "also with partial writes off (#{partial.to_s.chomp('=')})", sql.inspect)
home.views = home.views + 0
check(statements { home.save! }.empty?, "views = views + 0: nothing to write")

# increment!, update_counters and friends
sql = statements { home.increment!(:views) }
check(home.reload.views == 6 && sql.any? { |s| s.include?('"views" = "views" + 1') } && sql.none? { |s| s.include?("COALESCE") },
      "increment!(:views) writes views = views + 1 (not COALESCE(views, 0) + $1)", sql.inspect)
home.decrement!(:views, 2)
check(home.reload.views == 4, "decrement!(:views, 2)")
Page.update_counters(home.id, views: 10)
Page.increment_counter(:views, home.id)
Page.where(name: "home").update_counters(views: -3)
check(home.reload.views == 12, "update_counters (class and relation) and increment_counter increment", home.views)

# refused writes
e = error_of { Page.where(name: "home").update_all(views: 3) }
check(e.is_a?(CounterCrdt::Error) && e.message.include?("update_counters(views: n)"), "update_all(views: 3) is refused, naming update_counters", e.inspect)
e = error_of { home.update!(views: nil) }
check(e.is_a?(CounterCrdt::Error) && home.reload.views == 12, "setting a counter to nil is refused", e.inspect)

# states: merge on save, merge with update_all
other = CounterCrdt::State.new([["00000000-0000-0000-0000-0000000000aa", 1, 100]])
home.views = other
sql = statements { home.save! }
check(home.views == 112 && home.reload.views == 112 && sql.any? { |s| s.include?('counter_crdt_merge("views"') },
      "assigning a CounterCrdt::State saves a merge", sql.inspect)
home.update!(views: other)
check(home.reload.views == 112, "merging the same state again changes nothing")
Page.where(name: "home").update_all(views: CounterCrdt::State.new([["00000000-0000-0000-0000-0000000000aa", 2, 150]]))
check(home.reload.views == 162, "update_all(views: state) merges", home.views)
check(home.counter_state(:views) == home.views.state && home.counter_state(:views).shards.size == 2,
      "counter_state(:views) is the state read")

# the server's guard: a stale state written back by hand is refused
stale = home.views.state
Page.update_counters(home.id, views: 1)
e = error_of { Page.where(id: home.id).update_all("views = '#{stale}'") }
check(e.is_a?(ActiveRecord::StatementInvalid) && e.cause.is_a?(PG::IntegrityConstraintViolation) && e.message.include?("views"),
      "the guard refuses a stale state written back with hand-written SQL (23000)", e.inspect)
e = error_of { home.update_columns(views: "{}") }
check(e.is_a?(ActiveRecord::StatementInvalid) && e.cause.is_a?(PG::IntegrityConstraintViolation), "and update_columns(views: '{}')", e.inspect)
check(home.reload.views == 163, "the counter keeps every increment")

# values: comparisons, sums, JSON, tombstones
check(Page.where("views::bigint > ?", 5).pluck(:name).sort == %w[home] &&
      Page.order(Arel.sql("views::bigint DESC")).first.name == "home",
      "where(\"views::bigint > ?\", 5) and ordering by the value")
check(Page.sum(:views) == 168 && Page.maximum(:views) == 163 && Page.minimum(:views) == 0,
      "sum, maximum and minimum read the values", [Page.sum(:views), Page.maximum(:views)].inspect)
check(home.as_json["views"] == 163 && home.to_json.include?('"views":163'), "as_json gives the value")
check(home.views + 1 == 164 && 1 + home.views == 164 && home.views > 100 && home.views.to_i.is_a?(Integer) && "#{home.views}" == "163",
      "the value is an Integer in arithmetic, comparisons and text")
conn.execute("UPDATE pages SET views = 'tombstone' WHERE name = 'none'")
gone = Page.find_by(name: "none")
check(gone.views.nil? && gone.counter_state(:views).tombstone?, "a tombstone reads as nil, its state as a tombstone")

CreatePages.migrate(:down)
check(!conn.table_exists?(:pages), "the migration rolls back")

puts "1..#{$n}"
exit($failed.zero? ? 0 : 1)
