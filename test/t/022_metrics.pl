# The metrics of doc/metrics.md, scraped by the real exporters: the recipes
# metrics/role, metrics/queries and metrics/exporter run as written (only
# the host, ports, database and the queries file's path substituted), the
# exporter started as the unprivileged monitoring role, its /metrics read
# with curl over loopback, and the counter_crdt_* series found with exact
# values:
#
#  - on a table of known counters, and on a partitioned table in a schema
#    of its own: one series set for the partitioned table (partitions
#    summed, writers distinct over them), none per partition, the same set
#    after a partition is made and another dropped;
#  - after a writer is folded (fold records, nothing pending), a late shard
#    of it applied (one pending fold), an own-id conflict and a clock near
#    its limit recorded by the merge trigger, a row deleted (a tombstone)
#    and new counters;
#  - for a subscription: enabled and applying, an apply error counted,
#    disabled;
#  - on a hot standby of the server, scraped by a second exporter started
#    by the same recipe: the series of the logged tables exactly as on the
#    primary, none of an UNLOGGED table (a standby has no data of it; the
#    scan would fail with 58P01 and the scrape would lose every series of
#    the query), and a health gauge unlogged_table_skipped_on_standby
#    saying so;
#  - with pg_monitor revoked from the monitoring role: no series of the
#    tables (it may not read them), the health gauges still there;
#  - code planted for the monitoring role never runs (doc/metrics.md, "Whose
#    code the monitoring role runs"): the database's owner, not a
#    superuser, makes a schema named as the role, first on its default
#    search_path, with views of the four names the files read and a
#    current_database() of its own, each recording its caller; no scrape of
#    any exporter of the test calls one, and its series are the real ones.
#    In a second database the extension is installed by the recipe
#    metrics/extension-schema, the files edited by
#    metrics/extension-schema-files: there the owner renames public and
#    plants the same views in a public of his own, which a third exporter
#    (started from metrics/exporter-debian, as Debian's service would start
#    it) never reads, while he may not rename the extension's schema.
#
# Then prometheus-sql-exporter by the recipes metrics/sql-exporter-config
# and metrics/sql-exporter, and a real Prometheus scraping both exporters
# from one prometheus.yml, doc/alerting.md's (alerting/prometheus.yml, its
# job counter_crdt scraping prometheus-postgres-exporter) with the job of
# metrics/prometheus-scrape added, which renames the SQL exporter's series:
# the same counter_crdt_* series with the same values from both jobs.
#
# And the files shipped in monitoring/ are the recipe blocks, and the
# example output of the page is what the exporter prints for README.md's
# page_views (recipe first-session/numbers).  Skipped when
# prometheus-postgres-exporter or curl is not installed; the SQL exporter's
# part when it or Prometheus is not.

use strict;
use warnings;

use PostgreSQL::Test::Utils;
BEGIN { $PostgreSQL::Test::Utils::use_unix_sockets = 0; }
use PostgreSQL::Test::Cluster;
use Test::More;
use Time::HiRes qw(usleep);
use POSIX ();
use JSON::PP ();
use FindBin;
use lib $FindBin::RealBin;
use SignalExit;
use ReadmeRecipe;

my $exporter_bin = '/usr/bin/prometheus-postgres-exporter';
my $curl = '/usr/bin/curl';
plan skip_all => "prometheus-postgres-exporter is not installed ($exporter_bin; "
  . 'Debian: apt-get install prometheus-postgres-exporter)'
  unless -x $exporter_bin;
plan skip_all => "curl is not installed ($curl; Debian: apt-get install curl)"
  unless -x $curl;

my $A = '00000000-0000-4000-8000-00000000000a';    # this server's writer id
my $B = '00000000-0000-4000-8000-00000000000b';    # a writer to retire
my $C = '00000000-0000-4000-8000-00000000000c';

my $node = PostgreSQL::Test::Cluster->new('metrics');
$node->init(allows_streaming => 'logical');
$node->append_conf('postgresql.conf', "counter_crdt.node_id = '$A'\n");
$node->start;
my $host = $node->host;
my $port = $node->port;
$node->safe_psql('postgres', 'CREATE DATABASE app');
$node->safe_psql('app', 'CREATE EXTENSION counter_crdt');
$node->safe_psql('app', recipe('metrics/role'));

# The database's owner, who is not a superuser, plants code for the
# monitoring role: a schema named as the role (first on the default
# search_path, "$user", public) with views of the names the files read
# and a current_database() of its own.  Each records who called it, in
# $schema.planted_calls; the views' rows are made up (relname and kind
# "planted", every figure 666).
sub plant
{
	my ($schema) = @_;
	return qq{
	SET ROLE regress_app_owner;
	CREATE SCHEMA $schema;
	GRANT USAGE ON SCHEMA $schema TO PUBLIC;
	CREATE TABLE $schema.planted_calls (who name, what text);
	GRANT INSERT ON $schema.planted_calls TO PUBLIC;
	CREATE FUNCTION $schema.planted(what text) RETURNS bigint LANGUAGE plpgsql VOLATILE AS \$\$
	BEGIN
		INSERT INTO $schema.planted_calls VALUES (current_user, what);
		RETURN 666;
	END \$\$;
	CREATE FUNCTION $schema.current_database() RETURNS name LANGUAGE sql VOLATILE
	  AS \$\$ SELECT 'planted'::name FROM $schema.planted('current_database()') \$\$;
	CREATE VIEW $schema.counter_crdt_stat_tables AS
	  SELECT 'public'::name AS schemaname, 'planted'::name AS relname, 'c'::name AS column_name,
	         p AS partitions, p AS counters, p AS tombstones, p AS writers, p AS shards,
	         p AS shards_p50, p AS shards_p99, p AS shards_max, p AS values_with_folds,
	         p AS pending_folds, p AS own_id_conflicts, p AS clocks_near_limit
	    FROM $schema.planted('counter_crdt_stat_tables') AS p;
	CREATE VIEW $schema.counter_crdt_stat_shards AS
	  SELECT 'public'::name AS schemaname, 'planted'::name AS relname, 'c'::name AS column_name,
	         '1'::text AS quantile, p AS shards
	    FROM $schema.planted('counter_crdt_stat_shards') AS p;
	CREATE VIEW $schema.counter_crdt_stat_health AS
	  SELECT 'planted'::text AS kind, p AS problems FROM $schema.planted('counter_crdt_stat_health') AS p;
	CREATE VIEW $schema.counter_crdt_stat_subscriptions AS
	  SELECT 'planted'::name AS subname, true AS enabled, p AS workers, p AS apply_errors, p AS sync_errors
	    FROM $schema.planted('counter_crdt_stat_subscriptions') AS p;
	GRANT SELECT ON ALL TABLES IN SCHEMA $schema TO PUBLIC;
	RESET ROLE;
	};
}
$node->safe_psql('postgres', q{
	CREATE ROLE regress_app_owner LOGIN;
	ALTER DATABASE app OWNER TO regress_app_owner;
});
$node->safe_psql('app', plant('counter_crdt_monitor'));
is($node->safe_psql('app', 'SELECT current_user || \' \' || pg_catalog.current_setting(\'search_path\')',
		extra_params => [ '-U', 'counter_crdt_monitor' ]),
	'counter_crdt_monitor pg_catalog', 'the recipe pins the monitoring role\'s search_path to pg_catalog');

# Three counters: two of A and B, one of A, B and C.
$node->safe_psql('app', qq{
	CREATE TABLE hits (k int PRIMARY KEY, c counter_crdt);
	SELECT counter_crdt_enable_replica_merge('hits');
	INSERT INTO hits VALUES
	  (1, '{$A:1:5, $B:1:7}'), (2, '{$A:2:1, $B:3:2}'), (3, '{$A:1:1, $B:1:1, $C:1:1}');
});
# The table of README.md's first session, which the page's example output
# shows.
$node->safe_psql('app', recipe('first-session/numbers'));
# An UNLOGGED table of another role: two counters of C, one of them with
# A's shard too.
$node->safe_psql('app', qq{
	CREATE ROLE regress_scratch_owner;
	GRANT CREATE ON SCHEMA public TO regress_scratch_owner;
	SET ROLE regress_scratch_owner;
	CREATE UNLOGGED TABLE scratch (k int PRIMARY KEY, n counter_crdt);
	INSERT INTO scratch VALUES (1, '{$C:1:3}'), (2, '{$A:1:1, $C:2:4}');
	RESET ROLE;
});

# A partitioned table in a schema of its own, counted by hour: two
# partitions, writers A and B in one, B and C in the other.
$node->safe_psql('app', qq{
	CREATE SCHEMA shop;
	CREATE TABLE shop.events (h int, k int, c counter_crdt, PRIMARY KEY (h, k)) PARTITION BY RANGE (h);
	CREATE TABLE shop.events_h1 PARTITION OF shop.events FOR VALUES FROM (1) TO (2);
	CREATE TABLE shop.events_h2 PARTITION OF shop.events FOR VALUES FROM (2) TO (3);
	INSERT INTO shop.events VALUES (1, 1, '{$A:1:1, $B:1:1}'), (1, 2, '{$A:1:1}'), (2, 1, '{$B:1:1, $C:1:1}');
});

# The queries file the tree ships is the recipe block the test runs
# (scripts/test.sh copies monitoring/ beside test/, as it copies doc/).
my $shipped = "$FindBin::RealBin/../../monitoring/postgres_exporter_queries.yaml";
ok(-e $shipped, "the tree ships $shipped");
is((-e $shipped ? slurp_file($shipped) : ''), recipe('metrics/queries'),
	'monitoring/postgres_exporter_queries.yaml is the recipe block metrics/queries');

# The exporter as the recipe starts it.
my $dir = PostgreSQL::Test::Utils::tempdir();
my $queries = "$dir/postgres_exporter_queries.yaml";
open(my $fh, '>', $queries) or die "cannot write $queries: $!";
print $fh recipe('metrics/queries');
close $fh;

# Starts the exporter by the recipe, for the database $db (app by default)
# of the server at $srv_port, with the queries file $file (the recipe's by
# default), listening on $web; its output goes to $log.  Returns its process id (its own
# process group, which the end stops).
my @pids;
sub start_exporter
{
	my ($srv_port, $web, $log, $db, $file) = @_;
	my $cmd = recipe('metrics/exporter', {
		'127.0.0.1:5432/app?' => "$host:$srv_port/" . ($db // 'app') . '?',
		'monitoring/postgres_exporter_queries.yaml' => $file // $queries,
		'127.0.0.1:9187' => "127.0.0.1:$web" });
	my $pid = fork() // die "fork: $!";
	if ($pid == 0)
	{
		setpgrp(0, 0);
		open(STDOUT, '>', $log) or POSIX::_exit(1);
		open(STDERR, '>&', \*STDOUT) or POSIX::_exit(1);
		exec('bash', '-c', $cmd) or POSIX::_exit(1);
	}
	push @pids, $pid;
	return $pid;
}
END
{
	local $?;    # waitpid must not set the test's exit code
	foreach my $p (@pids)
	{
		kill 'TERM', -$p;
		waitpid($p, 0);
	}
}
my $web_port = PostgreSQL::Test::Cluster::get_free_port();
my $log = "$dir/exporter.log";
my $pid = start_exporter($port, $web_port, $log);

# The counter_crdt series of one scrape of the exporter at $web (the
# first one by default): "name{labels}" => value, labels sorted, the server
# label left out.  $last_text keeps the whole answer.
my $last_text = '';
sub scrape
{
	my ($web) = @_;
	$web //= $web_port;
	my $text = `$curl -s --max-time 20 http://127.0.0.1:$web/metrics`;
	my %m;
	$last_text = $text;
	note(join("\n", grep { /^counter_crdt_/ } split /\n/, $text));
	foreach my $line (split /\n/, $text)
	{
		next unless $line =~ /^(counter_crdt_\w+)\{([^}]*)\} (\S+)$/;
		my ($name, $labels, $value) = ($1, $2, $3);
		my @l = sort grep { !/^server=/ } split /,/, $labels;
		$m{ $name . '{' . join(',', @l) . '}' } = $value;
	}
	return \%m;
}

my $HITS = '{column_name="c",datname="app",relname="hits",schemaname="public"}';
my $SCRATCH = '{column_name="n",datname="app",relname="scratch",schemaname="public"}';
my $EVENTS = '{column_name="c",datname="app",relname="events",schemaname="shop"}';

# Scrapes the exporter at $web (the first one by default) until $cond holds
# of the series, at most $tries times (120 by default) $pause_us apart
# (0.5 s); returns the last scrape.
sub scrape_until
{
	my ($cond, $web, $tries, $pause_us) = @_;
	my $m;
	for (1 .. ($tries // 120))
	{
		$m = scrape($web);
		return $m if $cond->($m);
		usleep($pause_us // 500_000);
	}
	return $m;
}

# Waits for the exporter at $web to answer with its health gauges (which
# read no table), and returns that scrape.
sub first_scrape
{
	my ($web) = @_;
	return scrape_until(sub { grep { /^counter_crdt_health_problems\{/ } keys %{ $_[0] } }, $web, 100, 200_000);
}

my $m = first_scrape($web_port);
ok(exists $m->{"counter_crdt_counters$HITS"}, 'the exporter serves counter_crdt_counters')
  or diag(slurp_file($log));

# The page's example output: each line is one the exporter prints (0.11's
# label server, which the page mentions, left out).
my @printed = map { my $l = $_; $l =~ s/,server="[^"]*"//; $l } split /\n/, $last_text;
foreach my $line (split /\n/, recipe('metrics/scrape'))
{
	ok((grep { $_ eq $line } @printed), "the exporter prints: $line");
}
like($last_text, qr/^pg_up(\{[^}]*\})? 1$/m, 'pg_up is 1: the exporter reached the server');

# One figure of a table's column: counter_crdt_NAME, or for shards_p50,
# shards_p99 and shards_max the quantile of counter_crdt_shards_per_counter.
my %QUANTILE = (shards_p50 => '0.5', shards_p99 => '0.99', shards_max => '1');
sub col
{
	my ($m, $metric, $labels) = @_;
	$labels //= $HITS;
	if (exists $QUANTILE{$metric})
	{
		(my $l = $labels) =~ s/,relname=/,quantile="$QUANTILE{$metric}",relname=/;
		return $m->{"counter_crdt_shards_per_counter$l"};
	}
	return $m->{"counter_crdt_$metric$labels"};
}

sub health
{
	my ($m, $kind) = @_;
	return $m->{ 'counter_crdt_health_problems{datname="app",kind="' . $kind . '"}' };
}

sub check_column
{
	my ($m, $want, $what, $labels) = @_;
	my %got = map { $_ => col($m, $_, $labels) } keys %$want;
	is_deeply(\%got, $want, $what);
}

# The relname labels of the series of one figure.
sub relnames
{
	my ($m, $metric) = @_;
	return join(' ', sort map { /relname="([^"]*)"/ ? $1 : () } grep { /^counter_crdt_${metric}\{/ } keys %$m);
}

check_column($m, {
	counters => 3, tombstones => 0, writers => 3, shards => 7, shards_max => 3,
	shards_p99 => 3, shards_p50 => 2, values_with_folds => 0, pending_folds => 0,
	own_id_conflicts => 0, clocks_near_limit => 0, partitions => 0 }, 'the figures of three known counters');
check_column($m, {
	counters => 3, writers => 3, shards => 5, partitions => 2, shards_p50 => 2, shards_max => 2 },
	'the partitioned table: its partitions summed, writers distinct over them', $EVENTS);
is(relnames($m, 'counters'), 'events hits page_views scratch', 'one series per table as its users name it, none per partition');
# The kinds the installed extension knows (16 in 1.9, 18 in 1.10), each a
# row of counter_crdt_stat_health where nothing is wrong yet.
my $nkinds = $node->safe_psql('app', 'SELECT count(*) FROM public.counter_crdt_stat_health');
cmp_ok($nkinds, '>=', 16, "counter_crdt_stat_health has a row for each of $nkinds kinds");
is(scalar(grep { /^counter_crdt_health_problems\{/ } keys %$m), $nkinds, "a health gauge for each of the $nkinds kinds");
is(scalar(grep { /^counter_crdt_subscription_/ } keys %$m), 0, 'no subscription yet: no subscription series');
is(health($m, 'writer_id_conflict'), 0, 'no own-id conflict yet');
is($m->{"counter_crdt_counters$SCRATCH"}, 2, 'the primary shows the unlogged table');
is($m->{"counter_crdt_writers$SCRATCH"}, 2, 'with its two writers');
is(health($m, 'unlogged_table_skipped_on_standby'), 0, 'the primary skips nothing');

# B folded into A (this server's id), then a late shard of B applied to
# row 2 (pending there), an own-id conflict and a clock near its limit
# applied to row 3, row 1 deleted (a tombstone), two new counters.
$node->safe_psql('app', "SELECT * FROM counter_crdt_fold_writer('$B')");
$node->safe_psql('app', qq{
	SET session_replication_role = replica;
	UPDATE hits SET c = '{$B:9:20}' WHERE k = 2;
	UPDATE hits SET c = '{$A:50:50}' WHERE k = 3;
	UPDATE hits SET c = '{$C:4611686018427387904:1}' WHERE k = 3;
	RESET session_replication_role;
	DELETE FROM hits WHERE k = 1;
	INSERT INTO hits VALUES (4, '{}'::counter_crdt + 1), (5, '{$C:1:1}');
});
is($node->safe_psql('app',
	"SELECT string_agg(k || ':' || counter_crdt_fold_pending(c, '$B'), ' ' ORDER BY k) FROM hits WHERE c::text <> 'tombstone'"),
	'2:true 3:false 4:false 5:false', 'the fold is pending in row 2 only');

$m = scrape();
# Rows 2 {A, B} and 3 {A, C}, both with B's record; 4 {A}; 5 {C}; 1 a tombstone.
check_column($m, {
	counters => 4, tombstones => 1, writers => 3, shards => 6, shards_max => 2,
	shards_p99 => 2, values_with_folds => 2, pending_folds => 1,
	own_id_conflicts => 1, clocks_near_limit => 1 }, 'the figures after a fold, a late shard, conflicts, a delete and inserts');
is(health($m, 'writer_id_conflict'), 1, 'the own-id conflict is a health problem');
is(health($m, 'writer_clock_near_limit'), 1, 'so is the clock near its limit');

# A partition made and another dropped: the same series of the table, with
# the new partition's counters.
$node->safe_psql('app', qq{
	CREATE TABLE shop.events_h3 PARTITION OF shop.events FOR VALUES FROM (3) TO (4);
	INSERT INTO shop.events VALUES (3, 1, '{$C:1:4}');
	DROP TABLE shop.events_h1;
});
$m = scrape();
check_column($m, { counters => 2, writers => 2, shards => 3, partitions => 2 },
	'after a partition made and one dropped: the same series, new figures', $EVENTS);
is(relnames($m, 'counters'), 'events hits page_views scratch', 'and no series of a partition');

# A subscription of app to a publication of another database of the same
# server (its slot made beforehand, as a subscription to its own server
# needs): enabled and applying; a row that is already there makes the
# apply fail, counted; then disabled.
$node->safe_psql('postgres', qq{
	CREATE TABLE feed (k int PRIMARY KEY);
	CREATE PUBLICATION feed_pub FOR TABLE feed;
	SELECT pg_create_logical_replication_slot('feed_sub', 'pgoutput');
});
$node->safe_psql('app', qq{
	CREATE TABLE feed (k int PRIMARY KEY);
	CREATE SUBSCRIPTION feed_sub CONNECTION 'host=$host port=$port dbname=postgres'
	  PUBLICATION feed_pub WITH (create_slot = false, slot_name = 'feed_sub', copy_data = false);
});
my $SUB = '{datname="app",subname="feed_sub"}';
$m = scrape_until(sub { ($_[0]{"counter_crdt_subscription_workers$SUB"} // 0) == 1 });
is_deeply([ map { $m->{"counter_crdt_subscription_$_$SUB"} } qw(enabled workers apply_errors_total sync_errors_total) ],
	[ 1, 1, 0, 0 ], 'the subscription: enabled, its apply worker running, no errors');
$node->safe_psql('app', 'INSERT INTO feed VALUES (1)');
$node->safe_psql('postgres', 'INSERT INTO feed VALUES (1)');
$m = scrape_until(sub { ($_[0]{"counter_crdt_subscription_apply_errors_total$SUB"} // 0) >= 1 });
cmp_ok($m->{"counter_crdt_subscription_apply_errors_total$SUB"}, '>=', 1, 'a failing apply is counted');
like($last_text, qr/^# TYPE counter_crdt_subscription_apply_errors_total counter$/m, 'as a counter');
$node->safe_psql('app', 'ALTER SUBSCRIPTION feed_sub DISABLE');
$m = scrape_until(sub { ($_[0]{"counter_crdt_subscription_workers$SUB"} // 1) == 0 });
is_deeply([ map { $m->{"counter_crdt_subscription_$_$SUB"} } qw(enabled workers) ], [ 0, 0 ],
	'disabled: enabled 0, no apply worker');
$node->safe_psql('app', 'DROP SUBSCRIPTION feed_sub');
$m = scrape();
is(scalar(grep { /^counter_crdt_subscription_/ } keys %$m), 0, 'dropped: its series are gone');

# A hot standby of the server, and a second exporter by the same recipe
# pointed at it.  It has the logged tables' rows, and no data of the
# unlogged one: the series of the logged tables are the primary's, the
# unlogged table has none, and a health gauge says it was skipped.
$node->backup('standby_base');
my $standby = PostgreSQL::Test::Cluster->new('metrics_standby');
$standby->init_from_backup($node, 'standby_base', has_streaming => 1);
$standby->start;
$node->wait_for_catchup($standby);
is($standby->safe_psql('app', 'SELECT pg_is_in_recovery()'), 't', 'the standby is in recovery');
my $primary_m = scrape();
my $standby_web = PostgreSQL::Test::Cluster::get_free_port();
my $standby_log = "$dir/exporter_standby.log";
start_exporter($standby->port, $standby_web, $standby_log);
my $sm = first_scrape($standby_web);
my %want = map { $_ => $primary_m->{$_} }
  grep { !/^counter_crdt_health_/ && !/relname="scratch"/ } keys %$primary_m;
my %got = map { $_ => $sm->{$_} } grep { !/^counter_crdt_health_/ } keys %$sm;
is_deeply(\%got, \%want, 'the standby\'s counter_crdt series are the primary\'s of the logged tables, exactly')
  or diag(slurp_file($standby_log));
ok(scalar(keys %got) > 0, 'the standby has counter_crdt series of its tables');
%want = map { $_ => $primary_m->{$_} } grep { /^counter_crdt_health_/ } keys %$primary_m;
my $SKIPPED = 'counter_crdt_health_problems{datname="app",kind="unlogged_table_skipped_on_standby"}';
is($want{$SKIPPED}, 0, 'the primary\'s gauge of skipped tables is 0');
$want{$SKIPPED} = 1;
%got = map { $_ => $sm->{$_} } grep { /^counter_crdt_health_/ } keys %$sm;
is_deeply(\%got, \%want, 'its health gauges are the primary\'s, and one unlogged table skipped');
is($standby->safe_psql('app', 'SELECT "check", object FROM counter_crdt_health() ORDER BY 1, 2'),
	"unlogged_table_skipped_on_standby|scratch\nwriter_clock_near_limit|hits\nwriter_id_conflict|hits",
	'counter_crdt_health() on the standby names the unlogged table');
my ($stdout, $stderr);
$standby->psql('app', "\\set VERBOSITY verbose\nSELECT string_agg(table_name::text, ' ' ORDER BY 1) FROM counter_crdt_stat",
	stdout => \$stdout, stderr => \$stderr);
is($stderr, '', 'counter_crdt_stat on the standby, read by a superuser, has no error');
is($stdout, 'hits page_views shop.events_h2 shop.events_h3', 'and rows of the logged tables only');
# The writer report reads the logged tables there too, and says which it skips.
$standby->psql('app', "SELECT string_agg(DISTINCT table_name::text, ' ' ORDER BY table_name::text) FROM counter_crdt_writer_report()",
	stdout => \$stdout, stderr => \$stderr);
is($stdout, 'hits page_views shop.events_h2 shop.events_h3', 'counter_crdt_writer_report() on the standby reports the logged tables');
like($stderr, qr/WARNING:  skipping table .*scratch: it is unlogged, and this server is a standby/,
	'and warns that it skips the unlogged one');
$standby->psql('app', "SELECT count(*) FROM counter_crdt_writer_report('scratch')",
	stdout => \$stdout, stderr => \$stderr);
like($stderr, qr/ERROR:  cannot sweep table .*scratch: it is unlogged, and this server is a standby/,
	'named, the unlogged table is an error');

# prometheus-sql-exporter with the page's configuration, and a real
# Prometheus scraping it (renamed by the page's scrape configuration) and
# the exporter above: the same counter_crdt_* series, the same values.
my $sql_exporter = '/usr/bin/prometheus-sql-exporter';
my $prometheus = '/usr/bin/prometheus';
my $shipped_sql = "$FindBin::RealBin/../../monitoring/sql_exporter.yml";
is((-e $shipped_sql ? slurp_file($shipped_sql) : ''), recipe('metrics/sql-exporter-config'),
	'monitoring/sql_exporter.yml is the recipe block metrics/sql-exporter-config');

# Every name in the queries of both files is schema-qualified: what follows
# FROM, every function called and every type of a cast.
foreach my $name ('metrics/queries', 'metrics/sql-exporter-config')
{
	my @loose;
	my $text = recipe($name);
	while ($text =~ /^(\s*)query: \|\n((?:\1\s+\S.*\n)+)/mg)
	{
		my $sql = $2;
		push @loose, "FROM $1" while $sql =~ /\bFROM\s+([\w"]+)(?![\w"]*\.)/g;
		push @loose, "$1()" while $sql =~ /(?<![\w.])(\w+)\s*\(/g;
		push @loose, "::$1" while $sql =~ /::\s*(\w+)(?!\.)\b/g;
	}
	ok($text =~ /query: \|/ && !@loose, "every name in the queries of $name is schema-qualified")
	  or diag("unqualified: @loose");
}
SKIP:
{
	skip "prometheus-sql-exporter is not installed ($sql_exporter)", 4 unless -x $sql_exporter;
	skip "prometheus is not installed ($prometheus)", 4 unless -x $prometheus;
	my $sql_web = PostgreSQL::Test::Cluster::get_free_port();
	my $prom_web = PostgreSQL::Test::Cluster::get_free_port();
	# the schedule of one minute made one second, to compare without waiting
	my $config = "$dir/sql_exporter.yml";
	open(my $cf, '>', $config) or die "cannot write $config: $!";
	print $cf recipe('metrics/sql-exporter-config', {
		'127.0.0.1:5432' => "$host:$port", 'interval: 1m' => 'interval: 1s' });
	close $cf;
	my $cmd = recipe('metrics/sql-exporter', {
		'monitoring/sql_exporter.yml' => $config, '127.0.0.1:9237' => "127.0.0.1:$sql_web" });
	my $spid = fork() // die "fork: $!";
	if ($spid == 0)
	{
		setpgrp(0, 0);
		open(STDOUT, '>', "$dir/sql_exporter.log") or POSIX::_exit(1);
		open(STDERR, '>&', \*STDOUT) or POSIX::_exit(1);
		exec('bash', '-c', $cmd) or POSIX::_exit(1);
	}
	push @pids, $spid;
	# One prometheus.yml: doc/alerting.md's (its job counter_crdt scraping
	# the exporter above, its rules loaded, no Alertmanager listening), and
	# this page's job added to its scrape_configs: Prometheus refuses two
	# jobs of one name.
	my $prom_yml = "$dir/prometheus.yml";
	my $sql_job = recipe('metrics/prometheus-scrape', { '127.0.0.1:9237' => "127.0.0.1:$sql_web" });
	ok($sql_job =~ s/\Ascrape_configs:\n//, 'metrics/prometheus-scrape is a scrape_configs block');
	open(my $pf, '>', $prom_yml) or die "cannot write $prom_yml: $!";
	print $pf recipe('alerting/prometheus.yml', {
		'15s' => '1s',
		'/etc/prometheus/counter_crdt_rules.yml' => "$FindBin::RealBin/../../monitoring/counter_crdt_rules.yml",
		'127.0.0.1:9093' => '127.0.0.1:' . PostgreSQL::Test::Cluster::get_free_port(),
		'127.0.0.1:9187' => "127.0.0.1:$web_port" });
	print $pf $sql_job;
	close $pf;
	my $ppid = fork() // die "fork: $!";
	if ($ppid == 0)
	{
		setpgrp(0, 0);
		open(STDOUT, '>', "$dir/prometheus.log") or POSIX::_exit(1);
		open(STDERR, '>&', \*STDOUT) or POSIX::_exit(1);
		exec($prometheus, "--config.file=$prom_yml", "--storage.tsdb.path=$dir/tsdb",
			"--web.listen-address=127.0.0.1:$prom_web") or POSIX::_exit(1);
	}
	push @pids, $ppid;

	# Every counter_crdt_* series Prometheus has now, by job: "name{labels}"
	# => value, without instance, job and 0.11's server.
	my $series = sub {
		my $out = `$curl -s --max-time 10 -G http://127.0.0.1:$prom_web/api/v1/query --data-urlencode 'query={__name__=~"counter_crdt_.+"}'`;
		my %by;
		my $res = eval { JSON::PP::decode_json($out)->{data}{result} } // [];
		foreach my $r (@$res)
		{
			my %l = %{ $r->{metric} };
			my $job = delete $l{job} // '';
			my $name = delete $l{__name__};
			delete @l{qw(instance server)};
			$by{$job}{ $name . '{' . join(',', map { "$_=\"$l{$_}\"" } sort keys %l) . '}' } = $r->{value}[1];
		}
		return \%by;
	};
	my $by;
	for (1 .. 90)
	{
		$by = $series->();
		last if %{ $by->{counter_crdt_sql} // {} } && %{ $by->{counter_crdt} // {} }
		  && join(',', map { "$_=$by->{counter_crdt_sql}{$_}" } sort keys %{ $by->{counter_crdt_sql} })
		  eq join(',', map { "$_=$by->{counter_crdt}{$_}" } sort keys %{ $by->{counter_crdt} });
		usleep(500_000);
	}
	ok(scalar(keys %{ $by->{counter_crdt} // {} }) > 20, 'Prometheus has the series of prometheus-postgres-exporter (job counter_crdt)')
	  or diag(slurp_file("$dir/prometheus.log"));
	is_deeply($by->{counter_crdt_sql}, $by->{counter_crdt},
		'the SQL exporter\'s series, renamed by the page\'s scrape configuration, are the same with the same values')
	  or diag(slurp_file("$dir/sql_exporter.log"));
	ok(exists $by->{counter_crdt_sql}{"counter_crdt_shards_per_counter" . '{column_name="c",datname="app",quantile="0.99",relname="events",schemaname="shop"}'},
		'among them the quantiles of the partitioned table');
}

# Without pg_monitor the monitoring role may not read the tables: no series.
$node->safe_psql('app', 'REVOKE pg_monitor FROM counter_crdt_monitor');
$m = scrape();
ok(!defined col($m, 'counters'), 'no series of the table without pg_monitor');
ok(!defined col($m, 'counters', $EVENTS), 'nor of the partitioned table');
is(health($m, 'writer_id_conflict'), 1, 'the health gauges stay');

# Nothing planted for the monitoring role ran, at any scrape of any
# exporter above; nor in the first scrape's series.
is($node->safe_psql('app', "SELECT count(*) || ' calls ' || string_agg(DISTINCT who || ' ' || what, ', ') FROM counter_crdt_monitor.planted_calls"),
	'', 'no exporter ran the views or functions the database owner planted for the monitoring role');
ok(!grep({ /planted/ } keys %$primary_m), 'and no series of them');

# A search_path of the database that finds the planted schema first, even
# before pg_catalog: the role's own setting wins, and the queries of the
# file, run by hand as the role (doc/alerting.md), read the real views.
$node->safe_psql('app', q{
	SET ROLE regress_app_owner;
	ALTER DATABASE app SET search_path = counter_crdt_monitor, pg_catalog, public;
});
my ($by_hand) = recipe('metrics/queries') =~ /^counter_crdt_health:\n  query: \|\n((?:    .*\n)+)/m
  or die 'recipe metrics/queries has no health query as a block';
$by_hand =~ s/^    //mg;
is($node->safe_psql('app', "SELECT pg_catalog.current_setting('search_path'); SELECT datname, count(*) FROM ($by_hand) AS q GROUP BY 1",
		extra_params => [ '-U', 'counter_crdt_monitor' ]),
	"pg_catalog\napp|$nkinds", 'under the database\'s path of the owner, the role\'s stays pg_catalog, and the health query reads the real view');
$node->safe_psql('app', 'ALTER DATABASE app RESET search_path');
is($node->safe_psql('app', "SELECT count(*) FROM counter_crdt_monitor.planted_calls"), '0', 'still nothing planted ran');

# The careful install (metrics/extension-schema): the extension in a schema
# a superuser owns, the files edited to name it.  The database owner may
# rename public and plant a public of his own; the files read the
# extension's schema, which he may not rename.  (pg_monitor given back to
# the monitoring role, revoked above.)
$node->safe_psql('postgres', 'GRANT pg_monitor TO counter_crdt_monitor');
$node->safe_psql('postgres', 'CREATE DATABASE app_safe OWNER regress_app_owner');
$node->safe_psql('app_safe', recipe('metrics/extension-schema', { 'DATABASE app ' => 'DATABASE app_safe ' }));
$node->safe_psql('app_safe', qq{
	SET ROLE regress_app_owner;
	CREATE SCHEMA owned;
	CREATE TABLE owned.visits (k int PRIMARY KEY, c counter_crdt);
	INSERT INTO owned.visits VALUES (1, '{$A:1:5}'), (2, '{$A:1:2, $B:1:1}');
	ALTER SCHEMA public RENAME TO public_was;
});
$node->safe_psql('app_safe', plant('public'));
$node->psql('app_safe', 'SET ROLE regress_app_owner; ALTER SCHEMA counter_crdt RENAME TO counter_crdt_was',
	stdout => \$stdout, stderr => \$stderr);
like($stderr, qr/must be owner of schema counter_crdt/, 'the database owner may not rename the extension\'s schema');
# The files as shipped would read the owner's public: that is why.
is($node->safe_psql('app_safe', 'SELECT relname FROM public.counter_crdt_stat_tables',
		extra_params => [ '-U', 'counter_crdt_monitor' ]),
	'planted', 'with the extension out of public, public.counter_crdt_stat_tables is whatever the owner of public made');
is($node->safe_psql('app_safe', 'SELECT string_agg(who || \' \' || what, \', \') FROM public.planted_calls'),
	'counter_crdt_monitor counter_crdt_stat_tables', 'and it runs as the monitoring role');
$node->safe_psql('app_safe', 'TRUNCATE public.planted_calls');
my $safe_q = "$dir/safe/postgres_exporter_queries.yaml";
my $safe_s = "$dir/safe/sql_exporter.yml";
mkdir("$dir/safe") or die "mkdir: $!";
PostgreSQL::Test::Utils::append_to_file($safe_q, recipe('metrics/queries'));
PostgreSQL::Test::Utils::append_to_file($safe_s, recipe('metrics/sql-exporter-config'));
system('bash', '-c', recipe('metrics/extension-schema-files', {
	'monitoring/postgres_exporter_queries.yaml' => $safe_q, 'monitoring/sql_exporter.yml' => $safe_s }));
is($?, 0, 'recipe metrics/extension-schema-files runs');
foreach my $f ($safe_q, $safe_s)
{
	my $t = slurp_file($f);
	my $n = () = $t =~ /FROM counter_crdt\.counter_crdt_stat_\w+$/mg;
	is($n . ' ' . scalar(() = $t =~ /\bpublic\.counter_crdt_stat_/g), '4 0', "it names the extension's schema in the 4 queries of $f");
}
# This exporter as Debian's service runs it (recipe metrics/exporter-debian,
# /etc/default/prometheus-postgres-exporter): its variables in the
# environment, $ARGS split at spaces.
my $safe_web = PostgreSQL::Test::Cluster::get_free_port();
my $defaults = "$dir/safe/prometheus-postgres-exporter";
PostgreSQL::Test::Utils::append_to_file($defaults, recipe('metrics/exporter-debian', {
	'127.0.0.1:5432/app?' => "$host:$port/app_safe?",
	'/etc/prometheus/postgres_exporter_queries.yaml' => $safe_q,
	'127.0.0.1:9187' => "127.0.0.1:$safe_web" }));
{
	my $spid = fork() // die "fork: $!";
	if ($spid == 0)
	{
		setpgrp(0, 0);
		open(STDOUT, '>', "$dir/exporter_safe.log") or POSIX::_exit(1);
		open(STDERR, '>&', \*STDOUT) or POSIX::_exit(1);
		exec('bash', '-c', "set -a; . '$defaults'; set +a; exec $exporter_bin \$ARGS") or POSIX::_exit(1);
	}
	push @pids, $spid;
}
my $VISITS = '{column_name="c",datname="app_safe",relname="visits",schemaname="owned"}';
my $safe_m = scrape_until(sub { exists $_[0]{"counter_crdt_counters$VISITS"} }, $safe_web, 100, 200_000);
is_deeply([ map { $safe_m->{"counter_crdt_$_$VISITS"} } qw(counters writers shards) ], [ 2, 2, 3 ],
	'the exporter of the edited file, started as Debian\'s service starts it, serves the figures of the owner\'s table in app_safe')
  or diag(slurp_file("$dir/exporter_safe.log"));
is(scalar(grep { /^counter_crdt_health_problems\{datname="app_safe"/ } keys %$safe_m), $nkinds, "and its $nkinds health gauges");
ok(!grep({ /planted/ } keys %$safe_m), 'none of the owner\'s public');
is($node->safe_psql('app_safe', 'SELECT count(*) FROM public.planted_calls'), '0',
	'no scrape ran the owner\'s views');

foreach my $p (@pids)
{
	kill 'TERM', -$p;
	is(waitpid($p, 0), $p, "process $p stopped");
}
@pids = ();
$standby->stop;
$node->stop;
done_testing();
