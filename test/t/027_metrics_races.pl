# The metrics, health and sweeps against half-done DDL (issue 45, 1.10).
#
#  - A partition whose DETACH ... CONCURRENTLY was interrupted (by
#    statement_timeout, while another session held a snapshot) has no
#    ancestors in get_partition_ancestors(): on 1.9 one scrape by any role
#    crashed the server, there and on a hot standby replaying the catalog.
#    Scraped here as a role with CONNECT and TEMP only, as pg_monitor, as
#    the owner, on the primary and on a standby, with the sweeps and
#    health; the server must not restart, and the partition is shown as a
#    table of its own until DETACH ... FINALIZE.
#  - A table that someone's DDL holds locked: with lock_timeout set, the
#    scrape skips it (a WARNING) and health names it
#    (table_locked_skipped), instead of failing (55P03); the next scrape
#    after the lock is gone has its figures again.
#  - A scrape of 1,000 tables by counter_crdt_stat_tables peaks where one by
#    counter_crdt_stat does.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use SignalExit;

my $primary = PostgreSQL::Test::Cluster->new('races');
$primary->init(allows_streaming => 1);
$primary->append_conf('postgresql.conf', "wal_level = logical\n");
$primary->start;
$primary->safe_psql('postgres', q{
	CREATE EXTENSION counter_crdt;
	CREATE ROLE temp_only LOGIN;
	REVOKE ALL ON DATABASE postgres FROM PUBLIC;
	GRANT CONNECT, TEMP ON DATABASE postgres TO temp_only;
	REVOKE CREATE ON SCHEMA public FROM PUBLIC;
	CREATE ROLE mon LOGIN IN ROLE pg_monitor;
	CREATE ROLE owner LOGIN;
	GRANT CONNECT ON DATABASE postgres TO mon, owner;
	CREATE SCHEMA app AUTHORIZATION owner;
	SET ROLE owner;
	CREATE TABLE app.hits (k int, c counter_crdt) PARTITION BY LIST (k);
	CREATE TABLE app.hits_1 PARTITION OF app.hits FOR VALUES IN (1);
	CREATE TABLE app.hits_2 PARTITION OF app.hits FOR VALUES IN (2);
	INSERT INTO app.hits SELECT k, '{}'::counter_crdt + k FROM generate_series(1, 2) k, generate_series(1, 10);
	CREATE TABLE app.days (k int, c counter_crdt) PARTITION BY LIST (k);
	CREATE TABLE app.days_1 (k int, c counter_crdt) PARTITION BY LIST (k);
	CREATE TABLE app.days_1a PARTITION OF app.days_1 FOR VALUES IN (1);
	ALTER TABLE app.days ATTACH PARTITION app.days_1 FOR VALUES IN (1);
	CREATE TABLE app.days_2 PARTITION OF app.days FOR VALUES IN (2);
	INSERT INTO app.days SELECT k, '{}'::counter_crdt + k FROM generate_series(1, 2) k, generate_series(1, 10);
	CREATE TABLE app.locked (k int PRIMARY KEY, c counter_crdt);
	INSERT INTO app.locked VALUES (1, '{}'::counter_crdt + 5);
	SELECT counter_crdt_enable_replica_merge('app.locked');
	RESET ROLE;
	CREATE PUBLICATION pub FOR TABLE app.locked WITH (publish = 'insert, update, delete');
});
$primary->backup('b');
my $standby = PostgreSQL::Test::Cluster->new('races_standby');
$standby->init_from_backup($primary, 'b', has_streaming => 1);
$standby->start;

sub started { my ($n) = @_; return $n->safe_psql('postgres', 'SELECT pg_postmaster_start_time()'); }
my %start = (primary => started($primary), standby => started($standby));

# Leaves the partition $part of $parent detach-pending: a session holds a
# snapshot that sees it, and the DETACH waits for it until statement_timeout.
sub interrupted_detach
{
	my ($parent, $part) = @_;
	my $holder = $primary->background_psql('postgres');
	$holder->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ');
	$holder->query_safe("SELECT count(*) FROM $parent");
	my ($rc, $out, $err) = $primary->psql('postgres',
		"SET statement_timeout = '1s'; ALTER TABLE $parent DETACH PARTITION $part CONCURRENTLY");
	like($err, qr/statement timeout/, "the detach of $part was interrupted");
	$holder->query_safe('COMMIT');
	$holder->quit;
	is($primary->safe_psql('postgres',
			"SELECT inhdetachpending FROM pg_inherits WHERE inhrelid = '$part'::regclass"),
		't', "$part is detach-pending");
}
interrupted_detach('app.hits', 'app.hits_2');
# a sub-partitioned partition too (one pending detach per parent): its
# leaf's ancestors stop at days_1
interrupted_detach('app.days', 'app.days_1');
$primary->wait_for_catchup($standby, 'replay');

my $tables = q{SELECT schemaname || '.' || relname || ':' || partitions || ':' || counters
	FROM counter_crdt_stat_tables WHERE schemaname = 'app' ORDER BY 1};
my $expected = "app.days:1:10\napp.days_1:1:10\napp.hits:1:10\napp.hits_2:0:10\napp.locked:0:1";
for my $where ([ primary => $primary ], [ standby => $standby ])
{
	my ($name, $node) = @$where;
	# temp_only sees no table of app, but its scrape reads the catalog of all
	my ($rc, $out, $err) = $node->psql('postgres',
		'SELECT count(*) FROM counter_crdt_stat_tables; SELECT count(*) FROM counter_crdt_stat',
		extra_params => [ '-U', 'temp_only' ]);
	is($rc, 0, "$name: a TEMP-only role scrapes both views") or diag($err);
	is($out, "0\n0", "$name: and sees no row of tables it may not read");
	($rc, $out, $err) = $node->psql('postgres', $tables, extra_params => [ '-U', 'mon' ]);
	is($out, $expected, "$name: pg_monitor sees the detach-pending partitions as tables of their own")
	  or diag($err);
	($rc, $out, $err) = $node->psql('postgres', $tables, extra_params => [ '-U', 'owner' ]);
	is($out, $expected, "$name: and so does their owner") or diag($err);
	($rc, $out, $err) = $node->psql('postgres',
		q{SELECT count(*) >= 0 FROM counter_crdt_health()}, extra_params => [ '-U', 'mon' ]);
	is($rc, 0, "$name: health answers") or diag($err);
	is(started($node), $start{$name}, "$name: the server did not restart");
}

# The sweeps and the writer report as the owner.
my ($rc, $out, $err) = $primary->psql('postgres', q{
	SELECT count(*) FROM counter_crdt_writer_report(NULL) WHERE table_name::text LIKE 'app.%';
	SELECT count(*) FROM counter_crdt_fold_writers(ARRAY['00000000-0000-0000-0000-0000000000f1'::uuid]);
	SELECT count(*) FROM counter_crdt_fold_writers(ARRAY['00000000-0000-0000-0000-0000000000f1'::uuid], 'app.hits')},
	extra_params => [ '-U', 'owner' ]);
is($rc, 0, 'the writer report and the sweeps run beside detach-pending partitions') or diag($err);
is(started($primary), $start{primary}, 'primary: the server did not restart');

$primary->safe_psql('postgres', q{
	ALTER TABLE app.hits DETACH PARTITION app.hits_2 FINALIZE;
	ALTER TABLE app.days DETACH PARTITION app.days_1 FINALIZE});
is($primary->safe_psql('postgres', $tables), $expected,
	'after FINALIZE: the same figures, days_1 now a partitioned table of its own');

# ---------------------------------------------------------------------
# A table held by someone's DDL, with lock_timeout set.  A scrape that
# waited for the lock would wait for ever: each is given 60 s.
my $ddl = $primary->background_psql('postgres');
$ddl->query_safe('BEGIN');
$ddl->query_safe('LOCK TABLE app.locked IN ACCESS EXCLUSIVE MODE');
($rc, $out, $err) = $primary->psql('postgres',
	"SET lock_timeout = '300ms'; $tables", extra_params => [ '-U', 'mon' ], timeout => 60);
is($rc, 0, 'a scrape with lock_timeout does not fail on a locked table') or diag($err);
is($out, "app.days:1:10\napp.days_1:1:10\napp.hits:1:10\napp.hits_2:0:10",
	'it has the figures of every other table, none of the locked one');
like($err, qr/WARNING:  counter_crdt metrics skip table locked: it could not be locked within lock_timeout/,
	'and says which table it skipped');
($rc, $out, $err) = $primary->psql('postgres',
	"SET lock_timeout = '300ms'; SELECT table_name::text FROM counter_crdt_stat ORDER BY 1",
	extra_params => [ '-U', 'mon' ], timeout => 60);
is($rc, 0, 'so does counter_crdt_stat') or diag($err);
unlike($out, qr/locked/, 'without the locked table');
($rc, $out, $err) = $primary->psql('postgres',
	q{SET lock_timeout = '300ms'; SELECT "check" || ' ' || object FROM counter_crdt_health()},
	extra_params => [ '-U', 'mon' ], timeout => 60);
is($rc, 0, 'health with lock_timeout does not fail') or diag($err);
is($out, 'table_locked_skipped app.locked', 'it names the table it skipped');
($rc, $out, $err) = $primary->psql('postgres',
	q{SET lock_timeout = '300ms'; SELECT kind || ' ' || problems FROM counter_crdt_stat_health},
	extra_params => [ '-U', 'mon' ], timeout => 60);
like($out, qr/^table_locked_skipped 1$/m, 'counter_crdt_stat_health counts it') or diag($err);
$ddl->query_safe('COMMIT');
$ddl->quit;
is($primary->safe_psql('postgres', "SET lock_timeout = '300ms'; $tables"), $expected,
	'the lock gone, the next scrape has its figures again');
is($primary->safe_psql('postgres', 'SELECT count(*) FROM counter_crdt_health()'), '0',
	'and health is quiet');

# ---------------------------------------------------------------------
# Memory: counter_crdt_stat_tables keeps one table's figures at a time, so a
# scrape of many tables peaks where counter_crdt_stat does (both open every
# table; 1.9 kept every table's figures, about 36 kB more a table: 36 MB
# here).  Each view is read by a fresh backend, whose peak resident memory
# (VmHWM; the same shared buffers are read by both) is compared.
# (in transactions of 100 tables: each holds its tables' locks to its end)
$primary->safe_psql('postgres', 'CREATE SCHEMA many;' . join('', map { qq{
	DO \$\$ BEGIN
		FOR i IN $_ .. $_ + 99 LOOP
			EXECUTE format('CREATE TABLE many.t%s (k int, a counter_crdt, b counter_crdt)', i);
			EXECUTE format('INSERT INTO many.t%s VALUES (1, ''{}''::counter_crdt + 1, ''{}''::counter_crdt + 2)', i);
		END LOOP;
	END \$\$;} } map { 100 * $_ + 1 } 0 .. 9));
sub peak_kb
{
	my ($view) = @_;
	my $s = $primary->background_psql('postgres');
	my $pid = $s->query_safe('SELECT pg_backend_pid()');
	$s->query_safe("SELECT count(*) FROM $view");
	my ($hwm) = PostgreSQL::Test::Utils::slurp_file("/proc/$pid/status") =~ /^VmHWM:\s+(\d+) kB/m;
	$s->quit;
	return $hwm;
}
peak_kb('counter_crdt_stat');	# the first reads warm the caches of the server
my %kb = map { ($_ => peak_kb($_)) } qw(counter_crdt_stat counter_crdt_stat_tables);
cmp_ok($kb{counter_crdt_stat_tables} - $kb{counter_crdt_stat}, '<', 8 * 1024,
	"2,000 counter columns: counter_crdt_stat_tables peaks within 8 MB of counter_crdt_stat "
	  . "($kb{counter_crdt_stat_tables} kB, $kb{counter_crdt_stat} kB)");

$standby->stop;
$primary->stop;
done_testing();
