# The connection pooling recipe of doc/pooling.md, run as written: the real
# PgBouncer in transaction pooling mode in front of server a of the
# three-server mesh of doc/replication.md (test/t/ReadmeMesh.pm), configured
# by the page's blocks (only ports and paths substituted; on 1.21 and later
# with the page's max_prepared_statements line, which 1.18 must refuse), the
# application logging in as app_user with SCRAM, its secret looked up by
# PgBouncer's auth_query through the page's SECURITY DEFINER function as
# pgbouncer_auth, the one role of the page's userlist.txt.
#
#  - auth_query: app_user through the pooler, its SCRAM secret used to log
#    in to a; a role made while PgBouncer runs gets in at once; a superuser
#    and a wrong password do not; pgbouncer_auth may call the lookup
#    function and read nothing else; the page's admin command (the user
#    pgbouncer through the socket, no password) prints SHOW POOLS with
#    app_user's pool;
#  - increments through the pooler: the page's block, step 4 of the
#    replication recipe, and the page's pgbench script run by eight clients
#    with -M simple while b and c take increments directly: every server
#    ends with the exact totals, and a's shard of every page holds exactly
#    what went through the pooler (each pgbench transaction also logs its
#    page and delta in a table of a's alone);
#  - the page's pgjdbc and psycopg 3 programs (only the port substituted),
#    copies at once: every page gains exactly 125 per copy.  pgjdbc with
#    prepareThreshold=0 everywhere; without it, and psycopg with
#    prepare=True, through 1.21 and later they run their named statements
#    through PgBouncer (its bind count says so, 1.24 and later) and count,
#    through 1.18 (on tables of a's alone) copies at once stop on them, and
#    psycopg with prepare_threshold=None counts.  Without the ini's
#    ignore_startup_parameters line (a second PgBouncer) pgjdbc before
#    42.7.6 is refused, unsupported startup parameter extra_float_digits,
#    later ones run and count;
#  - pgbench -M prepared: the page's command through 1.21 and later counts
#    every transaction once; through 1.18, and through a second PgBouncer
#    with max_prepared_statements = 0 on later ones, it fails;
#  - exactly-once increments through the pooler (doc/beyond-scylladb.md's
#    batch as written, its table made in every batch's transaction as the
#    page says), two consumers at once, then replays: one batch sent again
#    changes nothing, and replays over other boundaries count every event
#    once;
#  - the failures of session state the page warns about, on every version:
#    the session table of the exactly-once recipe missing or found already,
#    a session setting not kept and seen by another client, SET LOCAL
#    ending with its transaction, SET counter_crdt.node_id making another
#    client's increment count under it, a role's setting reaching new
#    sessions only, a session advisory lock that its client cannot release;
#    a subscription through PgBouncer: 1.18 refuses the replication
#    connection, 1.24 and 1.26 carry it to a, which refuses app_user.
#
# Two clients are interleaved by relying on PgBouncer's choice of server
# connection: the one released last (server_round_robin = 0, its default).
# Skipped when PgBouncer or pgbench is not installed; the pgjdbc part where
# java or pgjdbc is not, the psycopg part where psycopg 3 is not.
use strict;
use warnings;

use PostgreSQL::Test::Utils;
BEGIN { $PostgreSQL::Test::Utils::use_unix_sockets = 0; }
use PostgreSQL::Test::Cluster;
use Test::More;
use IPC::Run ();
use Time::HiRes qw(usleep);
use FindBin;
use lib $FindBin::RealBin;
use SignalExit;
use CounterCrdtSQL;
use ReadmeMesh;
use ReadmeRecipe;

sub in_path
{
	my ($name) = @_;
	foreach my $dir (split /:/, $ENV{PATH} // '')
	{
		return "$dir/$name" if $dir ne '' && -x "$dir/$name";
	}
	return undef;
}

my $PGBOUNCER = -x '/usr/sbin/pgbouncer' ? '/usr/sbin/pgbouncer' : in_path('pgbouncer');
plan skip_all => 'PgBouncer is not installed (/usr/sbin/pgbouncer, nor pgbouncer in PATH; '
  . 'Debian: apt-get install pgbouncer)'
  unless $PGBOUNCER;
my $PGBENCH = in_path('pgbench');
plan skip_all => 'pgbench is not installed (pgbench in PATH, the bindir of this PostgreSQL; '
  . 'Debian: postgresql-client-15)'
  unless $PGBENCH;

my ($bversion) = `$PGBOUNCER --version` =~ /PgBouncer (\d+\.\d+)/;
die "cannot read the version of $PGBOUNCER" unless defined $bversion;
my ($bmajor, $bminor) = split /\./, $bversion;
# what 1.18 refuses and later releases can do: named prepared statements
# (1.21, max_prepared_statements), replication connections (1.23)
my $old_prepared = $bmajor == 1 && $bminor < 21;
my $old_replication = $bmajor == 1 && $bminor < 23;
note("PgBouncer $bversion ($PGBOUNCER), pgbench $PGBENCH");

srand(23);

my %node = readme_mesh();
my ($na, $nb, $nc) = @node{qw(a b c)};
my $mesh = readme_counters($na, $nb, $nc);
my $host = $na->host;

# ------------------------------------------------------------ the set-up
readme_run($na, 'app', 'pooling/role');
readme_run($na, 'app', 'pooling/auth_query');
{
	my $hba = $na->data_dir . '/pg_hba.conf';
	my $rest = slurp_file($hba);
	open(my $fh, '>', $hba) or die "cannot write $hba: $!";
	print $fh recipe('pooling/pg_hba.conf', { '127.0.0.1/32' => "$host/32" }) . "\n" . $rest;
	close($fh);
	$na->reload;
}
my $dir = PostgreSQL::Test::Utils::tempdir_short();
my $userlist = "$dir/userlist.txt";
append_to_file($userlist, recipe('pooling/userlist.txt'));
chmod 0600, $userlist;
unlike(slurp_file($userlist), qr/app_user/, "the page's userlist.txt has no line for app_user");
{
	# as $user with password $pw (the page's pg_hba.conf lines ask for it)
	my $as = sub {
		my ($user, $pw, $sql) = @_;
		local $ENV{PGPASSWORD} = $pw;
		return $na->psql('app', $sql, extra_params => [ '-U', $user ]);
	};
	my ($lookup_pw) = recipe('pooling/userlist.txt') =~ /^"pgbouncer_auth" "([^"]+)"$/m;
	my ($rc, $out, $err) = $as->('pgbouncer_auth', $lookup_pw,
		q{SELECT uname, phash ~ '^SCRAM-SHA-256\$4096:' FROM pgbouncer.user_lookup('app_user')});
	is("$rc|$out", '0|app_user|t', 'pgbouncer_auth: the lookup function gives app_user\'s SCRAM secret') or diag($err);
	my $super = $na->safe_psql('app', 'SELECT current_user');
	is($na->safe_psql('app', qq{SELECT count(*) FROM pgbouncer.user_lookup('$super') WHERE uname IS NOT NULL}),
		'0', "the lookup function gives nothing for a superuser ($super)");
	($rc, $out, $err) = $as->('pgbouncer_auth', $lookup_pw, 'SELECT count(*) FROM pg_authid');
	like($err, qr/permission denied for table pg_authid/, 'pgbouncer_auth cannot read pg_authid itself');
	($rc, $out, $err) = $as->('app_user', 'change-this-too', q{SELECT count(*) FROM pgbouncer.user_lookup('app_user')});
	like($err, qr/permission denied for schema pgbouncer/, 'app_user cannot call the lookup function');
}

# For the test only: a superuser through the pooler (the server trusts it
# from the loopback, as the test servers trust every role there), in
# PgBouncer's userlist, since the lookup function does not give superusers.
$na->safe_psql('app', "CREATE ROLE pool_admin WITH LOGIN SUPERUSER PASSWORD 'admin-secret'");
append_to_file($userlist,
	$na->safe_psql('app', q{SELECT '"' || rolname || '" "' || rolpassword || '"' FROM pg_authid WHERE rolname = 'pool_admin'})
	  . "\n");

# The page's ini for a PgBouncer of directory $d on port $port.
sub page_ini
{
	my ($d, $port) = @_;
	return recipe('pooling/pgbouncer.ini', {
		'host=127.0.0.1 port=5432' => "host=$host port=" . $na->port,
		'listen_port = 6432' => "listen_port = $port",
		'/var/run/postgresql/pgbouncer.pid' => "$d/pgbouncer.pid",
		'/var/run/postgresql' => $d,
		'/var/log/postgresql/pgbouncer.log' => "$d/pgbouncer.log",
		'/etc/pgbouncer/userlist.txt' => $userlist,
	});
}
my $PREPARED_LINE = recipe('pooling/pgbouncer.ini-prepared');

# A second PgBouncer in directory $d, of the page's ini for $d as $edit
# (a function of the text) changes it; [its handle, its port].
# stop_bouncer() stops it.
my @bouncers;    # those start_bouncer started, stopped at the end if still running
sub start_bouncer
{
	my ($d, $edit) = @_;
	mkdir $d or die "cannot make $d: $!";
	my $port = PostgreSQL::Test::Cluster::get_free_port();
	append_to_file("$d/pgbouncer.ini", $edit->(page_ini($d, $port)));
	my ($o, $e) = ('', '');
	my $h = IPC::Run::start([ $PGBOUNCER, "$d/pgbouncer.ini" ], '>', \$o, '2>', \$e,
		IPC::Run::timeout(600));
	for (1 .. 100)
	{
		last if -e "$d/.s.PGSQL.$port";
		usleep(100_000);
	}
	die "PgBouncer of $d did not start: $e" unless -e "$d/.s.PGSQL.$port";
	push @bouncers, $h;
	return [ $h, $port ];
}

sub stop_bouncer
{
	my ($b) = @_;
	$b->[0]->signal('TERM');
	eval { $b->[0]->finish; 1 } or $b->[0]->kill_kill;
}

# The page's ini, with the line of 1.21 and later there; for the test only,
# pool_admin may read PgBouncer's statistics.
my $bport = PostgreSQL::Test::Cluster::get_free_port();
my $ini = "$dir/pgbouncer.ini";
append_to_file($ini, page_ini($dir, $bport) . ($old_prepared ? '' : $PREPARED_LINE)
	  . "stats_users = pool_admin\n");

my ($bout, $berr) = ('', '');
my $bouncer = IPC::Run::start([ $PGBOUNCER, $ini ], '>', \$bout, '2>', \$berr);
END
{
	# also when the test dies: PgBouncer must not outlive it
	local $?;
	foreach my $h (grep { defined && $_->pumpable } ($bouncer, @bouncers))
	{
		$h->signal('TERM');
		eval { $h->finish; 1 } or $h->kill_kill;
	}
}

my $POOL = "host=127.0.0.1 port=$bport dbname=app user=app_user password=change-this-too";
my $ADMIN = "host=127.0.0.1 port=$bport dbname=app user=pool_admin password=admin-secret";

# psql through the pooler: (exit code, stdout, stderr).
sub pooled_psql
{
	my ($sql, @extra) = @_;
	my ($out, $err) = ('', '');
	IPC::Run::run([ 'psql', '-X', '-A', '-t', '-q', @extra, '-d', $POOL, '-c', $sql ],
		'>', \$out, '2>', \$err, IPC::Run::timeout(180));
	chomp $out;
	return ($? >> 8, $out, $err);
}

# The row of PgBouncer's SHOW $what (STATS, CONFIG) whose column $col is
# $val: column => value.
sub bouncer_show
{
	my ($what, $col, $val) = @_;
	my ($out, $err) = ('', '');
	IPC::Run::run([ 'psql', '-X', '-A', '-P', 'footer=off', '-d',
			"host=127.0.0.1 port=$bport dbname=pgbouncer user=pool_admin password=admin-secret",
			'-c', "SHOW $what" ], '>', \$out, '2>', \$err, IPC::Run::timeout(60));
	my ($head, @rows) = split /\n/, $out;
	die "SHOW $what: $err" unless defined $head;
	my @cols = split /\|/, $head;
	foreach my $row (@rows)
	{
		my %r;
		@r{@cols} = split /\|/, $row, -1;
		return \%r if $r{$col} eq $val;
	}
	die "SHOW $what has no row $col = $val: $out";
}

sub bouncer_stats { return bouncer_show('STATS', 'database', 'app') }

{
	my $up = 0;
	for (1 .. 100)
	{
		my ($rc) = pooled_psql('SELECT 1');
		if ($rc == 0) { $up = 1; last; }
		usleep(100_000);
	}
	ok($up, "PgBouncer $bversion answers on port $bport")
	  or BAIL_OUT("PgBouncer did not start: $berr\n" . (-e "$dir/pgbouncer.log" ? slurp_file("$dir/pgbouncer.log") : ''));
}
# 1.18 does not know max_prepared_statements: the page's ini with the line
# of 1.21 and later does not start.  1.21 and later have the page's line in
# force, and 1.24 and later have it by default.
if ($old_prepared)
{
	my $d = "$dir/with_prepared";
	mkdir $d or die "cannot make $d: $!";
	append_to_file("$d/pgbouncer.ini", page_ini($d, PostgreSQL::Test::Cluster::get_free_port()) . $PREPARED_LINE);
	my ($o, $e) = ('', '');
	IPC::Run::run([ $PGBOUNCER, "$d/pgbouncer.ini" ], '>', \$o, '2>', \$e, IPC::Run::timeout(30));
	isnt($? >> 8, 0, "PgBouncer $bversion with max_prepared_statements in its ini: does not start");
	like($e, qr/ERROR unknown parameter: pgbouncer\/max_prepared_statements\n.*\n.*FATAL cannot load config file/,
		'... unknown parameter, cannot load config file, as the page shows') or diag($e);
}
else
{
	my $c = bouncer_show('CONFIG', 'key', 'max_prepared_statements');
	is($c->{value}, ($PREPARED_LINE =~ /= (\d+)/)[0], "PgBouncer $bversion: max_prepared_statements as the page's line sets it");
	my $default = ($bmajor == 1 && $bminor < 24) ? '0' : '200';
	is($c->{default}, $default, "PgBouncer $bversion: its default is $default, as the page says");
}

my ($rc0, $who) = pooled_psql(q{SELECT current_user, current_setting('port'), rolsuper
	FROM pg_roles WHERE rolname = current_user});
is($who, 'app_user|' . $na->port . '|f', 'through the pooler: app_user on a, not a superuser');
like(slurp_file($na->logfile), qr/connection authenticated: identity="app_user" method=scram-sha-256/,
	'PgBouncer logged in to a with the SCRAM secret that auth_query gave');
like(slurp_file($na->logfile), qr/connection authenticated: identity="pgbouncer_auth" method=scram-sha-256/,
	'PgBouncer looked it up as pgbouncer_auth, with the password of its userlist.txt');
{
	# a role made now gets in at once: nothing to copy into userlist.txt
	$na->safe_psql('app', q{CREATE ROLE app_user2 WITH LOGIN PASSWORD 'another-secret';
		GRANT SELECT ON page_views TO app_user2});
	my ($out, $err) = ('', '');
	IPC::Run::run([ 'psql', '-X', '-A', '-t', '-d', "host=127.0.0.1 port=$bport dbname=app user=app_user2 password=another-secret",
			'-c', 'SELECT current_user' ], '>', \$out, '2>', \$err, IPC::Run::timeout(60));
	is($out, "app_user2\n", 'a role made while PgBouncer runs logs in through it at once') or diag($err);
	IPC::Run::run([ 'psql', '-X', '-A', '-t', '-d', "host=127.0.0.1 port=$bport dbname=app user=app_user2 password=wrong",
			'-c', 'SELECT current_user' ], '>', \$out, '2>', \$err, IPC::Run::timeout(60));
	like($err, qr/password authentication failed|SASL authentication failed/, '... not with a wrong password');
	$na->safe_psql('app', q{CREATE ROLE pool_super WITH LOGIN SUPERUSER PASSWORD 'super-secret'});
	($out, $err) = ('', '');
	IPC::Run::run([ 'psql', '-X', '-A', '-t', '-d', "host=127.0.0.1 port=$bport dbname=app user=pool_super password=super-secret",
			'-c', 'SELECT current_user' ], '>', \$out, '2>', \$err, IPC::Run::timeout(60));
	is($out, '', 'a superuser not in userlist.txt is not let in through the pooler');
	like($err, qr/no such user|password authentication failed|SASL authentication failed/,
		'... refused (1.18: no such user), not a bouncer config error')
	  or diag($err);

	# the page's admin command, as the system user that runs PgBouncer (the test's)
	my $cmd = recipe('pooling/admin', { 'sudo -u postgres ' => '', '-p 6432' => "-p $bport" });
	local $ENV{PGHOST} = $dir;
	($out, $err) = ('', '');
	my $ok = IPC::Run::run([ 'sh', '-c', $cmd ], '>', \$out, '2>', \$err, IPC::Run::timeout(60));
	ok($ok, "the page's admin command runs: $cmd") or diag($err);
	like($out, qr/^\s*database\s*\|\s*user\s*\|\s*cl_active\s*\|\s*cl_waiting\s*\|/m, '... and prints SHOW POOLS');
	like($out, qr/^\s*app\s*\|\s*app_user\s*\|/m, "... with app_user's pool of app");
	like($out, qr/^\s*app\s*\|\s*pgbouncer_auth\s*\|/m, "... and the lookup role's");
}

# Interactive sessions through the pooler, to interleave two clients.
sub session
{
	my ($conn) = @_;
	my ($in, $out, $err) = ('', '', '');
	my $s = { in => \$in, out => \$out, err => \$err };
	$s->{h} = IPC::Run::start([ 'psql', '-X', '-A', '-t', '-q', '-d', $conn // $POOL ],
		'<', \$in, '>', \$out, '2>', \$err, IPC::Run::timeout(60));
	return $s;
}

# $sql in session $s; (stdout, stderr) of it.
sub say
{
	my ($s, $sql) = @_;
	${ $s->{out} } = '';
	${ $s->{err} } = '';
	${ $s->{in} } .= "$sql\n\\echo __done__\n\\warn __done__\n";
	$s->{h}->pump
	  until ${ $s->{out} } =~ /__done__\n\z/ && ${ $s->{err} } =~ /__done__\n\z/;
	(my $r = ${ $s->{out} }) =~ s/__done__\n\z//;
	(my $e = ${ $s->{err} }) =~ s/__done__\n\z//;
	chomp $r;
	return ($r, $e);
}

sub end_session
{
	my ($s) = @_;
	${ $s->{in} } .= "\\q\n";
	$s->{h}->finish;
}

my @PAGES = map { "/page-$_" } 1 .. 8;
my $rack1 = '7f0cab51-fb72-3e98-bdb4-0404a982865d';    # a's writer id, the replication recipe's

# ------------------------------------------------------------ increments
{
	my ($rc, $out, $err) = pooled_psql(recipe('pooling/increment'));
	is($rc, 0, 'the increment block runs through the pooler') or diag($err);
	$mesh->{expected}{'/home'} += 6;
}

# step 4 of the replication recipe through the pooler, as app_user
{
	my ($rc, $out, $err) = pooled_psql(recipe('replication/check'));
	is($out, "page_views_a_from_b|1|t\npage_views_a_from_c|1|t",
		'the check block of the replication recipe through the pooler') or diag($err);
	($rc, $out, $err) = pooled_psql(recipe('replication/increment'));
	is($rc, 0, 'the increment block of the replication recipe through the pooler') or diag($err);
	$mesh->{expected}{'/home'} += 1;
}

# pgbench: the page's script, each transaction also logging its page and
# delta on a (pool_log is not published: a's alone).
$na->safe_psql('app', q{CREATE TABLE pool_log (page text, n bigint);
	GRANT INSERT ON pool_log TO app_user});
my $script_text = recipe('pooling/pgbench-script');
my $logged = $script_text;
$logged =~ s/^(INSERT INTO page_views)/BEGIN;\n$1/m or die 'the pgbench script has no INSERT';
$logged .= "INSERT INTO pool_log VALUES ('/page-' || :page, :n);\nEND;\n";
my $script = "$dir/increments.sql";
append_to_file($script, $logged);

# Runs the page's pgbench command (recipe pooling/pgbench, or $o{recipe})
# with -t $t; options: mode (query mode in place of the recipe's), clients
# (in place of its 8), port (PgBouncer's, the page's unless given);
# (exit code, stdout, stderr).
sub pgbench
{
	my ($t, %o) = @_;
	my $name = $o{recipe} // 'pooling/pgbench';
	my $clients = $o{clients} // 8;
	my ($mode) = recipe($name) =~ /-M (\w+)/;
	my $cmd = recipe($name, {
		'-t 1000' => "-t $t",
		'-c 8 -j 2' => "-c $clients -j " . ($clients > 1 ? 2 : 1),
		"-M $mode" => '-M ' . ($o{mode} // $mode),
		'increments.sql' => $script,
		'-p 6432' => '-p ' . ($o{port} // $bport),
	});
	my ($out, $err) = ('', '');
	IPC::Run::run([ 'bash', '-c', $cmd ], '>', \$out, '2>', \$err, IPC::Run::timeout(600));
	return ($? >> 8, $out, $err);
}

my @direct = $mesh->start_workload([ $nb, $nc ], 2, 400, \@PAGES);
my ($prc, $pout, $perr) = pgbench(300);
ok($mesh->finish_workload(@direct), 'b and c: every direct increment acknowledged');
is($prc, 0, 'pgbench -M simple through the pooler: exit code 0') or diag($perr);
like($pout, qr/number of transactions actually processed: 2400\/2400/,
	'pgbench: 8 clients x 300 transactions, all processed') or diag($pout);
note($pout =~ /^(tps = .*)$/m ? "through the pooler: $1" : 'no tps line');
is($na->safe_psql('app', 'SELECT count(*) FROM pool_log'), '2400', 'every pgbench transaction logged once');

my $log_q = q{SELECT page, sum(n) FROM pool_log GROUP BY page ORDER BY page};
my %pooled = map { split /\|/ } split /\n/, $na->safe_psql('app', $log_q);
$mesh->{expected}{$_} += $pooled{$_} foreach keys %pooled;
$pooled{'/home'} = 7;
# a's shard of every page: what went through the pooler, added to as more goes
my %through = %pooled;

ok($mesh->wait_converged('pgbench'), 'pgbench: converged');
$mesh->check_state('pgbench', [ @PAGES, '/home' ]);

# a's shard of every page: exactly the pooled increments, on every server
sub a_shards
{
	my ($node) = @_;
	return $node->safe_psql('app', qq{SELECT page, s.value FROM page_views, counter_crdt_shards(views) s
		WHERE s.id = '$rack1' ORDER BY page COLLATE "C"});
}
my $want_a = join("\n", map { "$_|$pooled{$_}" } sort keys %pooled);
is(a_shards($_), $want_a, 'pgbench: a\'s shard of every page on ' . $_->name . ' = what went through the pooler')
  foreach ($na, $nb, $nc);

# ------------------------------------------------------------ pgjdbc
# The page's program as written but for PgBouncer's port; skipped where
# there is no java or pgjdbc.
my $JDBC = '/usr/share/java/postgresql.jar';
my $JAVA = in_path('java');
my $prog_n = 0;

# Writes $text as $name in a directory of its own; its path.
sub program
{
	my ($name, $text) = @_;
	my $d = "$dir/prog" . $prog_n++;
	mkdir $d or die "cannot make $d: $!";
	append_to_file("$d/$name", $text);
	return "$d/$name";
}

# $n copies at once of the command @cmd; [exit code, stdout, stderr] of each.
sub run_copies
{
	my ($n, @cmd) = @_;
	my @h;
	foreach (1 .. $n)
	{
		my ($out, $err) = ('', '');
		my $h = IPC::Run::start(\@cmd, '>', \$out, '2>', \$err, IPC::Run::timeout(300));
		push @h, [ $h, \$out, \$err ];
	}
	my @r;
	foreach my $x (@h)
	{
		my ($h, $out, $err) = @$x;
		$h->finish;
		push @r, [ $h->result(0), $$out, $$err ];
	}
	return @r;
}

sub jdbc_run
{
	my ($file, $n) = @_;
	return run_copies($n, $JAVA, '-cp', $JDBC, $file);
}

# The pgjdbc version of the jar, as its main class prints it.
sub jdbc_version
{
	my ($out, $err) = ('', '');
	IPC::Run::run([ $JAVA, '-jar', $JDBC ], '>', \$out, '2>', \$err, IPC::Run::timeout(60));
	my ($v) = $out =~ /PostgreSQL JDBC Driver (\d+\.\d+\.\d+)/ or die "no pgjdbc version in: $out$err";
	return $v;
}

sub version_lt
{
	my ($x, $y) = @_;
	my @x = split /\./, $x;
	my @y = split /\./, $y;
	for my $i (0 .. 2)
	{
		return $x[$i] < $y[$i] if $x[$i] != $y[$i];
	}
	return 0;
}

# Named prepared statements run through PgBouncer's tracking (1.21 and
# later, max_prepared_statements): the bind count of SHOW STATS (1.24 and
# later) grows by at least $n while $code runs.
sub binds_at_least
{
	my ($n, $what, $code) = @_;
	my $b0 = bouncer_stats()->{total_bind_count};
	$code->();
	SKIP:
	{
		skip "PgBouncer $bversion has no total_bind_count in SHOW STATS", 1 unless defined $b0;
		my $b1 = bouncer_stats()->{total_bind_count};
		cmp_ok($b1 - $b0, '>=', $n, "$what: PgBouncer counted " . ($b1 - $b0) . " executions of named statements");
	}
}

# $copies copies of a page's program each gained 125 on every page: counted
# on every server, and in a's shard (through the pooler).
sub count_copies
{
	my ($copies) = @_;
	foreach (@PAGES)
	{
		$mesh->{expected}{$_} += $copies * 125;
		$through{$_} += $copies * 125;
	}
}

# The copies' results: each exit code 0 and the page's line, or diag.
sub all_ran
{
	my ($what, @r) = @_;
	is(join(',', map { $_->[0] } @r), join(',', (0) x @r), "$what: each exit code 0")
	  or diag(join("\n", map { $_->[2] } @r));
	is(join('', map { $_->[1] } @r), "1000 increments\n" x @r, "$what: each prints what the page shows");
}

SKIP:
{
	skip "no java or pgjdbc here ($JDBC; Debian: default-jdk-headless, libpostgresql-jdbc-java)", $old_prepared ? 7 : 8
	  unless $JAVA && -f $JDBC;
	my $jversion = jdbc_version();
	note("pgjdbc $jversion, $JAVA");

	# Without the ignore_startup_parameters line (a second PgBouncer, the
	# page's ini less that line): pgjdbc before 42.7.6 sends
	# extra_float_digits in its startup packet and is refused; later ones
	# send it to no PostgreSQL of 12 or later, and run.
	{
		my $removed = 0;
		my $b2 = start_bouncer("$dir/no_ignore", sub {
			my ($t) = @_;
			$removed = ($t =~ s/^ignore_startup_parameters = extra_float_digits\n//mg);
			return $t;
		});
		is($removed, 1, 'the page\'s ini has the ignore_startup_parameters line');
		my ($r) = jdbc_run(program('PooledIncrements.java',
			recipe('pooling/pgjdbc', { '127.0.0.1:6432' => "127.0.0.1:$b2->[1]" })), 1);
		if (version_lt($jversion, '42.7.6'))
		{
			isnt($r->[0], 0, "pgjdbc $jversion through PgBouncer without ignore_startup_parameters: fails");
			like($r->[2], qr/FATAL: unsupported startup parameter: extra_float_digits/,
				'... refused for extra_float_digits, as the page shows') or diag($r->[2]);
		}
		else
		{
			all_ran("pgjdbc $jversion through PgBouncer without ignore_startup_parameters", $r);
			count_copies(1) if $r->[0] == 0;
		}
		stop_bouncer($b2);
	}

	# four copies at once through the page's PgBouncer
	my @r = jdbc_run(program('PooledIncrements.java',
		recipe('pooling/pgjdbc', { '127.0.0.1:6432' => "127.0.0.1:$bport" })), 4);
	all_ran('pgjdbc, four copies of the page\'s program at once', @r);
	count_copies(4);

	# Without prepareThreshold=0: a lone copy first leaves its named
	# statements on the server connection the pool gives next, then four
	# at once.  Through 1.18, on a table of a's alone, copies stop; through
	# 1.21 and later, with max_prepared_statements, they all count.
	my %edit = ('127.0.0.1:6432' => "127.0.0.1:$bport", '&prepareThreshold=0' => '');
	$edit{page_views} = 'jdbc_scratch' if $old_prepared;
	$na->safe_psql('app', q{CREATE TABLE jdbc_scratch (page text PRIMARY KEY, views counter_crdt);
		GRANT SELECT, INSERT, UPDATE ON jdbc_scratch TO app_user});
	my $named = program('PooledIncrements.java', recipe('pooling/pgjdbc', \%edit));
	if ($old_prepared)
	{
		my @n = (jdbc_run($named, 1), jdbc_run($named, 4));
		my @failed = grep { $_->[0] != 0 } @n;
		ok(@failed > 0, 'pgjdbc without prepareThreshold=0, copies at once through the pooler: ' . scalar(@failed) . ' of 5 stop');
		is(scalar(grep { $_->[2] =~ /ERROR: prepared statement "S_\d+" (already exists|does not exist)/ } @failed),
			scalar(@failed), '... each on a named prepared statement') or diag(join("\n", map { $_->[2] } @failed));
		note('pgjdbc without prepareThreshold=0: ' . join("\n", map { /(ERROR: [^\n]*)/ ? $1 : () } map { $_->[2] } @failed));
	}
	else
	{
		binds_at_least(5 * 995, 'pgjdbc without prepareThreshold=0', sub {
			all_ran("pgjdbc without prepareThreshold=0 through PgBouncer $bversion, one copy then four at once",
				jdbc_run($named, 1), jdbc_run($named, 4));
		});
		count_copies(5);
	}
}

# ------------------------------------------------------------ psycopg 3
# The page's program as written but for PgBouncer's port, on the system's
# python3; skipped where psycopg 3 is not installed.
my $PYTHON = '/usr/bin/python3';
SKIP:
{
	skip "no psycopg 3 for $PYTHON here (Debian: python3-psycopg)", $old_prepared ? 4 : 3
	  unless -x $PYTHON && system($PYTHON, '-c', 'import psycopg') == 0;
	my %edit = ('port=6432' => "port=$bport");
	if ($old_prepared)
	{
		# as the page says for 1.18: prepare_threshold=None
		my $off = program('increments.py', recipe('pooling/psycopg',
			{ %edit, 'autocommit=True)' => 'autocommit=True, prepare_threshold=None)' }));
		all_ran('psycopg with prepare_threshold=None, four copies at once through PgBouncer 1.18',
			run_copies(4, $PYTHON, $off));
		count_copies(4);
		# as written, on a table of a's alone: a lone copy, then four at once
		$na->safe_psql('app', q{CREATE TABLE py_scratch (page text PRIMARY KEY, views counter_crdt);
			GRANT SELECT, INSERT, UPDATE ON py_scratch TO app_user});
		my $named = program('increments.py', recipe('pooling/psycopg', { %edit, page_views => 'py_scratch' }));
		my @n = (run_copies(1, $PYTHON, $named), run_copies(4, $PYTHON, $named));
		my @failed = grep { $_->[0] != 0 } @n;
		ok(@failed > 0, 'psycopg with prepare=True, copies at once through PgBouncer 1.18: ' . scalar(@failed) . ' of 5 stop');
		is(scalar(grep { $_->[2] =~ /psycopg\.errors\.(DuplicatePreparedStatement|InvalidSqlStatementName): prepared statement "_pg3_\d+" (already exists|does not exist)/ } @failed),
			scalar(@failed), '... each on a named prepared statement') or diag(join("\n", map { $_->[2] } @failed));
		note('psycopg with prepare=True: ' . join("\n", map { /(psycopg\.errors\.[^\n]*)/ ? $1 : () } map { $_->[2] } @failed));
	}
	else
	{
		my $named = program('increments.py', recipe('pooling/psycopg', \%edit));
		binds_at_least(5 * 1000, 'psycopg with prepare=True', sub {
			all_ran("psycopg with prepare=True through PgBouncer $bversion, one copy then four at once",
				run_copies(1, $PYTHON, $named), run_copies(4, $PYTHON, $named));
		});
		count_copies(5);
	}
}
ok($mesh->wait_converged('clients'), 'pgjdbc and psycopg: converged');
$mesh->check_state('clients', [ @PAGES, '/home' ]);
is(a_shards($_), join("\n", map { "$_|$through{$_}" } sort keys %through),
	'clients: a\'s shard of every page on ' . $_->name . ' = what went through the pooler')
  foreach ($na, $nb, $nc);

# ------------------------------------------------------------ session state
# Two clients through the pooler, X and Y.  PgBouncer 1.18 gives a client the
# server connection released last (LIFO, server_round_robin = 0), so that Y
# gets the one X used, unless X holds it.
my $x = session();
my $y = session();

# The exactly-once recipe's session table, made once per client session
{
	my ($pid_x) = say($x, 'SELECT pg_backend_pid();');
	my (undef, $e1) = say($x, recipe('exactly-once/session'));
	is($e1, '', 'X makes the session table of the exactly-once recipe through the pooler');
	my (undef, $e2) = say($y, recipe('exactly-once/session'));
	like($e2, qr/ERROR:  relation "batch" already exists/,
		'Y making it too: already exists, on the server connection X used');
	say($y, "BEGIN;\nSELECT 1;");    # Y holds that server connection now
	my ($pid2, $e3) = say($x, "BEGIN;\nSELECT pg_backend_pid();\nINSERT INTO batch VALUES (0, 0, '/page-1');");
	isnt($pid2, $pid_x, 'X\'s next transaction runs on another server connection');
	like($e3, qr/ERROR:  relation "batch" does not exist/, 'where the session table of X does not exist');
	say($x, 'ROLLBACK;');
	say($y, 'COMMIT;');
}

# A session setting: not kept for its client, seen by the next one
{
	my ($r1) = say($x, "SET work_mem = '7MB';\nSELECT pg_backend_pid();");
	my ($r2) = say($y, "BEGIN;\nSELECT pg_backend_pid() || ' ' || current_setting('work_mem');");
	is($r2, "$r1 7MB", 'a SET of X is seen by Y, whose transaction runs on the same server connection');
	my ($r3) = say($x, q{SELECT pg_backend_pid() || ' ' || current_setting('work_mem');});
	my ($pid3, $wm3) = split / /, $r3;
	isnt($pid3, $r1, 'X, while Y holds that connection, runs on another');
	is($wm3, '4MB', 'where its SET is not: the default work_mem');
	say($y, 'COMMIT;');
	say($x, 'RESET work_mem;');
	# SET LOCAL ends with its transaction, whoever comes next
	my ($r4) = say($x, "BEGIN;\nSET LOCAL work_mem = '9MB';\nSELECT pg_backend_pid() || ' ' || current_setting('work_mem');\nCOMMIT;");
	my ($pid4) = split / /, $r4;
	is($r4, "$pid4 9MB", 'SET LOCAL holds in its transaction');
	my ($r5) = say($y, q{SELECT pg_backend_pid() || ' ' || current_setting('work_mem');});
	is($r5, "$pid4 4MB", 'and not in the next on the same server connection');
}

# A session advisory lock that its client cannot release
{
	my ($r1) = say($x, 'SELECT pg_backend_pid() || \' \' || pg_advisory_lock(23);');
	my ($pid1) = split / /, $r1;
	say($y, "BEGIN;\nSELECT 1;");
	my ($r2, $e2) = say($x, 'SELECT pg_advisory_unlock(23);');
	is($r2, 'f', 'X\'s pg_advisory_unlock() on another server connection: false');
	like($e2, qr/WARNING:  you don't own a lock of type ExclusiveLock/, '... with a warning');
	is($na->safe_psql('app', "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 23 AND pid = $pid1"),
		'1', 'the lock is still held by the server connection that took it');
	say($y, "SELECT pg_advisory_unlock_all();\nCOMMIT;");
}
end_session($x);
end_session($y);

# ------------------------------------------------------------ exactly-once
my $BATCH = recipe('exactly-once/batch');
my $TABLE = recipe('pooling/exactly-once-batch-table');
my $N = 60;
my @events = map { [ map { $PAGES[ int(rand()**2 * @PAGES) ] } 0 .. $N - 1 ] } 0 .. 1;

sub batch_sql
{
	my ($p, $from, $to) = @_;
	my $vals = join(', ', map { "($p, $_, '$events[$p][$_]')" } $from .. $to - 1);
	return "BEGIN;\n$TABLE\nINSERT INTO batch VALUES $vals;\n$BATCH\nCOMMIT;\n";
}

sub batches
{
	my ($from, $to) = @_;
	my @b;
	while ($from < $to)
	{
		my $n = 1 + int(rand(12));
		$n = $to - $from if $from + $n > $to;
		push @b, [ $from, $from + $n ];
		$from += $n;
	}
	return @b;
}

# The consumers of %plan (partition => its batches) through the pooler at
# once.  A consumer whose batch fails with a deadlock does what a stream
# consumer does after an error: it starts again from the first batch of its
# plan (a replay).  True when every consumer got to its end, its only
# errors deadlocks, at most 5 times.
my $deadlocks = 0;
sub consume
{
	my (%plan) = @_;
	my %todo = %plan;
	my $ok = 1;
	for my $round (1 .. 6)
	{
		last unless %todo;
		my @h;
		foreach my $p (sort keys %todo)
		{
			my $sql = join('', map { batch_sql($p, @$_) } @{ $todo{$p} });
			my $file = "$dir/consumer_${p}_" . int(rand(1e9)) . '.sql';
			append_to_file($file, $sql);
			my ($out, $err) = ('', '');
			my $h = IPC::Run::start(
				[ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', $POOL, '-f', $file ],
				'>', \$out, '2>', \$err, IPC::Run::timeout(300));
			push @h, [ $p, $h, \$err ];
		}
		foreach my $x (@h)
		{
			my ($p, $h, $err) = @$x;
			$h->finish;
			my $rc = $h->result(0);
			my @errors = grep { /ERROR/ } split /\n/, $$err;
			if ($rc == 0 && !@errors)
			{
				delete $todo{$p};
			}
			elsif (@errors == 1 && $errors[0] =~ /ERROR:  deadlock detected/ && $round < 6)
			{
				$deadlocks++;
				note("consumer $p: deadlock, replaying its batches: $$err");
			}
			else
			{
				diag("consumer $p: exit code $rc, $$err");
				delete $todo{$p};
				$ok = 0;
			}
		}
	}
	return $ok;
}

# What every shard of the partitions' writers must be once offsets [0, $upto)
# are counted: page|writer|clock|value.
my @writer = map { $na->safe_psql('app', "SELECT counter_crdt_rack_id('clickstream', 'partition-$_')") } 0 .. 1;
sub eo_want
{
	my ($upto) = @_;
	my %s;
	for my $p (0 .. 1)
	{
		for my $o (0 .. $upto - 1)
		{
			my $k = "$events[$p][$o]|$writer[$p]";
			$s{$k}{v}++;
			$s{$k}{c} = $o + 1;
		}
	}
	return join("\n", map { "$_|$s{$_}{c}|$s{$_}{v}" } sort keys %s);
}
sub eo_got
{
	my ($node) = @_;
	return $node->safe_psql('app', qq{SELECT r FROM (
		SELECT page || '|' || s.id || '|' || s.clock || '|' || s.value AS r
		  FROM page_views, counter_crdt_shards(views) s
		 WHERE s.id IN ('$writer[0]', '$writer[1]')) x ORDER BY r COLLATE "C"});
}

my @first0 = batches(0, 40);
ok(consume(0 => \@first0, 1 => [ batches(0, 40) ]), 'exactly-once: both consumers\' batches through the pooler');
is(eo_got($na), eo_want(40), 'exactly-once: offsets 0..39 of both partitions counted once on a');

my $before = $mesh->query($na, $mesh->digest_query);
ok(consume(0 => [ $first0[0] ]), 'exactly-once: the first batch of partition 0 sent again');
is($mesh->query($na, $mesh->digest_query), $before, 'exactly-once: the batch sent again changed nothing');

ok(consume(0 => [ batches(0, $N) ], 1 => [ batches(25, $N) ]),
	'exactly-once: both consumers replay from behind what they committed, with other batches');
my $want_eo = eo_want($N);
for my $p (0 .. 1)
{
	$mesh->{expected}{ $events[$p][$_] } += 1 for 0 .. $N - 1;
}
ok($mesh->wait_converged('exactly-once'), 'exactly-once: converged');
is(eo_got($_), $want_eo, 'exactly-once: every partition\'s shard exact on ' . $_->name) foreach ($na, $nb, $nc);
$mesh->check_state('exactly-once', [ @PAGES, '/home' ]);

# A batch's step 2 updates its pages in the order of its join, and b and c
# send those updates back to a in that order (the step 1 updates of pages
# that step 2 then changes merge to nothing there and are not written): an
# apply worker of a can deadlock with a consumer that takes its pages in
# page order.  PostgreSQL stops one of the two: an apply worker starts
# again and applies the transaction anew, a consumer replays (consume()).
# Nothing is lost, nothing counted twice: the checks above.
# Each deadlock of a's log has an apply worker in its cycle (two consumers
# taking their pages in page order never deadlock with each other alone).
# A cycle can have three processes or more: two consumers and an apply
# worker; the DETAIL then lists each, one per line (a tab after each
# newline in the log).
note("exactly-once: $deadlocks consumer runs replayed after a deadlock");
{
	my $log = slurp_file($na->logfile);
	my %apply = map { $_ => 1 } $log =~ /\[(\d+)\] LOG:  logical replication apply worker for subscription "[^"]+" has started/g;
	my (@bad, $n);
	while ($log =~ /ERROR:  deadlock detected\n[^\n]*DETAIL:  (Process \d+ waits for [^\n]*\n(?:\tProcess \d+ waits for [^\n]*\n)*)/g)
	{
		my %pids = map { $_ => 1 } $1 =~ /[Pp]rocess (\d+)/g;
		$n++;
		push @bad, join(' and ', sort keys %pids) unless grep { $apply{$_} } keys %pids;
	}
	is("@bad", '', 'every deadlock on a had an apply worker in its cycle');
	note('deadlocks in a\'s log: ' . ($n // 0));
}


# counter_crdt.node_id through the pooler, as a superuser (pool_admin, the
# test's, in PgBouncer's userlist too) may set it
{
	my $rack9 = $na->safe_psql('app', "SELECT counter_crdt_rack_id('dc1', 'rack9')");
	$na->safe_psql('app', 'CREATE TABLE pool_scratch (k int PRIMARY KEY, c counter_crdt)');
	my $x = session($ADMIN);
	my $y = session($ADMIN);
	my $q = q{SELECT pg_backend_pid() || ' ' || counter_crdt_node_id();};
	# SET LOCAL: for its transaction only
	my ($r1) = say($x, "BEGIN;\nSET LOCAL counter_crdt.node_id = '$rack9';\n"
		  . "INSERT INTO pool_scratch VALUES (1, NULL::counter_crdt + 1);\n$q\nCOMMIT;");
	my ($pid1) = split / /, $r1;
	is($r1, "$pid1 $rack9", 'SET LOCAL counter_crdt.node_id through the pooler: in force in its transaction');
	my ($r2) = say($y, "INSERT INTO pool_scratch VALUES (2, NULL::counter_crdt + 1);\n$q");
	is($r2, "$pid1 $rack1", 'the next transaction on that server connection: a\'s id');
	# SET: stays with the server connection, not with its client
	my ($r3) = say($x, "SET counter_crdt.node_id = '$rack9';\n$q");
	my ($pid3) = split / /, $r3;
	is($r3, "$pid3 $rack9", 'SET counter_crdt.node_id through the pooler');
	my ($r4) = say($y, "BEGIN;\nINSERT INTO pool_scratch VALUES (3, NULL::counter_crdt + 1);\n$q");
	is($r4, "$pid3 $rack9", 'another client\'s transaction on that server connection counts under that id');
	my ($r5) = say($x, "INSERT INTO pool_scratch VALUES (4, NULL::counter_crdt + 1);\n$q");
	my ($pid5, $id5) = split / /, $r5;
	isnt($pid5, $pid3, 'the client that set it, while that connection is busy, runs on another');
	is($id5, $rack1, 'where it counts under a\'s id');
	say($y, "COMMIT;");
	is($na->safe_psql('app', q{SELECT string_agg(k || ' ' || s.id, ',' ORDER BY k) FROM pool_scratch, counter_crdt_shards(c) s}),
		"1 $rack9,2 $rack1,3 $rack9,4 $rack1", 'the writers of the four increments');
	say($y, "RESET counter_crdt.node_id;");
	end_session($x);
	end_session($y);
}

# pgbench -M prepared where PgBouncer does not carry named statements:
# 1.18, and 1.21 and later with max_prepared_statements = 0 (a second
# PgBouncer, the page's ini with its line set to 0).  pgbench's clients all
# name their statements alike (P_0, P_1, ...), and a client prepares each
# once, on the server connection its first transaction runs on.  Alone, a
# client keeps getting the connection it used last, and runs; but with
# other clients, a client's transaction runs on a connection where another
# client prepared its statements (already exists) or where no client did
# (does not exist).  Made certain here: the lone client leaves its
# statements on the connection the pool gives first.
{
	my $b0;
	$b0 = start_bouncer("$dir/prepared_0", sub { $_[0] . ($PREPARED_LINE =~ s/= \d+/= 0/r) })
	  unless $old_prepared;
	my $port = $b0 ? $b0->[1] : $bport;
	my $which = 'PgBouncer ' . $bversion . ($b0 ? ' with max_prepared_statements = 0' : '');
	my $count0 = $na->safe_psql('app', 'SELECT count(*) FROM pool_log');
	my ($rc1, $out1, $err1) = pgbench(50, mode => 'prepared', clients => 1, port => $port);
	is($rc1, 0, "pgbench -M prepared, one client alone through $which: runs") or diag($err1);
	like($out1, qr/number of transactions actually processed: 50\/50/, '... all 50 transactions');
	my ($rc, $out, $err) = pgbench(200, mode => 'prepared', port => $port);
	my $count1 = $na->safe_psql('app', 'SELECT count(*) FROM pool_log');
	isnt($rc, 0, "pgbench -M prepared, 8 clients through $which: fails");
	like($err, qr/ERROR:  prepared statement "P_0" already exists/,
		'... a client prepares its statements where the lone client did');
	note('pgbench -M prepared: ' . join("\n", grep { /ERROR/ } split /\n/, $err));
	note("pgbench -M prepared: " . ($count1 - $count0 - 50) . " of 1600 transactions committed before the clients stopped");
	ok($count1 - $count0 - 50 < 1600, 'not every transaction of pgbench -M prepared committed');
	stop_bouncer($b0) if $b0;
}

# pgbench -M prepared through 1.21 and later with max_prepared_statements:
# the page's command, every transaction committed once.
SKIP:
{
	skip "PgBouncer $bversion does not carry named prepared statements", 4 if $old_prepared;
	my $count0 = $na->safe_psql('app', 'SELECT count(*) FROM pool_log');
	# four named statements per transaction: BEGIN, two INSERTs, END
	binds_at_least(4 * 1600, 'pgbench -M prepared', sub {
		my ($rc, $out, $err) = pgbench(200, recipe => 'pooling/pgbench-prepared');
		is($rc, 0, "the page's pgbench -M prepared through PgBouncer $bversion: exit code 0") or diag($err);
		like($out, qr/number of transactions actually processed: 1600\/1600/,
			'... 8 clients x 200 transactions, all processed') or diag($out);
	});
	is($na->safe_psql('app', 'SELECT count(*) FROM pool_log') - $count0, 1600, '... each logged once');
}

# what pgbench committed is in pool_log: the totals stay exact
{
	my %p = map { split /\|/ } split /\n/, $na->safe_psql('app', $log_q);
	foreach (keys %p)
	{
		my $d = $p{$_} - ($pooled{$_} // 0);
		$mesh->{expected}{$_} += $d;
		$through{$_} += $d;
	}
	%pooled = (%pooled, %p);
}

# A subscription whose connection goes through PgBouncer: 1.18 refuses the
# replication connection; 1.23 and later carry it to a, logging in as
# app_user, which may not start a WAL sender there.
{
	my ($rc, $out, $err) = $nb->psql('app',
		"CREATE SUBSCRIPTION page_views_b_via_pool CONNECTION '$POOL' PUBLICATION page_views_pub WITH (copy_data = false)");
	isnt($rc, 0, 'CREATE SUBSCRIPTION connecting through the pooler fails');
	note("CREATE SUBSCRIPTION through the pooler: $err");
	if ($old_replication)
	{
		like($err, qr/ERROR:  could not connect to the publisher: .*unsupported startup parameter: replication/s,
			"PgBouncer $bversion refuses the replication connection") or diag($err);
	}
	else
	{
		like($err, qr/ERROR:  (?:subscription "page_views_b_via_pool" )?could not connect to the publisher: .*FATAL:  login failed/s,
			"PgBouncer $bversion carries the replication connection, and reports a's refusal: login failed") or diag($err);
		like(slurp_file($na->logfile), qr/FATAL:  permission denied to start WAL sender/,
			'... a refused app_user, which may not start a WAL sender');
	}
}

# ALTER ROLE ... SET counter_crdt.node_id: sessions that start after it
{
	my $rack8 = $na->safe_psql('app', "SELECT counter_crdt_rack_id('dc1', 'rack8')");
	$na->safe_psql('app', "LOAD 'counter_crdt';\n"
		  . "ALTER ROLE app_user IN DATABASE app SET counter_crdt.node_id = '$rack8';");
	my ($out, $err) = ('', '');
	IPC::Run::run([ 'psql', '-X', '-A', '-t', '-d',
			"host=$host port=" . $na->port . ' dbname=app user=app_user password=change-this-too',
			'-c', 'SELECT counter_crdt_node_id()' ], '>', \$out, '2>', \$err);
	chomp $out;
	is($out, $rack8, 'ALTER ROLE app_user SET counter_crdt.node_id: a new session of app_user (no superuser) has it')
	  or diag($err);
	my (undef, $pooled_id) = pooled_psql('SELECT counter_crdt_node_id()');
	is($pooled_id, $rack1, 'through the pooler, on a server connection opened before: a\'s id still');
	$na->safe_psql('app', 'ALTER ROLE app_user IN DATABASE app RESET counter_crdt.node_id');
}

ok($mesh->wait_converged('end'), 'end: converged');
$mesh->check_state('end', [ @PAGES, '/home' ]);
is(a_shards($_), join("\n", map { "$_|$through{$_}" } sort keys %through),
	'end: a\'s shard of every page on ' . $_->name . ' = what went through the pooler')
  foreach ($na, $nb, $nc);
$mesh->check_logs('end',
	qr/relation "batch" (already exists|does not exist)|prepared statement "(?:[PS]|_pg3)_\d+"|permission denied to start WAL sender|Only roles with the REPLICATION attribute|deadlock detected|current transaction is aborted|unexpected EOF on client connection|permission denied for (?:table pg_authid|schema pgbouncer)/);

$bouncer->signal('TERM');
$bouncer->finish;
undef $bouncer;
done_testing();
