# Scaling out with postgres_fdw: README.md's "Scaling out" recipes, run as
# written, on two shard servers (s1, s2) and two coordinators (c1, c2, each
# with its own writer id).
#
#   recipes   the shards and coordinators are set up by the recipe blocks
#             (only hosts and ports substituted); the coordinators log in on
#             the shards as the user mapping's role, with scram-sha-256; the
#             README's plan excerpts are those of EXPLAIN here, line by line.
#   A         8 concurrent clients, 4 on each coordinator, on hot and cold
#             keys of both shards: single increments with `views + n` and
#             with the shipped counter_crdt_increment(views, n, (SELECT
#             counter_crdt_node_id())), retried on 40001/40P01 only, and
#             exactly-once cross-shard batches (each client its own writer
#             id, batch numbers as clocks), retried after any error.
#   B         a batch made to fail at commit: a deferred constraint trigger
#             on each shard raises once, at the first commit it sees; the
#             first attempt is applied nowhere, the second on the shard that
#             commits first only, the third everywhere, a fourth (a replay)
#             changes nothing.  The same staged failure with `views + n`
#             retried counts twice on one shard, as the README warns.
#   C         shard s1 is stopped (immediate) and started again while the 8
#             clients send exactly-once batches over both shards and retry
#             every failed one, also those whose outcome the restart hid.
#   D         shard s2 moves onto a mesh of three servers a, b, c set up by
#             the Replication recipe (test/t/ReadmeMesh.pm): the README's
#             member and switch blocks, s2's rows copied into a; the clients
#             of A again, through both coordinators; the mesh converges.
#
# After A, C and D (there on a, the member the coordinators write to) every
# shard of every counter, read on the shard servers,
# holds exactly what its writer counted: the coordinators' ids the single
# increments made through them (value and clock, one clock step each), each
# client's id the sum of its batches (clock: its last batch on that key);
# every row lives on the shard its coordinator routes it to; both
# coordinators read the exact totals.  Retries are counted and reported.
use strict;
use warnings;

use PostgreSQL::Test::Utils;
BEGIN { $PostgreSQL::Test::Utils::use_unix_sockets = 0; }
use PostgreSQL::Test::Cluster;
use Test::More;
use IPC::Run ();
use POSIX ();
use Time::HiRes qw(usleep);
use FindBin;
use lib $FindBin::RealBin;
use ReadmeRecipe;
use ReadmeMesh;

my $SEED = $ENV{FDW_SEED} // 1315;
srand($SEED);
note("seed $SEED");

my $CLIENTS = 8;
my $OPS = 30;    # operations per client in A
my $DIR = $PostgreSQL::Test::Utils::tmp_check;

# ------------------------------------------------------------ the servers
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

my %shard = map { ($_ => new_server($_)) } qw(s1 s2);
my %coord = map { ($_ => new_server($_)) } qw(c1 c2);
foreach my $s (values %shard)
{
	# The recipe's pg_hba.conf line first, the coordinators' address for
	# the example network.
	my $hba = $s->data_dir . '/pg_hba.conf';
	my $rest = slurp_file($hba);
	open(my $fh, '>', $hba) or die "cannot write $hba: $!";
	print $fh recipe('scaling-out/pg_hba.conf',
		{ '192.0.2.0/24' => $s->host . '/32' })
	  . "\n" . $rest;
	close($fh);
}
$_->start foreach (values %shard, values %coord);

my $seq = 0;

# Runs recipe $name as written (with the host substitutions of %$subst) on
# $node's database $db through psql, stopping at the first error; returns
# its output.
sub run_recipe
{
	my ($node, $db, $name, $subst) = @_;
	my $file = "$DIR/recipe_" . $seq++ . '.sql';
	append_to_file($file, recipe($name, $subst));
	my ($rc, $out, $err) = $node->psql($db, undef,
		extra_params => [ '-v', 'ON_ERROR_STOP=1', '-f', $file ]);
	ok($rc == 0, "recipe $name runs on " . $node->name)
	  or diag("psql exit code $rc: $err");
	die "recipe $name failed on " . $node->name . ": $err" if $rc != 0;
	return $out;
}

run_recipe($shard{$_}, 'postgres', 'scaling-out/shard') foreach qw(s1 s2);
my %fdw_hosts = map {
	("host '$_', port '5432'" =>
		  "host '" . $shard{$_}->host . "', port '" . $shard{$_}->port . "'")
} qw(s1 s2);
run_recipe($coord{$_}, 'postgres', 'scaling-out/coordinator', \%fdw_hosts)
  foreach qw(c1 c2);

my %coord_id = map {
	($_ => $coord{$_}->safe_psql('app', 'SELECT counter_crdt_node_id()'))
} qw(c1 c2);
isnt($coord_id{c1}, $coord_id{c2}, 'the two coordinators have different writer ids');

# ------------------------------------------------------------ the model
# $model{"$page|$writer"} = [clock, value]: what every shard of every
# counter must hold; each row must live on the shard its coordinator routes
# it to.
my %model;

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
my %created;

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

# ------------------------------------------------------------ the README's blocks
run_recipe($coord{c1}, 'app', 'scaling-out/increment');
model_single('c1', '/home', 1);
run_recipe($coord{c1}, 'app', 'scaling-out/increment-shipped');
model_single('c1', '/home', 1);
$created{'/home'} = 1;
# The batch: once on c1, then again on c2 (a replay: nothing changes).
my $README_WRITER = 'f3e2d0a4-2b6c-4f9e-9a51-0c6d3f1e7b20';
foreach my $c (qw(c1 c2))
{
	my $out = $coord{$c}->safe_psql('app',
		recipe('scaling-out/batch-session') . recipe('scaling-out/batch'));
	is($out, '', "recipe scaling-out/batch runs on $c");
}
my %readme_batch = ('/home' => 3, '/pricing' => 1, '/docs' => 2);
model_batch($README_WRITER, 42, $_, $readme_batch{$_}) foreach sort keys %readme_batch;
$created{$_} = 1 foreach keys %readme_batch;
foreach my $s (qw(s1 s2))
{
	like(slurp_file($shard{$s}->logfile),
		qr/connection authenticated: identity="app" method=scram-sha-256/,
		"$s: the coordinators authenticate as the user mapping's role, with scram-sha-256");
}
check_model('README blocks');

# The plan excerpts of the README: each commented line of the block is a
# line of the real plan, in order.
foreach my $plan (qw(plan-plus plan-shipped plan-grouped plan-total))
{
	my $block = recipe("scaling-out/$plan");
	my @want = map { s/^-- //r } grep { /^-- / } split /\n/, $block;
	my @have = split /\n/, $coord{c2}->safe_psql('app', $block);
	s/\s+$// foreach @have;
	my $i = 0;
	foreach my $line (@have)
	{
		$i++ if $i < @want && $line eq $want[$i];
	}
	ok(@want > 2 && $i == @want, "the README's excerpt of $plan is the plan on c2")
	  or diag("plan:\n" . join("\n", map { "-- $_" } @have));
}
my $shipped_plan = $coord{c1}->safe_psql('app', recipe('scaling-out/plan-shipped'));
like($shipped_plan,
	qr/Foreign Update on public\.page_views_s[12].*\n\s+Remote SQL: UPDATE public\.page_views SET views = public\.counter_crdt_increment\(views, 1::bigint, \$1::uuid\)/,
	'the explicit-writer increment is one remote UPDATE on the shard');
my $grouped_plan = $coord{c1}->safe_psql('app', recipe('scaling-out/plan-grouped'));
is(scalar(() = $grouped_plan =~
		  /Remote SQL: SELECT page, public\.counter_crdt_merge_agg\(views\) FROM public\.page_views GROUP BY 1/g),
	2, 'the grouped merge runs whole on both shards');

# ------------------------------------------------------------ the clients
# Keys on each shard (the coordinator's routing, computed before any row
# exists): two hot ones and six cold ones per shard.
my (%hot, %cold);
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

my %client_writer = map {
	($_ => $coord{c1}->safe_psql('app', "SELECT counter_crdt_rack_id('fdw-test', 'client-$_')"))
} 1 .. $CLIENTS;
my $SESSION = recipe('scaling-out/batch-session');

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

my %last_batch = map { ($_ => 0) } 1 .. $CLIENTS;
my %retries;    # phase => "kind sqlstate where" => count

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

# ------------------------------------------------------------ A
my @cl = map { start_client(id => $_, phase => 1, ops => $OPS, first_batch => 0) } 1 .. $CLIENTS;
finish_clients('A', @cl);
my $nA = report_retries('A');
my %kinds;
foreach my $cl (@cl)
{
	$kinds{$_}++ foreach (slurp_file($cl->{file}) =~ /^ok (\w+)/mg);
}
diag('A: acknowledged ' . join(', ', map { "$kinds{$_} $_" } sort keys %kinds));
ok($kinds{plus} && $kinds{shipped} && $kinds{batch}, 'A: every path was taken');
cmp_ok($nA, '>', 0, 'A: concurrent updates of hot keys failed with 40001 and were retried');
check_model('A');

# The totals of the README's queries: the grouped merge through c2 is the
# merge of the shards' rows; the per-shard total is the grand total.
my $direct = join("\n", sort map {
	split /\n/, $shard{$_}->safe_psql('app', q{SELECT page || '=' || views::text FROM page_views})
} qw(s1 s2));
my $grouped = join("\n", sort split /\n/, $coord{c2}->safe_psql('app',
	q{SET enable_partitionwise_aggregate = on;
	  SELECT page || '=' || counter_crdt_merge_agg(views)::text FROM page_views GROUP BY page}));
is($grouped, $direct, 'A: the grouped merge through a coordinator is the shards\' states');
my $grand = 0;
$grand += $_->[1] foreach values %model;
is($coord{c1}->safe_psql('app', recipe('scaling-out/total-per-shard')), $grand,
	'A: the per-shard total is the sum of every increment acknowledged');

# ------------------------------------------------------------ B
# A deferred constraint trigger on each shard raises once, at the first
# commit that updated a row there (the sequence is not transactional).
foreach my $s (qw(s1 s2))
{
	$shard{$s}->safe_psql('app', q{
CREATE SEQUENCE public.fail_once;
GRANT USAGE ON SEQUENCE public.fail_once TO app;
CREATE FUNCTION public.fail_once() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF nextval('public.fail_once') = 1 THEN
    RAISE EXCEPTION 'staged failure at commit';
  END IF;
  RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER fail_once AFTER UPDATE ON page_views
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION public.fail_once();
});
}
sub arm { $shard{$_}->safe_psql('app', q{SELECT setval('public.fail_once', 1, false)}) foreach qw(s1 s2); }

my @bkeys = ($hot{s1}[0], $cold{s1}[0], $hot{s2}[0], $cold{s2}[0]);
my %binc = map { ($bkeys[$_] => 10 + $_) } 0 .. $#bkeys;
my $bwriter = $coord{c1}->safe_psql('app', "SELECT counter_crdt_rack_id('fdw-test', 'staged')");
my $s = session_open($coord{c1});
session_run($s, $SESSION);
session_run($s, 'EXECUTE create_rows(' . sql_text_array(@bkeys) . ');');
$created{$_} = 1 foreach @bkeys;
my $count = 'EXECUTE count_batch(' . sql_text_array(@bkeys) . ', '
  . sql_text_array(map { $binc{$_} } @bkeys) . ", '$bwriter', 1);";

# Which of the batch's keys hold a shard of $bwriter, per shard server.
sub applied_on
{
	my $in = join(',', map { "'$_'" } @bkeys);
	return join(' ', map {
		my $s = $_;
		"$s:" . $shard{$s}->safe_psql('app',
			"SELECT count(*) FROM page_views, counter_crdt_shards(views) s WHERE page IN ($in) AND s.id = '$bwriter'")
	} qw(s1 s2));
}

arm();
my ($st, $out, $err) = session_run($s, $count);
is($st, 'P0001', 'B: the first attempt fails');
like($err, qr/staged failure at commit.*remote SQL command: COMMIT TRANSACTION/s,
	'B: it fails at commit, in the first shard\'s COMMIT');
is(applied_on(), 's1:0 s2:0', 'B: the first attempt was applied nowhere');
($st, $out, $err) = session_run($s, $count);
like($err, qr/staged failure at commit.*remote SQL command: COMMIT TRANSACTION/s,
	'B: the retry fails at commit too, in the second shard\'s COMMIT');
my $partly = applied_on();
ok($partly eq 's1:2 s2:0' || $partly eq 's1:0 s2:2',
	"B: the retry was applied on the shard that committed first only ($partly)");
($st, $out, $err) = session_run($s, $count);
is($st, undef, 'B: the third attempt succeeds') or diag($err);
like($out, qr/^UPDATE 4$/m, 'B: it updates the four rows');
is(applied_on(), 's1:2 s2:2', 'B: the batch has counted everywhere');
model_batch($bwriter, 1, $_, $binc{$_}) foreach @bkeys;
my $digest_q = q{SELECT string_agg(page || counter_crdt_digest(views)::text, ',' ORDER BY page) FROM page_views};
my $before = $coord{c2}->safe_psql('app', $digest_q);
($st, $out, $err) = session_run($s, $count);
is($st, undef, 'B: a replay of the batch that counted everywhere succeeds');
is($coord{c2}->safe_psql('app', $digest_q), $before, 'B: and changes nothing');

# The same staged failure with views + n, retried as a client would that
# took the error for a failed statement: one shard counts twice.
my $plus_sql = 'UPDATE page_views SET views = views + 1 WHERE page = ANY ('
  . sql_text_array($bkeys[0], $bkeys[2]) . ');';
my $sum_q = "SELECT sum(views::bigint) FROM page_views WHERE page IN ('$bkeys[0]', '$bkeys[2]')";
my $sum0 = $coord{c1}->safe_psql('app', $sum_q);
arm();
my $tries = 0;
for (1 .. 5)
{
	$tries++;
	($st) = session_run($s, $plus_sql);
	last unless $st;
}
is($tries, 3, 'B: views + 1 on two shards succeeds on the third attempt');
is($coord{c1}->safe_psql('app', $sum_q) - $sum0, 3,
	'B: retried after a failure at commit, views + 1 on two keys counted 3, one of them twice');
session_close($s);
# Put the model right: the coordinator's shard of the key that counted twice.
foreach my $k ($bkeys[0], $bkeys[2])
{
	my ($clock, $value) = split /\|/, $coord{c1}->safe_psql('app',
		"SELECT s.clock, s.value FROM page_views, counter_crdt_shards(views) s WHERE page = '$k' AND s.id = '$coord_id{c1}'");
	my $m = $model{"$k|$coord_id{c1}"} //= [ 0, 0 ];
	ok($clock - $m->[0] == $value - $m->[1] && ($clock - $m->[0] == 1 || $clock - $m->[0] == 2),
		"B: $k counted once or twice under c1's id");
	$m->[0] = $clock;
	$m->[1] = $value;
}
$shard{$_}->safe_psql('app', 'DROP TRIGGER fail_once ON page_views') foreach qw(s1 s2);

# ------------------------------------------------------------ C
my $stop = "$DIR/stop_clients";
@cl = map {
	start_client(id => $_, phase => 3, only_batches => 1, stop => $stop,
		first_batch => $last_batch{$_})
} 1 .. $CLIENTS;
# Every client has counted a few batches; then s1 goes down hard and comes
# back, while they go on.
sub wait_batches
{
	my ($want, $what) = @_;
	foreach my $cl (@cl)
	{
		my $n;
		for (1 .. 3000)
		{
			$n = ok_batches($cl);
			last if $n >= $want->{ $cl->{id} };
			usleep(20_000);
		}
		die "client $cl->{id}: $n batches, not $want->{ $cl->{id} } ($what)"
		  if $n < $want->{ $cl->{id} };
	}
	return;
}
wait_batches({ map { ($_ => 3) } 1 .. $CLIENTS }, 'before the restart');
$shard{s1}->stop('immediate');
$shard{s1}->start;
my %at = map { ($_->{id} => ok_batches($_)) } @cl;
wait_batches({ map { ($_ => $at{$_} + 3) } keys %at }, 'after the restart');
append_to_file($stop, "stop\n");
finish_clients('C', @cl);
my $nC = report_retries('C');
my $unknown = 0;
$unknown += $retries{C}{$_} foreach grep { /(commit|connection)$/ } keys %{ $retries{C} };
cmp_ok($unknown, '>', 0,
	"C: batches failed with the shard restart ($unknown at commit or with a lost connection) and were retried");
check_model('C, after the restart');

# ------------------------------------------------------------ D
my %mesh_node = readme_mesh();
foreach my $m (values %mesh_node)
{
	my $hba = $m->data_dir . '/pg_hba.conf';
	my $rest = slurp_file($hba);
	open(my $fh, '>', $hba) or die "cannot write $hba: $!";
	print $fh recipe('scaling-out/pg_hba.conf', { '192.0.2.0/24' => $m->host . '/32' })
	  . "\n" . $rest;
	close($fh);
	$m->reload;
	run_recipe($m, 'app', 'scaling-out/mesh-member');
}
my $mesh = readme_counters(values %mesh_node);
my $rows = $shard{s2}->safe_psql('app', 'COPY page_views TO STDOUT');
my ($rc, $copy_out, $copy_err) = $mesh_node{a}->psql('app',
	"COPY page_views FROM STDIN;\n$rows\n\\.\n");
is($rc, 0, "D: s2's rows copied into a") or diag($copy_err);
my $a_hosts = {
	"host 'a'" => "host '" . $mesh_node{a}->host . "'",
	"port '5432'" => "port '" . $mesh_node{a}->port . "'"
};
run_recipe($coord{$_}, 'app', 'scaling-out/mesh-switch', $a_hosts) foreach qw(c1 c2);
my $old_s2 = $shard{s2};
$shard{s2} = $mesh_node{a};
@cl = map {
	start_client(id => $_, phase => 4, ops => 12, first_batch => $last_batch{$_})
} 1 .. $CLIENTS;
finish_clients('D', @cl);
report_retries('D');
# a, b and c end with the same states (digests), and a's are exact.
ok($mesh->wait_converged('D, the load'), 'D: the mesh converges: a, b and c hold the same states');
check_model('D, after the load, on a');
$shard{s2} = $old_s2;

$_->stop foreach (values %coord, values %shard, values %mesh_node);
done_testing();
