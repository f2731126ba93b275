# The checks of a client program, relayed to the TAP test that ran it: the
# programs of test/clients/ and clients/*/test print "ok N - what" and
# "not ok N - what" per check, "# ..." for diagnostics and a plan "1..N".
#
#   relay_checks('ActiveRecord', $rc, $stdout, $stderr);
#
# Each ok/not ok line becomes a check named "NAME: what"; a last check
# asks that the program ran to its end: exit status 0, a plan, and as many
# checks as it planned.
package ClientChecks;

use strict;
use warnings;

use Exporter 'import';
use Test::More;

our @EXPORT = qw(relay_checks);

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
