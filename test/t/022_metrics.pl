# The metrics of doc/metrics.md, scraped by the real exporter: the recipes
# metrics/role, metrics/queries and metrics/exporter run as written (only
# the host, ports, database and the queries file's path substituted), the
# exporter started as the unprivileged monitoring role, its /metrics read
# with curl over loopback, and the counter_crdt_* series found with exact
# values:
#
#  - on a table of known counters;
#  - after a writer is folded (fold records, nothing pending), a late shard
#    of it applied (one pending fold), an own-id conflict and a clock near
#    its limit recorded by the merge trigger, a row deleted (a tombstone)
#    and new counters;
#  - on a hot standby of the server, scraped by a second exporter started
#    by the same recipe: the series of the logged tables exactly as on the
#    primary, none of an UNLOGGED table (a standby has no data of it; the
#    scan would fail with 58P01 and the scrape would lose every series of
#    the query), and a health gauge unlogged_table_skipped_on_standby
#    saying so;
#  - with pg_monitor revoked from the monitoring role: no series of the
#    table (it may not read it), the health gauges still there.
#
# And the queries file shipped in monitoring/ is that recipe block, the
# example output of the page is what the exporter prints for README.md's
# page_views (recipe first-session/numbers), and the collectors the recipe
# turns off print nothing.  Skipped when prometheus-postgres-exporter or
# curl is not installed.
use strict;
use warnings;

use PostgreSQL::Test::Utils;
BEGIN { $PostgreSQL::Test::Utils::use_unix_sockets = 0; }
use PostgreSQL::Test::Cluster;
use Test::More;
use Time::HiRes qw(usleep);
use POSIX ();
use FindBin;
use lib $FindBin::RealBin;
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
$node->init(allows_streaming => 1);
$node->append_conf('postgresql.conf', "counter_crdt.node_id = '$A'\n");
$node->start;
my $host = $node->host;
my $port = $node->port;
$node->safe_psql('postgres', 'CREATE DATABASE app');
$node->safe_psql('app', 'CREATE EXTENSION counter_crdt');
$node->safe_psql('app', recipe('metrics/role'));

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

# Starts the exporter by the recipe, for the server at $srv_port, listening
# on $web; its output goes to $log.  Returns its process id (its own
# process group, which the end stops).
my @pids;
sub start_exporter
{
	my ($srv_port, $web, $log) = @_;
	my $cmd = recipe('metrics/exporter', {
		'127.0.0.1:5432' => "$host:$srv_port",
		'monitoring/postgres_exporter_queries.yaml' => $queries,
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

my $HITS = '{column_name="c",datname="app",table_name="hits"}';
my $SCRATCH = '{column_name="n",datname="app",table_name="scratch"}';

# Waits for the exporter at $web to answer with its health gauges (which
# read no table), and returns that scrape.
sub first_scrape
{
	my ($web) = @_;
	my $m;
	for (1 .. 100)
	{
		$m = scrape($web);
		last if grep { /^counter_crdt_health_problems\{/ } keys %$m;
		usleep(200_000);
	}
	return $m;
}

my $m = first_scrape($web_port);
ok(exists $m->{"counter_crdt_counters$HITS"}, 'the exporter serves counter_crdt_counters')
  or diag(slurp_file($log));

# The page's example output, the server's address being this one's: each
# line is one the exporter prints.
foreach my $line (split /\n/, recipe('metrics/scrape', { '127.0.0.1:5432' => "$host:$port" }))
{
	ok((grep { $_ eq $line } split /\n/, $last_text), "the exporter prints: $line");
}
# The collectors the recipe turns off print nothing, nor do the default
# metrics.
my @families = sort keys %{ { map { /^(\w+)/ ? ($1 => 1) : () } grep { !/^#/ } split /\n/, $last_text } };
note('metric families: ' . join(' ', @families));
is_deeply([ grep { /^pg_/ && !/^pg_exporter_/ && $_ ne 'pg_up' } @families ], [],
	'no pg_* series but the exporter\'s own (no pg_stat_bgwriter_*, pg_database_size_*, settings)');

sub col
{
	my ($m, $metric) = @_;
	return $m->{"counter_crdt_$metric$HITS"};
}

sub health
{
	my ($m, $kind) = @_;
	return $m->{ 'counter_crdt_health_problems{kind="' . $kind . '"}' };
}

sub check_column
{
	my ($m, $want, $what) = @_;
	my %got = map { $_ => col($m, $_) } keys %$want;
	is_deeply(\%got, $want, $what);
}

check_column($m, {
	counters => 3, tombstones => 0, writers => 3, shards => 7, shards_max => 3,
	shards_p99 => 3, values_with_folds => 0, pending_folds => 0,
	own_id_conflicts => 0, clocks_near_limit => 0 }, 'the figures of three known counters');
is(scalar(grep { /^counter_crdt_health_problems\{/ } keys %$m), 16, 'a health gauge for each of 16 kinds');
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
  grep { !/^counter_crdt_health_/ && index($_, $SCRATCH) < 0 } keys %$primary_m;
my %got = map { $_ => $sm->{$_} } grep { !/^counter_crdt_health_/ } keys %$sm;
is_deeply(\%got, \%want, 'the standby\'s counter_crdt series are the primary\'s of the logged tables, exactly')
  or diag(slurp_file($standby_log));
ok(scalar(keys %got) > 0, 'the standby has counter_crdt series of its tables');
%want = map { $_ => $primary_m->{$_} } grep { /^counter_crdt_health_/ } keys %$primary_m;
is($want{'counter_crdt_health_problems{kind="unlogged_table_skipped_on_standby"}'}, 0, 'the primary\'s gauge of skipped tables is 0');
$want{'counter_crdt_health_problems{kind="unlogged_table_skipped_on_standby"}'} = 1;
%got = map { $_ => $sm->{$_} } grep { /^counter_crdt_health_/ } keys %$sm;
is_deeply(\%got, \%want, 'its health gauges are the primary\'s, and one unlogged table skipped');
is($standby->safe_psql('app', 'SELECT "check", object FROM counter_crdt_health() ORDER BY 1, 2'),
	"unlogged_table_skipped_on_standby|scratch\nwriter_clock_near_limit|hits\nwriter_id_conflict|hits",
	'counter_crdt_health() on the standby names the unlogged table');
my ($stdout, $stderr);
$standby->psql('app', "\\set VERBOSITY verbose\nSELECT string_agg(table_name::text, ' ' ORDER BY 1) FROM counter_crdt_stat",
	stdout => \$stdout, stderr => \$stderr);
is($stderr, '', 'counter_crdt_stat on the standby, read by a superuser, has no error');
is($stdout, 'hits page_views', 'and rows of the logged tables only');
# The writer report reads the logged tables there too, and says which it skips.
$standby->psql('app', "SELECT string_agg(DISTINCT table_name::text, ' ' ORDER BY table_name::text) FROM counter_crdt_writer_report()",
	stdout => \$stdout, stderr => \$stderr);
is($stdout, 'hits page_views', 'counter_crdt_writer_report() on the standby reports the logged tables');
like($stderr, qr/WARNING:  skipping table .*scratch: it is unlogged, and this server is a standby/,
	'and warns that it skips the unlogged one');
$standby->psql('app', "SELECT count(*) FROM counter_crdt_writer_report('scratch')",
	stdout => \$stdout, stderr => \$stderr);
like($stderr, qr/ERROR:  cannot sweep table .*scratch: it is unlogged, and this server is a standby/,
	'named, the unlogged table is an error');

# Without pg_monitor the monitoring role may not read the table: no series.
$node->safe_psql('app', 'REVOKE pg_monitor FROM counter_crdt_monitor');
$m = scrape();
ok(!defined col($m, 'counters'), 'no series of the table without pg_monitor');
is(health($m, 'writer_id_conflict'), 1, 'the health gauges stay');

foreach my $p (@pids)
{
	kill 'TERM', -$p;
	is(waitpid($p, 0), $p, "exporter $p stopped");
}
@pids = ();
$standby->stop;
$node->stop;
done_testing();
