# The client drivers of doc/clients.md, the real ones as scripts/setup.sh
# installs them: psycopg 3 (Debian's python3-psycopg, for /usr/bin/python3),
# node-postgres (test/clients/node/node_modules, npm ci of its lock file)
# and pgjdbc (Debian's libpostgresql-jdbc-java, on the JDK's java).
#
# 1. The checks of test/clients/: each script prints "ok N - what" or
#    "not ok N - what" per check; each line is a check here, and the script
#    must end with its plan and exit 0.
# 2. The programs of doc/clients.md, run as written on a fresh database
#    "shop" (recipes clients/table and clients/role, the writer id the page
#    shows), each printing exactly what the page shows; the binary COPY
#    program between two servers, run twice (merging again changes
#    nothing).  The pgjdbc program runs as written but for the port of its
#    URL (localhost:5432 is localhost and a's port here): it logs in as the
#    role of clients/role with the URL's password, which a asks for over
#    TCP (scram-sha-256, as Debian's pg_hba.conf does), whatever the
#    operating-system user that runs java.
#
# A missing driver fails, it does not skip: setup installs them.  Only on
# the PostgreSQL of the machine itself (15), not in the chroots of
# scripts/test.sh, which have no drivers.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run ();
use File::Temp ();
use FindBin;
use lib $FindBin::RealBin;
use SignalExit;
use ClientChecks qw(relay_checks run_cmd);
use ReadmeRecipe;

if ($ENV{COUNTER_CRDT_IN_CHROOT})
{
	plan skip_all => 'client drivers are tested on the machine\'s own PostgreSQL only, not in the chroot of '
	  . $ENV{COUNTER_CRDT_IN_CHROOT};
}

my $clients = "$FindBin::RealBin/../clients";
my $python = '/usr/bin/python3';    # Debian's, for which python3-psycopg is built
my $jdbc = '/usr/share/java/postgresql.jar';
my $node_modules = "$clients/node/node_modules";
my $doc_id = '7ddd454a-30ea-3e9a-a5d1-3d0092b783a6';

ok(system($python, '-c', 'import psycopg') == 0, "psycopg 3 imports in $python (python3-psycopg)");
ok(-f $jdbc, "pgjdbc is installed ($jdbc, libpostgresql-jdbc-java)");
ok(system('sh', '-c', 'command -v java >/dev/null') == 0, 'java is on PATH (default-jdk-headless)');
ok(-f "$node_modules/pg/package.json", "node-postgres is installed ($node_modules, npm ci by setup)");

# Two servers; a also on 127.0.0.1, for pgjdbc, which does not speak over
# Unix sockets.
my $a = PostgreSQL::Test::Cluster->new('clients_a');
$a->init;
$a->append_conf('postgresql.conf', "listen_addresses = '127.0.0.1'\nlog_connections = on");
{
	# the role of the page's set-up over TCP: with its password, as Debian
	# asks; every other role as the test servers let it in
	my $hba = $a->data_dir . '/pg_hba.conf';
	my $rest = slurp_file($hba);
	open(my $fh, '>', $hba) or die "cannot write $hba: $!";
	print $fh "host all shop_user 127.0.0.1/32 scram-sha-256\n" . $rest;
	close($fh);
}
$a->start;
my $b = PostgreSQL::Test::Cluster->new('clients_b');
$b->init;
$b->start;

my $tmp = File::Temp::tempdir('clients_XXXX', DIR => $PostgreSQL::Test::Utils::tmp_check, CLEANUP => 1);

# One driver's checks: every "ok"/"not ok" line a check here.
sub run_checks
{
	my ($name, $env, @cmd) = @_;
	my ($rc, $out, $err) = run_cmd($env, @cmd);
	relay_checks($name, $rc, $out, $err);
	return;
}

run_checks('psycopg', {
		CLIENTS_DSN => 'host=' . $a->host . ' port=' . $a->port . ' dbname=postgres',
		CLIENTS_DSN_B => 'host=' . $b->host . ' port=' . $b->port . ' dbname=postgres' },
	$python, "$clients/psycopg/clients.py");
run_checks('node-postgres',
	{ PGHOST => $a->host, PGPORT => $a->port, PGDATABASE => 'postgres', NODE_PATH => $node_modules },
	'node', "$clients/node/clients.js");
run_checks('pgjdbc',
	{ PGHOST => '127.0.0.1', PGPORT => $a->port, PGUSER => scalar(getpwuid($<)), PGDATABASE => 'postgres' },
	'java', '-cp', $jdbc, "$clients/pgjdbc/Clients.java");

# A fresh database "shop" on a node: the table of the page, under the
# writer id that the page's printed states show (or the server's own).
sub fresh_shop
{
	my ($node, $id) = @_;
	$node->safe_psql('postgres', "DROP DATABASE IF EXISTS shop;\nDROP ROLE IF EXISTS shop_user;\nCREATE DATABASE shop;");
	$node->safe_psql('postgres', "LOAD 'counter_crdt';\nALTER DATABASE shop SET counter_crdt.node_id = '$id';")
	  if $id;
	$node->safe_psql('shop', recipe('clients/table'));
	$node->safe_psql('shop', recipe('clients/role'));
	return;
}

# One program of the page, written to a file and run; what it prints is what
# the page shows.
sub run_program
{
	my ($name, $file, $text, $env, @cmd) = @_;
	my $path = "$tmp/$file";
	open(my $fh, '>', $path) or die "cannot write $path: $!";
	print $fh $text;
	close($fh);
	my ($rc, $out, $err) = run_cmd($env, @cmd, $path);
	is($rc, 0, "doc/clients.md, $name: runs") or diag($err);
	return $out;
}

my %on_a = (PGHOST => $a->host, PGPORT => $a->port);

fresh_shop($a, $doc_id);
my $out = run_program('psycopg', 'counters.py', recipe('clients/psycopg'), \%on_a, $python);
is($out, recipe('clients/psycopg.out'), 'doc/clients.md, psycopg: prints what the page shows');

# b holds counts of its own, under its own id; a is as the program left it.
$b->safe_psql('postgres', 'DROP DATABASE IF EXISTS shop; CREATE DATABASE shop;');
$b->safe_psql('shop', q{
	CREATE EXTENSION counter_crdt;
	CREATE TABLE t (k int PRIMARY KEY, c counter_crdt);
	INSERT INTO t VALUES (1, NULL::counter_crdt + 1000), (3, NULL::counter_crdt + 4);
});
my $copy = recipe('clients/psycopg-copy', {
	'host=a' => 'host=' . $a->host . ' port=' . $a->port,
	'host=b' => 'host=' . $b->host . ' port=' . $b->port });
my $states;
foreach my $round (1, 2)
{
	$out = run_program("binary COPY, round $round", "copy$round.py", $copy, {}, $python);
	is($out, recipe('clients/psycopg-copy.out'),
		"doc/clients.md, binary COPY, round $round: prints what the page shows");
	my $now = $b->safe_psql('shop', 'SELECT k, c FROM t ORDER BY k');
	is($now, $states, 'merging the same states again changes no state') if $round == 2;
	$states = $now;
}
ok($states =~ /^1\|.*\b$doc_id:3:12\b/m && $states =~ /^1\|.*:1:1000[,}]/m,
	'k = 1 holds both writers\' shards on b')
  or diag($states);

fresh_shop($a, $doc_id);
$out = run_program('node-postgres', 'counters.js', recipe('clients/node'),
	{ %on_a, NODE_PATH => $node_modules }, 'node');
is($out, recipe('clients/node.out'), 'doc/clients.md, node-postgres: prints what the page shows');

fresh_shop($a, $doc_id);
my $log_at = -s $a->logfile;
$out = run_program('pgjdbc', 'Counters.java',
	recipe('clients/pgjdbc', { 'jdbc:postgresql://localhost:5432/' => 'jdbc:postgresql://localhost:' . $a->port . '/' }),
	{}, 'java', '-cp', $jdbc);
is($out, recipe('clients/pgjdbc.out'), 'doc/clients.md, pgjdbc: prints what the page shows');
like(substr(slurp_file($a->logfile), $log_at),
	qr/connection authenticated: identity="shop_user" method=scram-sha-256/,
	'doc/clients.md, pgjdbc: logs in as the role of the set-up, with the password of its URL');
is($a->safe_psql('shop', q{SELECT string_agg(k || ':' || c::bigint, ' ' ORDER BY k) FROM t}),
	'1:12 2:300', 'doc/clients.md, pgjdbc: its increments are in t');

# The trap of the page's first section, and the guard that refuses it: the
# state read before another session's increment, written back.
fresh_shop($a, $doc_id);
$a->safe_psql('shop', 'UPDATE t SET c = c + 1 WHERE k = 1');
my $read = $a->safe_psql('shop', 'SELECT c FROM t WHERE k = 1');
$a->safe_psql('shop', 'UPDATE t SET c = c + 10 WHERE k = 1');
$a->safe_psql('shop', "UPDATE t SET c = '$read' WHERE k = 1");
is($a->safe_psql('shop', 'SELECT c::bigint FROM t WHERE k = 1'), '1',
	'doc/clients.md, the trap: without the guard the written-back state undoes the increment');
$a->safe_psql('shop', 'UPDATE t SET c = c + 10 WHERE k = 1');
$a->safe_psql('shop', recipe('clients/guard'));
my ($rc, $stdout, $stderr) = $a->psql('shop', "UPDATE t SET c = '$read' WHERE k = 1",
	extra_params => [ '-v', 'VERBOSITY=default' ]);
isnt($rc, 0, 'doc/clients.md, guarded: the written-back state is refused');
$stderr =~ s/^psql:<stdin>:\d+: //mg;
is("$stderr\n", recipe('clients/guard.out'), 'doc/clients.md, guarded: the error the page shows');
is($a->safe_psql('shop', 'SELECT c::bigint FROM t WHERE k = 1'), '11',
	'doc/clients.md, guarded: the refused write changed nothing');
($rc, $stdout, $stderr) = $a->psql('shop', "\\set VERBOSITY sqlstate\nUPDATE t SET c = '$read' WHERE k = 1");
like($stderr, qr/ERROR:  23000/, 'doc/clients.md, guarded: SQLSTATE 23000');
$a->safe_psql('shop', 'UPDATE t SET c = c + 1 WHERE k = 1');
is($a->safe_psql('shop', 'SELECT c::bigint FROM t WHERE k = 1'), '12',
	'doc/clients.md, guarded: increments pass');

$a->stop;
$b->stop;
done_testing();
