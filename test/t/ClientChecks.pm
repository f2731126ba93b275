# The checks of a client program, relayed to the TAP test that ran it: the
# programs of test/clients/ and clients/*/test print "ok N - what" and
# "not ok N - what" per check, "# ..." for diagnostics and a plan "1..N".
#
#   relay_checks('ActiveRecord', $rc, $stdout, $stderr);
#
# Each ok/not ok line becomes a check named "NAME: what"; a last check
# asks that the program ran to its end: exit status 0, a plan, and as many
# checks as it planned.
#
#   use ClientChecks qw(relay_checks run_cmd);
#   my ($rc, $stdout, $stderr) = run_cmd({ HOME => $tmp }, 'mvn', '-o', 'install');
#
# runs a command with extra environment, no standard input, and returns its
# exit status and output.
package ClientChecks;

use strict;
use warnings;

use Exporter 'import';
use IPC::Run ();
use Test::More;

our @EXPORT = qw(relay_checks);
our @EXPORT_OK = qw(run_cmd);

sub run_cmd
{
	my ($env, @cmd) = @_;
	local %ENV = (%ENV, %$env);
	my ($out, $err) = ('', '');
	IPC::Run::run(\@cmd, '<', \undef, '>', \$out, '2>', \$err);
	return ($? >> 8, $out, $err);
}

sub relay_checks
{
	my ($name, $rc, $out, $err) = @_;
	my ($n, $plan) = (0, undef);
	foreach my $line (split /\n/, $out)
	{
		if ($line =~ /^(not )?ok \d+ - (.*)$/)
		{
			$n++;
			ok(!defined $1, "$name: $2");
		}
		elsif ($line =~ /^1\.\.(\d+)$/)
		{
			$plan = $1;
		}
		elsif ($line =~ /^#/)
		{
			diag($line);
		}
	}
	ok($rc == 0 && $n > 0 && defined $plan && $plan == $n,
		"$name: ran to its end, $n checks, exit status 0")
	  or diag("exit status $rc, plan " . ($plan // 'none') . ", stderr:\n$err");
	return;
}

1;
