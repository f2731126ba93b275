# A TAP test that SIGTERM, SIGINT or SIGHUP stops (a CI timeout, ^C) exits
# through its END blocks as it does at its end, so that what it started is
# stopped: its PostgreSQL servers (PostgreSQL::Test::Cluster's END), and the
# exporters, Prometheus, PgBouncer, etcd and Patroni of the tests' own END
# blocks.  Perl's default for these signals ends the process at once and
# leaves them all running.  exit, not die: an eval around the interrupted
# code would catch a die, and the test would go on.
package SignalExit;

use strict;
use warnings;
use POSIX ();

foreach my $name (qw(TERM INT HUP))
{
	my $num = eval "POSIX::SIG$name()";
	$SIG{$name} = sub {
		print STDERR "# stopped by SIG$name\n";
		exit(128 + $num);
	};
}

1;
