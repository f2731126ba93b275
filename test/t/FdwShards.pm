# Shard servers and coordinators set up by the recipes of doc/scaling-out.md,
# and concurrent clients that increment through the coordinators, shared by
# test/t/013_fdw.pl and test/t/014_fdw_mesh.pl.
#
#   use FdwShards;
#   fdw_setup($seed);     # s1, s2 (shard recipe), c1, c2 (coordinator recipe)
#   my @cl = map { start_client(id => $_, phase => 1, ops => 30, first_batch => 0) } 1 .. $CLIENTS;
#   finish_clients('A', @cl);     # adds what they acknowledged to the model
#   report_retries('A');
#   check_model('A');             # every writer's shard of every counter exact
#
# The model: $model{"$page|$writer"} = [clock, value], what every shard of
# every counter must hold, read on the shard servers (%shard: a test may put
# another server in the place of one); each row must live on the shard its
# coordinator routes it to, and both coordinators must read the exact totals.
#
# A client runs in a child process with one psql session on its coordinator
# (c1 for odd ids, c2 for even ones) and writes one line per acknowledged
# increment or batch, per retried attempt and per error it did not retry:
# single increments (views + n, or the shipped counter_crdt_increment(views,
# n, (SELECT counter_crdt_node_id()))) are retried on 40001 and 40P01 only,
# exactly-once batches over both shards (the README's prepared statements,
# the client's own writer id, batch numbers as clocks) after any error.
package FdwShards;

use strict;
use warnings;

use Exporter 'import';
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run ();
use POSIX ();
use Time::HiRes qw(usleep);
use ReadmeRecipe;
use ReadmeMesh qw(readme_run_subst);
our @EXPORT = qw(fdw_setup hba_first readme_run_subst model_single model_batch check_model
  session_open session_run session_close sql_text_array start_client
  finish_clients ok_batches report_retries
  %shard %coord %coord_id %model %created %hot %cold %client_writer
  %last_batch %retries $CLIENTS $SESSION);

our $CLIENTS = 8;
our ($SEED, $DIR, $SESSION);
our (%shard, %coord, %coord_id, %model, %created, %hot, %cold,
	%client_writer, %last_batch, %retries);

sub new_server
{
	my ($name) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init;
	$node->append_conf('postgresql.conf', qq(
max_connections = 40
log_statement = none
log_connections = on
deadlock_timeout = 100ms
autovacuum = off
));
	return $node;
}

# Puts the recipe's pg_hba.conf line at the top of $node's pg_hba.conf, the
# coordinators' address (this machine's) for the example network.
sub hba_first
{
	my ($node) = @_;
	my $hba = $node->data_dir . '/pg_hba.conf';
	my $rest = slurp_file($hba);
	open(my $fh, '>', $hba) or die "cannot write $hba: $!";
	print $fh recipe('scaling-out/pg_hba.conf',
		{ '192.0.2.0/24' => $node->host . '/32' })
	  . "\n" . $rest;
	close($fh);
	return;
}

# The servers, set up by the recipes: shards s1 and s2, coordinators c1 and
# c2; the keys the clients use, two hot and six cold ones on each shard; a
# writer id for each client.
sub fdw_setup
{
	my ($seed) = @_;
	$SEED = $seed;
	$DIR = PostgreSQL::Test::Utils::tempdir();
	%shard = map { ($_ => new_server($_)) } qw(s1 s2);
	%coord = map { ($_ => new_server($_)) } qw(c1 c2);
	hba_first($_) foreach values %shard;
	$_->start foreach (values %shard, values %coord);

	readme_run_subst($shard{$_}, 'postgres', 'scaling-out/shard') foreach qw(s1 s2);
	my %fdw_hosts = map {
		("host '$_', port '5432'" =>
			  "host '" . $shard{$_}->host . "', port '" . $shard{$_}->port . "'")
	} qw(s1 s2);
	readme_run_subst($coord{$_}, 'postgres', 'scaling-out/coordinator', \%fdw_hosts)
	  foreach qw(c1 c2);

	%coord_id = map {
		($_ => $coord{$_}->safe_psql('app', 'SELECT counter_crdt_node_id()'))
	} qw(c1 c2);
	isnt($coord_id{c1}, $coord_id{c2}, 'the two coordinators have different writer ids');

	# Keys on each shard (the coordinator's routing, computed before any row
	# exists): two hot ones and six cold ones per shard.
	%hot = %cold = ();
	foreach my $line (split /\n/,
		$coord{c1}->safe_psql('app',
			q{SELECT '/page-' || i,
			         CASE WHEN satisfies_hash_partition('page_views'::regclass, 2, 0, '/page-' || i)
			              THEN 's1' ELSE 's2' END
			    FROM generate_series(1, 40) i}))
	{
		my ($page, $s) = split /\|/, $line;
		if (@{ $hot{$s} // [] } < 2) { push @{ $hot{$s} }, $page; }
		elsif (@{ $cold{$s} // [] } < 6) { push @{ $cold{$s} }, $page; }
	}
	is(scalar(@{ $hot{s1} }) + scalar(@{ $cold{s1} }) + scalar(@{ $hot{s2} }) + scalar(@{ $cold{s2} }),
		16, 'eight keys on each shard');

	%client_writer = map {
		($_ => $coord{c1}->safe_psql('app', "SELECT counter_crdt_rack_id('fdw-test', 'client-$_')"))
	} 1 .. $CLIENTS;
	$SESSION = recipe('scaling-out/batch-session');
	%last_batch = map { ($_ => 0) } 1 .. $CLIENTS;
	%model = %created = %retries = ();
	return;
}

# $model{"$page|$writer"} = [clock, value]: what every shard of every
# counter must hold; each row must live on the shard its coordinator routes
# it to.


sub model_single    # an increment under a coordinator's id: one clock step
{
	my ($c, $page, $d) = @_;
	my $m = $model{"$page|$coord_id{$c}"} //= [ 0, 0 ];
	$m->[0]++;
	$m->[1] += $d;
}

sub model_batch     # an exactly-once increment: clock = batch number
{
	my ($writer, $batch, $page, $d) = @_;
	my $m = $model{"$page|$writer"} //= [ 0, 0 ];
	die "batch $batch of $writer on $page after batch $m->[0]" if $batch <= $m->[0];
	$m->[0] = $batch;
	$m->[1] += $d;
}

# A row created by a client or a recipe: present with '{}' even when no
# increment of it counted.


sub shard_rows
{
	my %got;
	my %where;
	foreach my $s (qw(s1 s2))
	{
		foreach my $line (split /\n/,
			$shard{$s}->safe_psql('app',
				q{SELECT page, s.id, s.clock, s.value FROM page_views
				    LEFT JOIN LATERAL counter_crdt_shards(views) s ON true}))
		{
			my ($page, $id, $clock, $value) = split /\|/, $line, -1;
			push @{ $where{$page} }, $s
			  unless grep { $_ eq $s } @{ $where{$page} // [] };
			$got{"$page|$id"} = [ $clock, $value ] if $id ne '';
		}
	}
	return (\%got, \%where);
}

sub check_model
{
	my ($label) = @_;
	my ($got, $where) = shard_rows();
	my @bad;
	foreach my $k (sort(keys %{ { %model, %$got } }))
	{
		my ($w, $g) = ($model{$k}, $got->{$k});
		push @bad, "$k: want " . ($w ? "$w->[0]:$w->[1]" : 'none')
		  . ', got ' . ($g ? "$g->[0]:$g->[1]" : 'none')
		  if !$w || !$g || $w->[0] != $g->[0] || $w->[1] != $g->[1];
	}
	is(join("\n", @bad), '',
		"$label: every shard of every counter holds exactly what its writer counted (clock and value)");

	my %total;
	foreach my $k (keys %model)
	{
		my ($page) = split /\|/, $k;
		$total{$page} += $model{$k}[1];
	}
	$total{$_} //= 0 foreach keys %created;
	foreach my $c (qw(c1 c2))
	{
		my %seen;
		my @badc;
		foreach my $line (split /\n/,
			$coord{$c}->safe_psql('app',
				q{SELECT page, views::bigint, tableoid::regclass FROM page_views}))
		{
			my ($page, $v, $part) = split /\|/, $line;
			$seen{$page} = 1;
			my ($home) = $part =~ /^page_views_(s[12])$/;
			push @badc, "$page: $v, want " . ($total{$page} // 'no row')
			  if !defined($total{$page}) || $total{$page} != $v;
			push @badc, "$page routed to $part, but on " . join(',', @{ $where->{$page} // [] })
			  if join(',', @{ $where->{$page} // [] }) ne ($home // '?');
		}
		push @badc, "$_: no row" foreach grep { !$seen{$_} } keys %total;
		is(join("\n", sort @badc), '',
			"$label: through $c every total is exact and every row lives on the shard $c routes it to");
	}
	return;
}


# A psql session on $node's database app, driven statement by statement.
sub session_open
{
	my ($node) = @_;
	my $s = { in => '', out => '', err => '' };
	$s->{h} = IPC::Run::start(
		[ 'psql', '-X', '-A', '-t', '-v', 'VERBOSITY=verbose', '-d', $node->connstr('app') ],
		'<', \$s->{in}, '>', \$s->{out}, '2>', \$s->{err},
		IPC::Run::timeout($PostgreSQL::Test::Utils::timeout_default));
	return $s;
}

# Runs $sql in the session; returns (SQLSTATE of its error or undef,
# stdout, stderr).
sub session_run
{
	my ($s, $sql) = @_;
	$s->{out} = $s->{err} = '';
	$s->{in} .= "$sql\n\\echo \@\@done\n\\warn \@\@done\n";
	$s->{h}->pump until $s->{out} =~ /^\@\@done$/m && $s->{err} =~ /^\@\@done$/m;
	my ($out, $err) = ($s->{out}, $s->{err});
	s/^\@\@done\n//m for ($out, $err);
	my ($state) = $err =~ /ERROR:\s+([0-9A-Z]{5}):/;
	$state //= 'XXXXX' if $err =~ /ERROR|FATAL/;
	return ($state, $out, $err);
}

sub session_close
{
	my ($s) = @_;
	$s->{in} .= "\\q\n";
	$s->{h}->finish;
	return;
}

sub pick { return $_[0][ int(rand(@{ $_[0] })) ]; }

# A key: hot (60 %) or cold, on shard $s.
sub some_key
{
	my ($s) = @_;
	return rand() < 0.6 ? pick($hot{$s}) : pick($cold{$s});
}

sub sql_text_array { return "'{" . join(',', @_) . "}'"; }

# One client, in a child process: its outcome goes to $file, one line per
# acknowledged increment or batch ("ok ..."), per retried attempt ("retry
# KIND SQLSTATE WHERE") and per error it did not retry ("fail ...").
sub client_main
{
	my (%a) = @_;
	srand($SEED * 100 + $a{id} * 10 + $a{phase});
	open(my $log, '>>', $a{file}) or die "cannot write $a{file}: $!";
	$log->autoflush(1);
	my $s = session_open($a{node});
	my ($st, $out, $err) = session_run($s, $SESSION);
	die "session recipe: $err" if $st;
	my $batch = $a{first_batch};
	my $n = 0;
	while ($a{ops} ? $n < $a{ops} : !-e $a{stop})
	{
		$n++;
		my $r = rand();
		my $kind = $a{only_batches} ? 'batch' : $r < 0.35 ? 'plus' : $r < 0.65 ? 'shipped' : 'batch';
		if ($kind ne 'batch')
		{
			my $k = some_key(rand() < 0.5 ? 's1' : 's2');
			my $d = int(rand(19)) - 6;
			my $upd = $kind eq 'plus'
			  ? "UPDATE page_views SET views = views + ($d) WHERE page = '$k';"
			  : "UPDATE page_views SET views = counter_crdt_increment(views, $d, (SELECT counter_crdt_node_id())) WHERE page = '$k';";
			my $done = 0;
			foreach my $sql ("INSERT INTO page_views VALUES ('$k', '{}') ON CONFLICT DO NOTHING;", $upd)
			{
				for (my $try = 1;; $try++)
				{
					($st, $out, $err) = session_run($s, $sql);
					last unless $st;
					if ($st ne '40001' && $st ne '40P01')
					{
						$err =~ s/\n/ /g;
						print $log "fail $kind $st $err\n";
						last;
					}
					print $log "retry $kind $st stmt\n";
					usleep(int(rand(10_000)));
				}
				last if $st;
				$done++;
			}
			next unless $done == 2;
			if ($out !~ /^UPDATE 1$/m)
			{
				$out =~ s/\n/ /g;
				print $log "fail $kind tag $out\n";
				next;
			}
			print $log "ok $kind $k $d\n";
			next;
		}
		# An exactly-once batch over both shards, one entry per key.
		my %inc;
		foreach my $sh (qw(s1 s2))
		{
			$inc{ some_key($sh) } += int(rand(15)) - 4 for 1 .. 1 + int(rand(3));
		}
		my @keys = sort keys %inc;
		$batch++;
		my $create = 'EXECUTE create_rows(' . sql_text_array(@keys) . ');';
		my $count = 'EXECUTE count_batch(' . sql_text_array(@keys) . ', '
		  . sql_text_array(map { $inc{$_} } @keys) . ", '$a{writer}', $batch);";
		for (my $try = 1;; $try++)
		{
			die "batch $batch: still failing after $try attempts: $err" if $try > 2000;
			($st, $out, $err) = session_run($s, $create);
			($st, $out, $err) = session_run($s, $count) unless $st;
			last unless $st;
			# Errors of the test itself (a syntax error, bad input) would
			# fail every time.
			die "batch $batch: $err" if $st =~ /^(22|42)/;
			my $where = $err =~ /remote SQL command: COMMIT TRANSACTION/ ? 'commit'
			  : $st =~ /^(08|57P)/
			  || $err =~ /server closed the connection|could not connect|connection to server|lost connection/i
			  ? 'connection'
			  : 'stmt';
			print $log "retry batch $st $where\n";
			usleep($where eq 'stmt' ? int(rand(10_000)) : 20_000);
		}
		if ($out !~ /^UPDATE ${\ scalar(@keys)}$/m)
		{
			$out =~ s/\n/ /g;
			print $log "fail batch tag $out\n";
			next;
		}
		print $log "ok batch $batch " . join(',', map { "$_=$inc{$_}" } @keys) . "\n";
	}
	session_close($s);
	close($log);
	return;
}

# Starts client $id on coordinator c1 (odd) or c2 (even) in a child
# process; returns [pid, its file, its coordinator].
sub start_client
{
	my (%a) = @_;
	my $c = $a{id} % 2 ? 'c1' : 'c2';
	my $file = "$DIR/client_$a{id}_phase$a{phase}.log";
	my $pid = fork();
	die "fork: $!" unless defined $pid;
	if ($pid == 0)
	{
		my $ok = eval {
			client_main(%a, node => $coord{$c}, file => $file,
				writer => $client_writer{ $a{id} });
			1;
		};
		append_to_file($file, "died $@\n") unless $ok;
		POSIX::_exit($ok ? 0 : 1);
	}
	return { pid => $pid, file => $file, coord => $c, id => $a{id} };
}


# Waits for the clients; adds what they acknowledged to the model.
sub finish_clients
{
	my ($phase, @clients) = @_;
	my @fail;
	foreach my $cl (@clients)
	{
		waitpid($cl->{pid}, 0);
		push @fail, "client $cl->{id} exited with " . ($? >> 8) if $?;
		foreach my $line (split /\n/, slurp_file($cl->{file}))
		{
			if ($line =~ /^ok (plus|shipped) (\S+) (-?\d+)$/)
			{
				model_single($cl->{coord}, $2, $3);
				$created{$2} = 1;
			}
			elsif ($line =~ /^ok batch (\d+) (\S+)$/)
			{
				my $b = $1;
				foreach (split /,/, $2)
				{
					my ($k, $d) = split /=/;
					model_batch($client_writer{ $cl->{id} }, $b, $k, $d);
					$created{$k} = 1;
				}
				$last_batch{ $cl->{id} } = $b;
			}
			elsif ($line =~ /^retry (.*)$/) { $retries{$phase}{$1}++; }
			else { push @fail, "client $cl->{id}: $line"; }
		}
	}
	is(join("\n", @fail), '', "$phase: every client finished, nothing failed that it did not retry");
	return;
}

sub ok_batches
{
	my ($cl) = @_;
	return 0 unless -e $cl->{file};
	return scalar(() = slurp_file($cl->{file}) =~ /^ok batch /mg);
}

sub report_retries
{
	my ($phase) = @_;
	my $r = $retries{$phase} // {};
	my $n = 0;
	$n += $_ foreach values %$r;
	diag("$phase: $n retries" . join('', map { "\n  $_: $r->{$_}" } sort keys %$r));
	return $n;
}


1;
