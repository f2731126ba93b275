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
#  - with pg_monitor revoked from the monitoring role: no series of the
#    table (it may not read it), the health gauges still there.
#
# And the queries file shipped in monitoring/ is that recipe block.  Skipped
# when prometheus-postgres-exporter or curl is not installed.
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
$node->init;
$node->append_conf('postgresql.conf', "counter_crdt.node_id = '$A'\n");
$node->start;
my $host = $node->host;
my $port = $node->port;
$node->safe_psql('postgres', 'CREATE DATABASE app');
$node->safe_psql('app', 'CREATE EXTENSION counter_crdt');
$node->safe_psql('app', recipe('metrics/role'));

# Three counters: two of A and B, one of A, B and C.
$node->safe_psql('app', qq{
	CREATE TABLE page_views (k int PRIMARY KEY, c counter_crdt);
	SELECT counter_crdt_enable_replica_merge('page_views');
	INSERT INTO page_views VALUES
	  (1, '{$A:1:5, $B:1:7}'), (2, '{$A:2:1, $B:3:2}'), (3, '{$A:1:1, $B:1:1, $C:1:1}');
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
my $web_port = PostgreSQL::Test::Cluster::get_free_port();
my $cmd = recipe('metrics/exporter', {
	'127.0.0.1:5432' => "$host:$port",
	'monitoring/postgres_exporter_queries.yaml' => $queries,
	'127.0.0.1:9187' => "127.0.0.1:$web_port" });
my $log = "$dir/exporter.log";
my $pid = fork() // die "fork: $!";
if ($pid == 0)
{
	setpgrp(0, 0);    # its own process group, which the end stops
	open(STDOUT, '>', $log) or POSIX::_exit(1);
	open(STDERR, '>&', \*STDOUT) or POSIX::_exit(1);
	exec('bash', '-c', $cmd) or POSIX::_exit(1);
}
END
{
	if ($pid)
	{
		kill 'TERM', -$pid;
		waitpid($pid, 0);
	}
}

# The counter_crdt series of one scrape: "name{labels}" => value, labels
# sorted, the server label left out.
sub scrape
{
	my $text = `$curl -s --max-time 20 http://127.0.0.1:$web_port/metrics`;
	my %m;
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

# Waits for the exporter to answer with the table's series.
my $m;
for (1 .. 100)
{
	$m = scrape();
	last if exists $m->{'counter_crdt_counters{column_name="c",datname="app",table_name="page_views"}'};
	usleep(200_000);
}
ok(exists $m->{'counter_crdt_counters{column_name="c",datname="app",table_name="page_views"}'},
	'the exporter serves counter_crdt_counters')
  or diag(slurp_file($log));

sub col
{
	my ($m, $metric) = @_;
	return $m->{"counter_crdt_$metric" . '{column_name="c",datname="app",table_name="page_views"}'};
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
is(scalar(grep { /^counter_crdt_health_problems\{/ } keys %$m), 15, 'a health gauge for each of 15 kinds');
is(health($m, 'writer_id_conflict'), 0, 'no own-id conflict yet');

# B folded into A (this server's id), then a late shard of B applied to
# row 2 (pending there), an own-id conflict and a clock near its limit
# applied to row 3, row 1 deleted (a tombstone), two new counters.
$node->safe_psql('app', "SELECT * FROM counter_crdt_fold_writer('$B')");
$node->safe_psql('app', qq{
	SET session_replication_role = replica;
	UPDATE page_views SET c = '{$B:9:20}' WHERE k = 2;
	UPDATE page_views SET c = '{$A:50:50}' WHERE k = 3;
	UPDATE page_views SET c = '{$C:4611686018427387904:1}' WHERE k = 3;
	RESET session_replication_role;
	DELETE FROM page_views WHERE k = 1;
	INSERT INTO page_views VALUES (4, '{}'::counter_crdt + 1), (5, '{$C:1:1}');
});
is($node->safe_psql('app',
	"SELECT string_agg(k || ':' || counter_crdt_fold_pending(c, '$B'), ' ' ORDER BY k) FROM page_views WHERE c::text <> 'tombstone'"),
	'2:true 3:false 4:false 5:false', 'the fold is pending in row 2 only');

$m = scrape();
# Rows 2 {A, B} and 3 {A, C}, both with B's record; 4 {A}; 5 {C}; 1 a tombstone.
check_column($m, {
	counters => 4, tombstones => 1, writers => 3, shards => 6, shards_max => 2,
	shards_p99 => 2, values_with_folds => 2, pending_folds => 1,
	own_id_conflicts => 1, clocks_near_limit => 1 }, 'the figures after a fold, a late shard, conflicts, a delete and inserts');
is(health($m, 'writer_id_conflict'), 1, 'the own-id conflict is a health problem');
is(health($m, 'writer_clock_near_limit'), 1, 'so is the clock near its limit');

# Without pg_monitor the monitoring role may not read the table: no series.
$node->safe_psql('app', 'REVOKE pg_monitor FROM counter_crdt_monitor');
$m = scrape();
ok(!defined col($m, 'counters'), 'no series of the table without pg_monitor');
is(health($m, 'writer_id_conflict'), 1, 'the health gauges stay');

kill 'TERM', -$pid;
is(waitpid($pid, 0), $pid, 'the exporter stopped');
$pid = 0;
$node->stop;
done_testing();
