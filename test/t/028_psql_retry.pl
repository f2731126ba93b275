# The helpers of test/t/PsqlRetry.pm, which the tests use on servers that
# may restart under them (Patroni members, a server restarting after a
# crash): against a server that is down they neither die nor hang, and a
# server stopped and started again while they poll is answered once it is
# back.  Deterministic: the server is down for a known time, and the SQL is
# larger than a pipe's buffer, so that a helper feeding it to psql's
# standard input would meet EPIPE on every attempt ("ack Broken pipe").
# 15 s; 30 s on a busy machine.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use SignalExit;
use IPC::Run ();
use Time::HiRes qw(time);
use PsqlRetry;

my $node = PostgreSQL::Test::Cluster->new('r');
$node->init;
$node->start;

# 100 kB of SQL: more than a pipe holds (64 kB on Linux)
my $pad = "-- padding to pass the pipe's buffer\n" x 3000;
my $big = "SELECT 1 AS one\n$pad;\n";
cmp_ok(length($big), '>', 65536, 'the SQL is larger than a pipe buffer');
is(psql_try($node, 'postgres', $big), '1', 'psql_try: the answer of a running server');

# A server that is not running: every helper fails as it says, no die.
$node->stop('fast');
my ($out, $err) = psql_try($node, 'postgres', $big);
ok(!defined $out, 'psql_try on a stopped server: undef');
like($err, qr/connection to server|could not connect|No such file/, 'psql_try: and the error psql printed');
my $lived = eval { psql_try($node, 'postgres', $big) for 1 .. 20; 1 };
ok($lived, 'psql_try: 20 attempts on a stopped server, none dies') or diag($@);
note('for comparison, $node->psql with the same SQL: '
	  . (eval { $node->psql('postgres', $big); 'returned' } // 'died: ' . (split /\n/, $@)[0]));
my $t = time;
ok(!eval { psql_retry($node, 'postgres', $big, 2); 1 }, 'psql_retry dies at its deadline');
like($@, qr/did not answer within 2 s .*attempts/, 'psql_retry: naming the deadline');
cmp_ok(time - $t, '<', 10, 'psql_retry: at about its deadline');
{
	# its diag, kept from the test's output
	my $tb = Test::More->builder;
	my $keep = $tb->failure_output;
	my $diag = '';
	$tb->failure_output(\$diag);
	my $r = psql_poll($node, 'postgres', 'SELECT true', 't', 2);
	$tb->failure_output($keep);
	ok(!$r, 'psql_poll: false at its deadline');
	like($diag, qr/timed out after 2 s.*exit code 2.*connection to server/s, 'psql_poll: a diag of the last attempt');
}

# The server started again 3 s after the helpers begin: pg_ctl runs beside
# the test (a shell that sleeps first), as Patroni or the postmaster itself
# would restart the server, while the helpers retry.
sub start_later
{
	my ($secs) = @_;
	return IPC::Run::start(
		[
			'sh', '-c', 'sleep "$1" && pg_ctl -D "$2" -l "$3" -w start', 'start_later',
			$secs, $node->data_dir, $node->logfile
		],
		'<', '/dev/null', '>', \my $o, '2>', \my $e);
}

# The Cluster object learns the new postmaster's pid (start and stop do the
# same), so that the test's end stops it.
sub started
{
	my ($h) = @_;
	$h->finish;
	$node->_update_pid(1);
	return $h->result(0) == 0;
}

my $h = start_later(3);
$t = time;
ok(psql_poll($node, 'postgres', "SELECT true\n$pad;\n", 't', 60),
	'psql_poll: true once the server is back');
my $waited = time - $t;
cmp_ok($waited, '>=', 2.5, sprintf('psql_poll: it waited for the start (%.1f s)', $waited));
ok(started($h), 'the server started beside the test');

$node->stop('fast');
$h = start_later(3);
$t = time;
is(psql_retry($node, 'postgres', $big, 60), '1', 'psql_retry: the answer once the server is back');
cmp_ok(time - $t, '>=', 2.5, 'psql_retry: it waited for the start');
ok(started($h), 'the server started beside the test again');

# A restart in the middle of a statement: its connection is lost, the
# attempt fails, the next one answers.
$h = IPC::Run::start(
	[ 'sh', '-c', 'sleep 1 && pg_ctl -D "$1" -m fast -w restart -l "$2"', 'restart', $node->data_dir, $node->logfile ],
	'<', '/dev/null', '>', \my $o, '2>', \my $e);
($out, $err) = psql_try($node, 'postgres', 'SELECT 2 FROM pg_sleep(5)');
ok(!defined $out && $err =~ /terminating connection|connection to server was lost/,
	'psql_try: a statement cut by a fast restart is undef, its connection lost')
  or diag("output: " . ($out // 'undef') . ", stderr: $err");
is(psql_retry($node, 'postgres', 'SELECT 2', 60), '2', 'psql_retry: the answer during or after the restart');
ok(started($h), 'the server restarted beside the test');

# The error of the SQL itself is no reason to die either: psql_try says so.
($out, $err) = psql_try($node, 'postgres', 'SELECT 1/0');
ok(!defined $out && $err =~ /division by zero/, 'psql_try: an SQL error is undef and its message');

$node->stop('fast');
done_testing();
