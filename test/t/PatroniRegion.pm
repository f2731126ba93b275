# etcd and Patroni clusters on loopback, for the high-availability tests
# (test/t/024_patroni.pl): every daemon started here has its own data
# directory and ports, every wait a deadline, and stop_all() (also run at
# exit) stops them all.
#
#   my $etcd = PatroniRegion::etcd_start();
#   my $a = PatroniRegion->new(name => 'a', etcd => $etcd, members => 2,
#                              dcs => { ...more of bootstrap.dcs... },
#                              authentication => { replication => { username => ..., password => ... } });
#   PatroniRegion::start_regions($a, $b);  # member 1 of each, then the replicas
#   my $leader = $a->leader;        # a member (hash) once one is the primary
#   $leader->{node}->safe_psql(...) # PostgreSQL::Test::Cluster of the member
#   $a->kill_member($leader);       # SIGKILL Patroni, the postmaster and its
#                                   # children: the machine dies
#   $a->start_member($leader);      # Patroni again: it rewinds and follows
#   $a->switchover;
#
# A member's PostgreSQL listens on 127.0.0.1 and on the Unix socket of its
# PostgreSQL::Test::Cluster object; Patroni starts and stops it, the object
# never does.  Patroni may restart a member at any time (a replica that has
# just rejoined, 0.4 s after it was ready): what polls or reads a member goes
# through try_psql or test/t/PsqlRetry.pm, which retry and never die of it,
# not through the object's psql, safe_psql or poll_query_until, which die
# ("ack Broken pipe") when psql exits before it has read its input.
package PatroniRegion;

use strict;
use warnings;

use HTTP::Tiny;
use IPC::Run ();
use JSON::PP ();
use POSIX ();
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils ();
use Test::More;
use Time::HiRes qw(time usleep);
use PsqlRetry;

our @DAEMONS;    # [ description, IPC::Run harness ], for stop_all
our @REGIONS;

my $http = HTTP::Tiny->new(timeout => 3);

# A pid's direct children (/proc, no ps needed).
sub children
{
	my ($pid) = @_;
	my @kids;
	opendir(my $dh, '/proc') or return ();
	for my $p (grep { /^\d+$/ } readdir($dh))
	{
		open(my $fh, '<', "/proc/$p/stat") or next;
		my $stat = <$fh>;
		close($fh);
		next unless defined $stat;
		# pid (comm) state ppid ...; comm may hold spaces and parentheses
		push @kids, $p if $stat =~ /\)\s+\S+\s+(\d+)/ && $1 == $pid;
	}
	closedir($dh);
	return @kids;
}

# Whether $pid runs (a child of this process that ended is reaped here).
sub pid_alive
{
	my ($pid) = @_;
	return 0 unless $pid;
	waitpid($pid, POSIX::WNOHANG());
	return kill(0, $pid);
}

# Waits until $cond->() is true, at most $secs seconds; returns its value or
# undef at the deadline.
sub wait_until
{
	my ($secs, $cond) = @_;
	my $deadline = time + $secs;
	while (1)
	{
		my $v = $cond->();
		return $v if $v;
		return undef if time > $deadline;
		usleep(200_000);
	}
}

# $sql on a member (database postgres): its output, or undef when the
# server does not answer (it may be restarting); never dies.  One attempt,
# of at most 30 s: the callers poll it until their own deadlines.
sub try_psql
{
	my ($m, $sql, $db) = @_;
	return scalar psql_try($m->{node}, $db // 'postgres', $sql, 30);
}

sub start_daemon
{
	my ($what, $cmd, $log) = @_;
	# the test's PGAPPNAME would name the servers' own connections (an
	# apply worker's, in pg_stat_replication of the other region)
	local %ENV = %ENV;
	delete $ENV{PGAPPNAME};
	my $h = IPC::Run::start($cmd, '<', \undef, '>>', $log, '2>>', $log);
	push @DAEMONS, [ $what, $h ];
	return $h;
}

sub harness_pid { my ($h) = @_; return $h->{KIDS}[0]{PID}; }

# One etcd member on two free loopback ports, its data in a directory of
# its own.  Returns { port, harness, dir }.
sub etcd_start
{
	my $dir = PostgreSQL::Test::Utils::tempdir('etcd');
	my $port = PostgreSQL::Test::Cluster::get_free_port();
	my $peer = PostgreSQL::Test::Cluster::get_free_port();
	my $h = start_daemon(
		'etcd',
		[
			'etcd', '--name', 'e1', '--data-dir', "$dir/data",
			'--listen-client-urls', "http://127.0.0.1:$port",
			'--advertise-client-urls', "http://127.0.0.1:$port",
			'--listen-peer-urls', "http://127.0.0.1:$peer",
			'--initial-advertise-peer-urls', "http://127.0.0.1:$peer",
			'--initial-cluster', "e1=http://127.0.0.1:$peer"
		],
		"$dir/etcd.log");
	my $up = wait_until(30, sub {
		my $r = $http->get("http://127.0.0.1:$port/health");
		return $r->{success} && $r->{content} =~ /"health":\s*"true"/;
	});
	die "etcd did not become healthy in 30 s (log: $dir/etcd.log)" unless $up;
	return { port => $port, harness => $h, dir => $dir };
}

my $patroni_major;

sub patroni_major
{
	($patroni_major) = `patroni --version 2>&1` =~ /(\d+)\.\d+/ unless defined $patroni_major;
	return $patroni_major // 0;
}

sub new
{
	my ($class, %args) = @_;
	my $self = bless {
		name => $args{name},
		etcd => $args{etcd},
		dcs => $args{dcs} // {},
		authentication => $args{authentication} // {},
		bindir => $args{bindir},
		dir => PostgreSQL::Test::Utils::tempdir("region_$args{name}"),
		members => [],
	}, $class;
	for my $i (1 .. ($args{members} // 2))
	{
		my $name = "$args{name}$i";
		my $node = PostgreSQL::Test::Cluster->new($name);
		push @{ $self->{members} }, {
			name => $name,
			node => $node,
			rest => PostgreSQL::Test::Cluster::get_free_port(),
			log => "$self->{dir}/$name.log",
		};
		$self->write_config($self->{members}[-1]);
	}
	push @REGIONS, $self;
	return $self;
}

sub members { return @{ $_[0]->{members} }; }

# YAML is JSON's superset: the config is written as JSON.
sub write_config
{
	my ($self, $m) = @_;
	my $node = $m->{node};
	my %params = (
		wal_level => 'logical',
		hot_standby_feedback => 'on',
		max_replication_slots => 12,
		max_wal_senders => 12,
		max_worker_processes => 16,
		max_logical_replication_workers => 6,
		wal_keep_size => '256MB',
		wal_retrieve_retry_interval => '1s',
		autovacuum => 'off',
		%{ $self->{dcs}{postgresql}{parameters} // {} },
	);
	my %dcs = (
		# the quickest failover each version allows (4.0 raised ttl's minimum)
		ttl => patroni_major() >= 4 ? 20 : 10,
		loop_wait => 2,
		retry_timeout => 5,
		maximum_lag_on_failover => 16 * 1024 * 1024,
		%{ $self->{dcs} },
	);
	# no use_pg_rewind: Patroni's default (off) until the test applies the
	# page's settings
	$dcs{postgresql} = {
		use_slots => JSON::PP::true,
		%{ $self->{dcs}{postgresql} // {} },
		parameters => \%params,
	};
	my @hba = (
		'local all all trust',
		'host all all 127.0.0.1/32 trust',
		'host replication all 127.0.0.1/32 trust');
	my $conf = {
		scope => "region_$self->{name}",
		namespace => '/counter_crdt_test/',
		name => $m->{name},
		log => { level => 'INFO', dir => "$self->{dir}/patroni-$m->{name}" },
		restapi => {
			listen => "127.0.0.1:$m->{rest}",
			connect_address => "127.0.0.1:$m->{rest}"
		},
		etcd3 => { hosts => "127.0.0.1:$self->{etcd}{port}" },
		bootstrap => {
			dcs => \%dcs,
			initdb => [ 'data-checksums', { encoding => 'UTF8' }, { locale => 'C' } ],
		},
		postgresql => {
			listen => '127.0.0.1:' . $node->port,
			connect_address => '127.0.0.1:' . $node->port,
			data_dir => $node->data_dir,
			bin_dir => $self->{bindir},
			pgpass => "$self->{dir}/pgpass-$m->{name}",
			# Patroni makes the replication role at bootstrap (the
			# superuser here is initdb's)
			authentication => {
				superuser => { username => 'postgres' },
				replication => { username => 'postgres' },
				rewind => { username => 'postgres' },
				%{ $self->{authentication} },
			},
			parameters => { unix_socket_directories => $node->host },
			pg_hba => \@hba,
		},
		watchdog => { mode => 'off' },
	};
	mkdir "$self->{dir}/patroni-$m->{name}";
	$m->{config} = "$self->{dir}/$m->{name}.yml";
	open(my $fh, '>', $m->{config}) or die "$m->{config}: $!";
	print $fh JSON::PP->new->canonical->pretty->encode($conf);
	close($fh);
	return;
}

sub start_member
{
	my ($self, $m) = @_;
	$m->{harness} = start_daemon("patroni $m->{name}", [ 'patroni', $m->{config} ], $m->{log});
	$m->{pid} = harness_pid($m->{harness});
	return;
}

# GET a member's REST endpoint: (HTTP status, decoded body or undef).
sub rest_get
{
	my ($self, $m, $path) = @_;
	my $r = $http->get("http://127.0.0.1:$m->{rest}$path");
	my $body = eval { JSON::PP::decode_json($r->{content}) };
	return ($r->{status}, $body);
}

# The member whose Patroni says it is the primary and whose PostgreSQL takes
# writes, or undef.
sub leader_now
{
	my ($self) = @_;
	for my $m ($self->members)
	{
		next unless $m->{harness} && pid_alive($m->{pid});
		my ($status) = $self->rest_get($m, '/primary');
		next unless $status == 200;
		return $m if (try_psql($m, 'SELECT pg_is_in_recovery()') // '') eq 'f';
	}
	return undef;
}

sub leader
{
	my ($self, $secs) = @_;
	my $m = wait_until($secs // 60, sub { $self->leader_now });
	die "region $self->{name}: no primary within " . ($secs // 60) . " s" unless $m;
	return $m;
}

# Waits until $m streams from the primary (a replica, running).
sub wait_streaming
{
	my ($self, $m, $secs) = @_;
	return wait_until($secs // 90, sub {
		my ($status, $body) = $self->rest_get($m, '/replica');
		return 0 unless $status == 200;
		return (try_psql($m, 'SELECT status FROM pg_stat_wal_receiver') // '') eq 'streaming';
	});
}

# Starts the regions side by side: each one's member 1 bootstraps it, then
# the others are made from it.  Returns, per region, whether all its
# replicas stream.
sub start_regions
{
	my (@regions) = @_;
	for my $r (@regions) { $r->start_member(($r->members)[0]); }
	for my $r (@regions) { $r->leader(60); }
	for my $r (@regions) { $r->start_member($_) for $r->replicas(($r->members)[0]); }
	return map {
		my $r = $_;
		!grep { !$r->wait_streaming($_) } $r->replicas(($r->members)[0]);
	} @regions;
}

# Waits until Patroni names a synchronous standby in the DCS (only such a
# member may be promoted in synchronous_mode).
sub wait_sync_standby
{
	my ($self, $secs) = @_;
	return wait_until($secs // 60, sub {
		my $l = $self->leader_now or return 0;
		my ($status, $body) = $self->rest_get($l, '/cluster');
		return $status == 200
		  && grep { ($_->{role} // '') =~ /^sync.standby$/ && ($_->{state} // '') =~ /running|streaming/ }
		  @{ $body->{members} // [] };
	});
}

sub replicas
{
	my ($self, $leader) = @_;
	return grep { $_ != $leader } $self->members;
}

# The postmaster's pid of a member, from its postmaster.pid.
sub postmaster_pid
{
	my ($m) = @_;
	my $f = $m->{node}->data_dir . '/postmaster.pid';
	open(my $fh, '<', $f) or return undef;
	my $pid = <$fh>;
	close($fh);
	chomp $pid if defined $pid;
	return $pid;
}

# Stops a member's processes with SIGSTOP (or SIGCONT): the walsenders of
# the given application names (physical: the member names; logical: the
# subscriptions' names).
sub signal_walsenders
{
	my ($self, $m, $sig, @apps) = @_;
	my $list = join(',', map { "'$_'" } @apps);
	my $pids = psql_retry($m->{node}, 'postgres',
		"SELECT string_agg(pid::text, ' ') FROM pg_stat_replication WHERE application_name IN ($list)", 60);
	my @pids = split ' ', $pids;
	die "no walsender of @apps on $m->{name}: "
	  . (try_psql($m, 'SELECT pid, application_name, state FROM pg_stat_replication') // '(no answer)')
	  unless @pids >= @apps;
	kill($sig, @pids);
	return @pids;
}

# SIGKILL for a member: its Patroni, its postmaster and every child of the
# postmaster at once, as when its machine dies.
sub kill_member
{
	my ($self, $m) = @_;
	my $pm = postmaster_pid($m);
	my @victims = ($m->{pid}, $pm ? ($pm, children($pm)) : ());
	kill('KILL', grep { pid_alive($_) } @victims);
	eval { $m->{harness}->finish; };
	$m->{harness} = undef;
	wait_until(10, sub { !grep { pid_alive($_) } @victims })
	  or die "$m->{name}: processes survive SIGKILL";
	return;
}

# POST or PATCH to the leader's REST API.
sub rest_send
{
	my ($self, $method, $path, $body) = @_;
	my $l = $self->leader;
	# a switchover's answer comes when it is done
	my $r = HTTP::Tiny->new(timeout => 90)->request($method, "http://127.0.0.1:$l->{rest}$path",
		{ content => JSON::PP::encode_json($body), headers => { 'Content-Type' => 'application/json' } });
	die "$method $path: $r->{status} $r->{content}" unless $r->{success};
	return $r->{content};
}

sub switchover
{
	my ($self) = @_;
	my $l = $self->leader;
	return $self->rest_send('POST', '/switchover', { leader => $l->{name} });
}

# Stops every daemon started here: SIGTERM (Patroni stops its PostgreSQL),
# SIGKILL after 30 s, and any postmaster a killed Patroni left behind.
sub stop_all
{
	# a walsender stopped by a test that failed would hold up the shutdown
	for my $r (@REGIONS)
	{
		for my $m ($r->members)
		{
			my $pm = postmaster_pid($m);
			kill('CONT', children($pm)) if $pm && pid_alive($pm);
		}
	}
	my @running = grep { $_->[1] && $_->[1]->pumpable } @DAEMONS;
	# Patroni first, etcd last: a Patroni without etcd demotes and waits.
	for my $d (sort { ($a->[0] eq 'etcd') <=> ($b->[0] eq 'etcd') } @running)
	{
		my $pid = harness_pid($d->[1]);
		kill('TERM', $pid) if pid_alive($pid);
		wait_until(30, sub { !pid_alive($pid) }) or kill('KILL', $pid);
		eval { $d->[1]->finish; };
	}
	@DAEMONS = ();
	# a PostgreSQL whose Patroni had to be killed
	stop_postmasters(@REGIONS);
	return;
}

sub stop_postmasters
{
	my (@regions) = @_;
	for my $r (@regions)
	{
		for my $m ($r->members)
		{
			my $pm = postmaster_pid($m);
			next unless $pm && pid_alive($pm);
			kill('QUIT', $pm);
			wait_until(20, sub { !pid_alive($pm) }) or kill('KILL', $pm, children($pm));
		}
	}
	return;
}

END { local $?; stop_all(); }

1;
