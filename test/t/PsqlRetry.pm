# psql against a server that may restart under the test: a Patroni member
# that Patroni restarts, a server that restarts itself after a backend's
# crash, a server a test stops and starts.  Nothing here dies when the
# server is gone, restarting or not yet accepting connections: an attempt
# that fails is retried until the deadline.
#
#   use PsqlRetry;
#   my $out = psql_try($node, 'app', 'SELECT 1');    # one attempt: output or undef
#   my $out = psql_retry($node, 'app', $sql, 60);    # until it runs: output; dies at the deadline
#   ok(psql_poll($node, 'app', $sql, 't', 60), ...); # until it prints 't': true, or false at the deadline
#
# Why not $node->psql and $node->poll_query_until: they write the SQL to
# psql's standard input through a pipe.  A psql that cannot connect exits at
# once, and when it has exited before IPC::Run writes, the write fails with
# EPIPE (SIGPIPE is ignored by PostgreSQL::Test::Utils) and IPC::Run dies
# with "ack Broken pipe" (t/024 died so, on a replica that Patroni restarted
# 0.4 s after it was ready).  Here psql reads the SQL from a file (-f) and
# its standard input is /dev/null: nothing is written to psql, and whatever
# else IPC::Run throws (a timeout) is caught.
#
# psql_retry runs the SQL again after any failure, so it is for statements
# that may run twice (reads, idempotent writes): a failure may come after a
# commit whose acknowledgement was lost.
package PsqlRetry;

use strict;
use warnings;

use Exporter 'import';
use File::Temp ();
use IPC::Run ();
use PostgreSQL::Test::Utils ();
use Test::More;
use Time::HiRes qw(time usleep);

our @EXPORT = qw(psql_try psql_retry psql_poll);

# One run of $sql on $node's database $db: (exit code, stdout, stderr), both
# outputs chomped, as $node->psql returns them.  The exit code is -1 when
# psql did not run to its end (it timed out after $secs, default
# timeout_default, or IPC::Run failed); stderr then says why.  Never dies.
sub psql_run
{
	my ($node, $db, $sql, $secs) = @_;
	$secs //= $PostgreSQL::Test::Utils::timeout_default;
	my $tmp = File::Temp->new(
		DIR => $PostgreSQL::Test::Utils::tmp_check,
		TEMPLATE => 'psql_retry_XXXXXX',
		SUFFIX => '.sql');
	binmode($tmp, ':raw');
	print $tmp $sql;
	close($tmp);
	# the server's own environment (PGHOST, PGPORT, an install path's
	# libraries); a connection attempt that hangs ends after 10 s
	local %ENV = $node->_get_env(PGCONNECT_TIMEOUT => $ENV{PGCONNECT_TIMEOUT} // 10);
	my $psql = $node->can('installed_command') ? $node->installed_command('psql') : 'psql';
	my ($out, $err, $h) = ('', '');
	my $ran = eval {
		$h = IPC::Run::start(
			[ $psql, '-XAtq', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr($db), '-f', $tmp->filename ],
			'<', '/dev/null', '>', \$out, '2>', \$err,
			IPC::Run::timeout($secs));
		$h->finish;
		1;
	};
	my $rc;
	if ($ran)
	{
		$rc = $h->result(0);
	}
	else
	{
		my $why = $@;
		eval { $h->kill_kill if $h; };
		$rc = -1;
		$err .= ($err eq '' || $err =~ /\n\z/ ? '' : "\n") . "psql did not run to its end: $why";
	}
	chomp($out);
	chomp($err);
	return ($rc, $out, $err);
}

# $sql on $node's database $db, one attempt: its output, or undef when it
# failed in any way (no server, a server starting or stopping, an error).
# In list context also the error.
sub psql_try
{
	my ($node, $db, $sql, $secs) = @_;
	my ($rc, $out, $err) = psql_run($node, $db, $sql, $secs);
	my $res = $rc == 0 ? $out : undef;
	return wantarray ? ($res, $err) : $res;
}

# Runs $sql on $node's database $db until it succeeds, for at most $secs
# seconds (default timeout_default), every 0.2 s; returns its output, and
# dies at the deadline with the last error.  For SQL that may run twice.
sub psql_retry
{
	my ($node, $db, $sql, $secs) = @_;
	$secs //= $PostgreSQL::Test::Utils::timeout_default;
	my $deadline = time + $secs;
	my ($tries, $first) = (0);
	while (1)
	{
		$tries++;
		my $left = $deadline - time;
		my ($out, $err) = psql_try($node, $db, $sql, $left > 1 ? $left : 1);
		if (defined $out)
		{
			note(sprintf('%s answered at attempt %d; the first failed: %s', $node->name, $tries, $first))
			  if $tries > 1;
			return $out;
		}
		$first //= $err;
		die sprintf("%s did not answer within %d s (%d attempts); the last error: %s\nwhile running: %s\n",
			$node->name, $secs, $tries, $err, $sql)
		  if time >= $deadline;
		usleep(200_000);
	}
}

# Runs $sql on $node's database $db until it prints $expected (default
# 't') without error, for at most $secs seconds (default timeout_default),
# every 0.1 s: true then; at the deadline a diag of the last attempt, and
# false.  A failed attempt (the server gone or restarting) is retried as a
# wrong answer is.
sub psql_poll
{
	my ($node, $db, $sql, $expected, $secs) = @_;
	$expected //= 't';
	$secs //= $PostgreSQL::Test::Utils::timeout_default;
	my $deadline = time + $secs;
	my ($rc, $out, $err, $failed, $first);
	while (1)
	{
		my $left = $deadline - time;
		($rc, $out, $err) = psql_run($node, $db, $sql, $left > 1 ? $left : 1);
		if ($rc == 0 && $out eq $expected && $err eq '')
		{
			note(sprintf('%s: %d attempts of psql_poll failed before it answered; the first: %s',
					$node->name, $failed, $first))
			  if $failed;
			return 1;
		}
		if ($rc != 0)
		{
			$failed++;
			$first //= $err;
		}
		last if time >= $deadline;
		usleep(100_000);
	}
	diag(sprintf("psql_poll on %s timed out after %d s running:\n%s\nexpecting:\n%s\n"
			  . "the last attempt (exit code %d) printed:\n%s\nwith stderr:\n%s",
			$node->name, $secs, $sql, $expected, $rc, $out, $err));
	return 0;
}

1;
