# The alerting rules of doc/alerting.md, checked by promtool and by a real
# Prometheus:
#
#  - the recipe alerting/check as written: promtool check rules and
#    promtool test rules (monitoring/counter_crdt_rules_test.yml and
#    counter_crdt_rules_days_test.yml) with this version's promtool, each
#    command a check: exit code 0, a SUCCESS for each file, no FAILED;
#  - two servers replicating page_views to each other by the recipe blocks
#    of doc/replication.md (steps 1 and 2, and a subscription each by the
#    join block, whose single CREATE SUBSCRIPTION suits two servers), the
#    exporter of doc/metrics.md (its recipes, the shipped queries file)
#    pointed at a, and this version's Prometheus started by the recipe
#    alerting/prometheus.yml (intervals of 1 s, on loopback, its data in
#    the test's directory) with the shipped rules and a copy whose for: are
#    all 2 s (the health twins' 5 s: see below) and whose groups are named
#    *_short: a test cannot wait minutes.
#    Through /api/v1/rules: no alert active on the healthy mesh; then one
#    fault at a time, its alert pending with the shipped rules (firing where
#    the rule has no for:) and firing with the copy, and gone from both
#    after the repair: an own-id conflict (and not its health twin), a
#    subscription disabled, a partition attached by hand without its
#    truncate guard, the monitoring role without pg_monitor (and meanwhile
#    an own-id conflict, which only the health twin
#    CounterCrdtWriterIdConflict can show then, and does), the exporter
#    stopped (and not CounterCrdtMetricsGone);
#  - Alertmanager by the recipes alerting/alertmanager.yml (group_wait and
#    group_interval 1 s, its webhooks answered by a child of the test) and
#    alerting/alertmanager-check (amtool): each fault's alert arrives at the
#    receiver of its severity, firing, then resolved after the repair; every
#    notification went to the receiver of its alerts' severity and named an
#    alert of a fault made (the health twin only from the fault it shows:
#    not at the conflict of section 1, whose health gauge and column
#    figures, two queries of a scrape, may disagree for a scrape);
#  - every rule Prometheus loaded has severity page or ticket, a summary, a
#    description and a runbook naming a heading of doc/alerting.md, and the
#    page's table of alerts gives each its severity and for: as loaded;
#    the recording rules are named level:metric:operations;
#  - the recipe alerting/runbook-url, on a copy of monitoring/: alerting/check
#    passes on it, and the short copy, made from its rules, has for each
#    alert the runbook_url of its runbook's section;
#  - every expr of the Grafana dashboard monitoring/grafana/counter_crdt.json
#    has a non-empty result on the live Prometheus, and its data source is
#    the one of its __inputs (Grafana's import asks for it);
#  - the inhibit rule of alerting/alertmanager.yml, with alerts sent to
#    Alertmanager's API: CounterCrdtDatabaseDown mutes the other counter_crdt
#    alerts of its job and instance, not those of another instance or of
#    another rule file.
#
# Skipped when Prometheus, promtool, prometheus-postgres-exporter,
# Alertmanager, amtool or curl is not installed.  Everything it starts is stopped at the end, also on failure.
use strict;
use warnings;

use PostgreSQL::Test::Utils;
BEGIN { $PostgreSQL::Test::Utils::use_unix_sockets = 0; }
use PostgreSQL::Test::Cluster;
use Test::More;
use Time::HiRes qw(time usleep);
use JSON::PP ();
use IO::Socket::INET;
use POSIX ();
use FindBin;
use lib $FindBin::RealBin;
use SignalExit;
use ReadmeRecipe;
use ReadmeMesh;

my %bin = (
	prometheus => [ '/usr/bin/prometheus', 'prometheus' ],
	promtool => [ '/usr/bin/promtool', 'prometheus' ],
	'prometheus-postgres-exporter' => [ '/usr/bin/prometheus-postgres-exporter', 'prometheus-postgres-exporter' ],
	alertmanager => [ '/usr/bin/prometheus-alertmanager', 'prometheus-alertmanager' ],
	amtool => [ '/usr/bin/amtool', 'prometheus-alertmanager' ],
	curl => [ '/usr/bin/curl', 'curl' ]);
foreach my $tool (sort keys %bin)
{
	my ($path, $package) = @{ $bin{$tool} };
	plan skip_all => "$tool is not installed ($path; Debian: apt-get install $package)"
	  unless -x $path;
}
my $curl = $bin{curl}[0];
my $started = time;

# (a) promtool, as the page says to run it in the tree.
my $mon = "$FindBin::RealBin/../../monitoring";
foreach my $cmd (split /\n/, recipe('alerting/check', { 'monitoring/' => "$mon/" }))
{
	my $t = time;
	my $out = `$cmd 2>&1`;
	my $rc = $?;
	note(sprintf('%s: %.1f s', $cmd, time - $t));
	my $files = () = $cmd =~ /\.yml\b/g;
	my $successes = () = $out =~ /SUCCESS/g;
	ok($rc == 0 && $successes == $files && $out !~ /FAILED/, "recipe alerting/check: $cmd")
	  or diag($out);
}

# (b) The mesh: a and b, a subscription each.
my $node_a = readme_node('a');
my $node_b = readme_node('b');
readme_run($_, 'postgres', 'replication/setup') foreach ($node_a, $node_b);
readme_run($node_a, 'app', 'replication/writer-id-a');
readme_run($node_b, 'app', 'replication/writer-id-b');
my $A = '7f0cab51-fb72-3e98-bdb4-0404a982865d';    # a's writer id (the recipe's)
sub addr { my ($n) = @_; return 'host=' . $n->host . ' port=' . $n->port; }
readme_run_subst($node_a, 'app', 'replication/join-subscribe-a',
	{ 'host=d port=5432' => addr($node_b), 'page_views_a_from_d' => 'page_views_a_from_b' });
readme_run_subst($node_b, 'app', 'replication/join-subscribe-b',
	{ 'host=d port=5432' => addr($node_a), 'page_views_b_from_d' => 'page_views_b_from_a' });
ok(readme_wait_subscriptions($node_a, ['page_views_a_from_b']), 'a subscribes to b, with a running worker');
ok(readme_wait_subscriptions($node_b, ['page_views_b_from_a']), 'b subscribes to a, with a running worker');
readme_run($_, 'app', 'replication/increment') foreach ($node_a, $node_b);
ok($node_a->poll_query_until('app', "SELECT views = 2 FROM page_views WHERE page = '/home'"),
	'both increments reached a');

# A partitioned table of counters on a, set up and published.
$node_a->safe_psql('app', q{
	CREATE TABLE hits (key text, day date, n counter_crdt, PRIMARY KEY (key, day)) PARTITION BY RANGE (day);
	CREATE TABLE hits_2026_01 PARTITION OF hits FOR VALUES FROM ('2026-01-01') TO ('2026-02-01');
	SELECT counter_crdt_enable_replica_merge('hits');
	CREATE PUBLICATION hits_pub FOR TABLE hits
	  WITH (publish = 'insert, update, delete', publish_via_partition_root = true);
	INSERT INTO hits VALUES ('k', '2026-01-05', NULL::counter_crdt + 1);
});
is($node_a->safe_psql('app', 'SELECT count(*) FROM counter_crdt_health()'), '0', 'a is healthy');

# The exporter by the recipes of doc/metrics.md, with the shipped queries file.
$node_a->safe_psql('app', recipe('metrics/role'));
my $dir = PostgreSQL::Test::Utils::tempdir();
my @pids;
sub start_bg
{
	my ($log, @cmd) = @_;
	my $pid = fork() // die "fork: $!";
	if ($pid == 0)
	{
		setpgrp(0, 0);
		open(STDOUT, '>', $log) or POSIX::_exit(1);
		open(STDERR, '>&', \*STDOUT) or POSIX::_exit(1);
		exec(@cmd) or POSIX::_exit(1);
	}
	push @pids, $pid;
	return $pid;
}
sub stop_bg
{
	my ($pid) = @_;
	kill 'TERM', -$pid;
	my $deadline = time + 30;
	while (waitpid($pid, POSIX::WNOHANG()) == 0)
	{
		if (time > $deadline) { kill 'KILL', -$pid; waitpid($pid, 0); last; }
		usleep(50_000);
	}
	@pids = grep { $_ != $pid } @pids;
	return;
}
END
{
	local $?;    # waitpid must not set the test's exit code
	stop_bg($_) foreach (my @p = @pids);
}

my $exp_port = PostgreSQL::Test::Cluster::get_free_port();
my $exp_cmd = recipe('metrics/exporter', {
	'127.0.0.1:5432' => $node_a->host . ':' . $node_a->port,
	'monitoring/postgres_exporter_queries.yaml' => "$mon/postgres_exporter_queries.yaml",
	'127.0.0.1:9187' => "127.0.0.1:$exp_port" });
my $exp_log = "$dir/exporter.log";
my $exporter = start_bg($exp_log, 'bash', '-c', $exp_cmd);

# The receivers' webhooks, answered by a child of the test: each request
# it receives is a line of $hooks, its path and its body.
my $hooks = "$dir/webhooks.log";
my $hook_port = PostgreSQL::Test::Cluster::get_free_port();
{
	my $srv = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => $hook_port,
		Listen => 16, ReuseAddr => 1) or die "cannot listen on 127.0.0.1:$hook_port: $!";
	my $pid = fork() // die "fork: $!";
	if ($pid == 0)
	{
		# the test's handlers (SignalExit) would run its END blocks here
		$SIG{$_} = 'DEFAULT' foreach qw(TERM INT HUP);
		setpgrp(0, 0);
		while (my $c = $srv->accept)
		{
			my $req = <$c> // '';
			my $len = 0;
			while (defined(my $h = <$c>))
			{
				last if $h =~ /^\r?\n$/;
				$len = $1 if $h =~ /^Content-Length:\s*(\d+)/i;
			}
			my $body = '';
			read($c, $body, $len) if $len;
			$body =~ s/\n//g;
			my ($path) = $req =~ m{^POST (\S+) };
			if (open(my $fh, '>>', $hooks))
			{
				print $fh ($path // '?') . "\t$body\n";
				close($fh);
			}
			print $c "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
			close($c);
		}
		POSIX::_exit(0);
	}
	close($srv);
	push @pids, $pid;
}

# Alertmanager by the recipe, its webhooks those above, its waits of 1 s
# (group_wait 30s, group_interval 5m: a test cannot wait them).
my $am_conf = "$dir/alertmanager.yml";
PostgreSQL::Test::Utils::append_to_file($am_conf, recipe('alerting/alertmanager.yml', {
	'http://127.0.0.1:8080/' => "http://127.0.0.1:$hook_port/",
	'group_wait: 30s' => 'group_wait: 1s',
	'group_interval: 5m' => 'group_interval: 1s' }));
{
	my $cmd = recipe('alerting/alertmanager-check', { '/etc/prometheus/alertmanager.yml' => $am_conf });
	my $out = `$cmd 2>&1`;
	ok($? == 0 && $out =~ /SUCCESS/ && $out =~ /\b2 receivers\b/ && $out =~ /\b1 inhibit rules\b/,
		'recipe alerting/alertmanager-check: SUCCESS, 1 inhibit rules, 2 receivers') or diag($out);
}
my $am_port = PostgreSQL::Test::Cluster::get_free_port();
my $am_log = "$dir/alertmanager.log";
start_bg($am_log, $bin{alertmanager}[0], "--config.file=$am_conf", "--storage.path=$dir/alertmanager-data",
	"--web.listen-address=127.0.0.1:$am_port", '--cluster.listen-address=');

# The recipe alerting/runbook-url on a copy of monitoring/: a runbook_url
# for each alert and in the unit tests' expectations, which alerting/check
# then passes as before.  The short copy below is made from its rules.
my $url_mon = "$dir/url/monitoring";
my $url_base = 'https://wiki.example.com/counter_crdt/alerting';
system('mkdir', '-p', "$dir/url") == 0 && system('cp', '-a', $mon, "$dir/url/") == 0 or die "cannot copy $mon";
system('bash', '-c', "cd $dir/url && " . recipe('alerting/runbook-url'));
is($?, 0, 'recipe alerting/runbook-url runs');
foreach my $cmd (split /\n/, recipe('alerting/check', { 'monitoring/' => "$url_mon/" }))
{
	my $out = `$cmd 2>&1`;
	ok($? == 0 && $out !~ /FAILED/, "with the runbook_url of alerting/runbook-url: $cmd") or diag($out);
}

# Prometheus by the recipe, loading the shipped rules and the short copy.
my $rules = PostgreSQL::Test::Utils::slurp_file("$mon/counter_crdt_rules.yml");
(my $short = PostgreSQL::Test::Utils::slurp_file("$url_mon/counter_crdt_rules.yml")) =~ s/^(\s+for: )\S+$/${1}2s/mg;
$short =~ s/^(  - name: counter_crdt_\w+)$/${1}_short/mg;
# The health twins' for: outlasts a scrape whose health and column queries
# disagree (doc/alerting.md): 5 s in the copy, five scrapes, not 2 s, two
# scrapes, which a scrape delayed by a loaded machine could still reach.
my @twins = qw(CounterCrdtWriterIdConflict CounterCrdtWriterClockNearLimit);
foreach my $twin (@twins)
{
	$short =~ s/^(\s+- alert: $twin\n(?:(?!\s+- alert: ).*\n)*?\s+for: )2s$/${1}5s/m
	  or die "no for: of $twin in the copy";
}
my $nfor = () = $rules =~ /^\s+for: /mg;
my $ngroups = () = $rules =~ /^  - name: /mg;
is(scalar(() = $short =~ /^\s+for: 2s$/mg), $nfor - @twins,
	'the copy has all ' . ($nfor - @twins) . ' other for: at 2 s');
is(scalar(() = $short =~ /^\s+for: 5s$/mg), scalar(@twins), 'and the ' . @twins . ' of the health twins at 5 s');
is(scalar(() = $short =~ /^  - name: counter_crdt_\w+_short$/mg), $ngroups, "and its $ngroups groups renamed");
PostgreSQL::Test::Utils::append_to_file("$dir/counter_crdt_rules_short.yml", $short);
my $prom_port = PostgreSQL::Test::Cluster::get_free_port();
PostgreSQL::Test::Utils::append_to_file("$dir/prometheus.yml", recipe('alerting/prometheus.yml', {
	'15s' => '1s',
	'/etc/prometheus/counter_crdt_rules.yml' => "$mon/counter_crdt_rules.yml\n  - $dir/counter_crdt_rules_short.yml",
	'127.0.0.1:9093' => "127.0.0.1:$am_port",
	'127.0.0.1:9187' => "127.0.0.1:$exp_port" }));
my $prom_log = "$dir/prometheus.log";
start_bg($prom_log, $bin{prometheus}[0], "--config.file=$dir/prometheus.yml",
	"--storage.tsdb.path=$dir/prometheus-data", "--web.listen-address=127.0.0.1:$prom_port");

# Polls $cond every 0.2 s for at most $timeout seconds; its last result.
sub wait_until
{
	my ($timeout, $cond) = @_;
	my $deadline = time + $timeout;
	while (1)
	{
		my $r = $cond->();
		return $r if $r || time > $deadline;
		usleep(200_000);
	}
}

sub api
{
	my ($path) = @_;
	my $out = `$curl -s --max-time 5 -G 'http://127.0.0.1:$prom_port$path'`;
	my $j = eval { JSON::PP::decode_json($out) };
	return $j && $j->{status} eq 'success' ? $j->{data} : undef;
}

# The result of an instant query (a list of {metric, value}), undef on error.
sub query
{
	my ($expr) = @_;
	my $enc = $expr;
	$enc =~ s/([^A-Za-z0-9_.~-])/sprintf('%%%02X', ord($1))/ge;
	my $d = api("/api/v1/query?query=$enc");
	return $d ? $d->{result} : undef;
}

# The alerting rules by group name and alert name.
sub rules
{
	my $d = api('/api/v1/rules?type=alert') or return undef;
	my %r;
	foreach my $g (@{ $d->{groups} })
	{
		$r{ $g->{name} }{ $_->{name} } = $_ foreach @{ $g->{rules} };
	}
	return \%r;
}

# Every active alert: "group/alert state {labels}".
sub active
{
	my $r = rules() or return ('no answer');
	my @a;
	foreach my $g (sort keys %$r)
	{
		foreach my $n (sort keys %{ $r->{$g} })
		{
			push @a, map {
				my $l = $_->{labels};
				"$g/$n $_->{state} {" . join(', ', map { "$_=$l->{$_}" } sort keys %$l) . '}'
			} @{ $r->{$g}{$n}{alerts} };
		}
	}
	return @a;
}

# The state of the alert $name of group $group whose labels include %$match,
# '' when there is none.
sub state_of
{
	my ($r, $group, $name, $match) = @_;
	my $rule = $r->{$group}{$name} or return '';
	foreach my $al (@{ $rule->{alerts} })
	{
		return $al->{state}
		  unless grep { ($al->{labels}{$_} // '') ne $match->{$_} } keys %$match;
	}
	return '';
}

ok(wait_until(30, sub { my $q = query('count(counter_crdt_health_problems) > 0 and count(counter_crdt_counters) > 0'); $q && @$q }),
	'Prometheus scrapes the counter_crdt series of a')
  or diag(slurp_file($prom_log) . slurp_file($exp_log));
my @active;
ok(wait_until(30, sub { @active = active(); !@active }), 'no alert is active on the healthy mesh')
  or diag(join("\n", @active));

# The rules Prometheus loaded: labels and annotations, the runbooks' sections.
my $rules_now = rules();
my $page = slurp_file("$FindBin::RealBin/../../doc/alerting.md");
my %anchor;
foreach my $h ($page =~ /^#+ (.+)$/mg)
{
	(my $id = lc $h) =~ s/[^a-z0-9 _-]//g;
	$id =~ s/ /-/g;
	$anchor{$id} = 1;
}
my @bad;
my $nalerts = 0;
my %group_of;
foreach my $g (grep { !/_short$/ } sort keys %$rules_now)
{
	foreach my $n (sort keys %{ $rules_now->{$g} })
	{
		my $r = $rules_now->{$g}{$n};
		$nalerts++;
		$group_of{$n} = $g;
		my ($sev, $ann) = ($r->{labels}{severity} // '', $r->{annotations});
		push @bad, "$n: severity '$sev'" unless $sev =~ /^(page|ticket)$/;
		push @bad, "$n: no $_" foreach grep { !($ann->{$_} // '') } qw(summary description);
		my $rb = $ann->{runbook} // '';
		push @bad, "$n: runbook '$rb'" unless $rb =~ /^doc\/alerting\.md#(.+)$/ && $anchor{$1};
	}
}
# The page's table of alerts says each one's severity and for: as loaded.
my %table;
while ($page =~ /^\| \[(CounterCrdt\w+)\]\(#[a-z]+\) \| (\w+) \| (\w+) \|/mg)
{
	my ($n, $sev, $for) = ($1, $2, $3);
	my %unit = (m => 60, h => 3600, d => 86400);
	$table{$n} = "$sev " . ($for eq 'none' ? 0 : $for =~ /^(\d+)([mhd])$/ ? $1 * $unit{$2} : $for);
}
my %loaded = map {
	my $g = $_;
	map { ($_ => "$rules_now->{$g}{$_}{labels}{severity} $rules_now->{$g}{$_}{duration}") } keys %{ $rules_now->{$g} }
} grep { !/_short$/ } keys %$rules_now;
is_deeply(\%table, \%loaded, 'the table of doc/alerting.md gives each alert its severity and for: as loaded');
my $in_file = () = $rules =~ /^\s+- alert: /mg;
is($nalerts, $in_file, "Prometheus loaded the $in_file alerts of the shipped file");
is_deeply(\@bad, [], 'each has severity page or ticket, a summary, a description and a runbook section of doc/alerting.md');
# The short copy, made from the rules of alerting/runbook-url: each alert's
# runbook_url is the address of its runbook's section.
my @no_url = map {
	my $g = $_;
	map {
		my $ann = $rules_now->{$g}{$_}{annotations};
		my ($frag) = ($ann->{runbook} // '') =~ /(#.+)$/;
		($ann->{runbook_url} // '') eq $url_base . ($frag // '-') ? () : ("$_: runbook_url '" . ($ann->{runbook_url} // '') . "'");
	} sort keys %{ $rules_now->{$g} }
} grep { /_short$/ } sort keys %$rules_now;
is_deeply(\@no_url, [], "with alerting/runbook-url, each alert's runbook_url is $url_base and its runbook's section");
# Recording rules are named level:metric:operations, as Prometheus names them.
my $rec = api('/api/v1/rules?type=record');
my @rec = map { map { $_->{name} } @{ $_->{rules} } } grep { $_->{name} !~ /_short$/ } @{ $rec ? $rec->{groups} : [] };
ok(@rec && !grep({ !/^[a-z_]+:counter_crdt_[a-z_]+:[a-z0-9_]+$/ } @rec),
	'every recording rule is named level:metric:operations: ' . join(' ', @rec));

# The Grafana dashboard: each expr has a result.
my $dash_file = "$mon/grafana/counter_crdt.json";
my $dash = eval { JSON::PP::decode_json(slurp_file($dash_file)) };
ok($dash, "$dash_file is JSON") or diag($@);
# Grafana's import asks for the data source: one input of the Prometheus
# plugin, and every panel and query takes its data source from it.
my @inputs = @{ $dash ? $dash->{__inputs} // [] : [] };
my $ds = @inputs == 1 && $inputs[0]{type} eq 'datasource' && $inputs[0]{pluginId} eq 'prometheus'
  ? '${' . $inputs[0]{name} . '}' : undef;
ok($ds, 'the dashboard\'s __inputs ask for one Prometheus data source');
my @loose_ds = grep { ($_->{type} // '') ne 'prometheus' || ($_->{uid} // '') ne ($ds // '') }
  map { ($_->{datasource} // {}, map { $_->{datasource} // {} } @{ $_->{targets} // [] }) }
  @{ $dash ? $dash->{panels} : [] };
ok(!@loose_ds && !grep({ ($_->{type} // '') eq 'datasource' } @{ $dash ? $dash->{templating}{list} // [] : [] }),
	"every panel and query of the dashboard reads the data source of its input, $ds")
  or diag(JSON::PP->new->canonical->encode(\@loose_ds));
my @exprs = map { map { $_->{expr} } @{ $_->{targets} // [] } } @{ $dash ? $dash->{panels} : [] };
ok(@exprs > 0, scalar(@exprs) . ' exprs in the dashboard');
foreach my $e (@exprs)
{
	my $res;
	ok(wait_until(10, sub { $res = query($e); $res && @$res }), "dashboard expr has a result: $e");
}

# The notifications the webhooks received: [path, decoded body], in order.
sub notifications
{
	return () unless -e $hooks;
	return map {
		my ($path, $body) = split /\t/, $_, 2;
		[ $path, eval { JSON::PP::decode_json($body) } // { bad => $body } ];
	} split /\n/, slurp_file($hooks);
}

# What the webhooks received, as they wrote it, for a diagnostic.
sub hooks_text
{
	return -e $hooks ? slurp_file($hooks) : "(no notification)\n";
}

# Whether a notification at /$receiver holds alert $name (labels including
# %$match) with status $status.
sub notified
{
	my ($receiver, $name, $match, $status) = @_;
	foreach my $n (notifications())
	{
		next unless $n->[0] eq "/$receiver" && ($n->[1]{receiver} // '') eq $receiver;
		foreach my $al (@{ $n->[1]{alerts} // [] })
		{
			my $l = $al->{labels};
			return 1
			  if ($l->{alertname} // '') eq $name && ($al->{status} // '') eq $status
			  && !grep { ($l->{$_} // '') ne $match->{$_} } keys %$match;
		}
	}
	return 0;
}

# A fault's alert $name (labels including %$match): pending with the
# shipped rules (firing where the rule has no for:), firing with the copy,
# and sent by Alertmanager to the receiver of its severity; then $meanwhile
# (checks while it fires), $fix, and the alert gone from both, and sent to
# that receiver again as resolved.
sub see_alert
{
	my ($what, $name, $match, $fix, $meanwhile) = @_;
	my $g = $group_of{$name} or die "no alert $name";
	my $want = $rules_now->{$g}{$name}{duration} ? 'pending' : 'firing';
	my $receiver = $rules_now->{$g}{$name}{labels}{severity};
	my $short_for = $rules_now->{"${g}_short"}{$name}{duration};
	my $t = time;
	ok(wait_until(30, sub { my $r = rules(); $r && state_of($r, $g, $name, $match) eq $want }),
		"$what: $name is $want with the shipped rules") or diag(join("\n", active()));
	ok(wait_until(30, sub { my $r = rules(); $r && state_of($r, "${g}_short", $name, $match) eq 'firing' }),
		"$what: $name fires with the copy" . ($short_for ? "'s for: $short_for s" : ', at once'))
	  or diag(join("\n", active()));
	note(sprintf('%s: seen in %.1f s', $name, time - $t));
	ok(wait_until(30, sub { notified($receiver, $name, $match, 'firing') }),
		"$what: Alertmanager sends $name to the receiver $receiver")
	  or diag(slurp_file($am_log) . hooks_text());
	note(sprintf('%s: notified in %.1f s', $name, time - $t));
	$meanwhile->() if $meanwhile;
	$fix->();
	ok(wait_until(30, sub {
				my $r = rules();
				$r && state_of($r, $g, $name, $match) eq '' && state_of($r, "${g}_short", $name, $match) eq '';
			}),
		"$what, repaired: $name is resolved") or diag(join("\n", active()));
	ok(wait_until(30, sub { notified($receiver, $name, $match, 'resolved') }),
		"$what, repaired: the receiver $receiver hears that $name is resolved")
	  or diag(hooks_text());
	return;
}

# The expr of alert $name has no result now.
sub silent
{
	my ($name) = @_;
	my $res = query($rules_now->{ $group_of{$name} }{$name}{query});
	return $res && !@$res;
}

# 1. An own-id conflict, as the merge trigger records one (022): a row with
#    a newer shard of a's own id applied in a replica session.
$node_a->safe_psql('app', qq{
	SET session_replication_role = replica;
	UPDATE page_views SET views = '{$A:1000:50}' WHERE page = '/home';
});
my %pv = (datname => 'app', relname => 'page_views', column_name => 'views');
see_alert('an own-id conflict', 'CounterCrdtOwnIdConflict', \%pv,
	sub { $node_a->safe_psql('app', recipe('alerting/clear-own-id-conflicts')) },
	sub {
		ok(wait_until(10, sub { my $q = query('counter_crdt_health_problems{kind="writer_id_conflict"} == 1'); $q && @$q }),
			'the health gauge writer_id_conflict is 1');
		ok(silent('CounterCrdtWriterIdConflict') && !grep({ /CounterCrdtWriterIdConflict/ } active()),
			'its health twin CounterCrdtWriterIdConflict stays silent (the column shows it)');
	});

# 2. A subscription disabled.
my %sub = (datname => 'app', subname => 'page_views_a_from_b');
$node_a->safe_psql('app', 'ALTER SUBSCRIPTION page_views_a_from_b DISABLE');
see_alert('a subscription disabled', 'CounterCrdtSubscriptionDisabled', \%sub,
	sub { $node_a->safe_psql('app', 'ALTER SUBSCRIPTION page_views_a_from_b ENABLE') });

# 3. A partition attached by hand: no truncate guard.
$node_a->safe_psql('app', q{
	CREATE TABLE hits_2026_02 (LIKE hits);
	ALTER TABLE hits ATTACH PARTITION hits_2026_02 FOR VALUES FROM ('2026-02-01') TO ('2026-03-01');
});
is($node_a->safe_psql('app', 'SELECT string_agg("check", \' \') FROM counter_crdt_health()'), 'truncate_not_refused',
	'counter_crdt_health() reports the partition without its truncate guard');
see_alert('a partition without its truncate guard', 'CounterCrdtTruncateNotRefused',
	{ datname => 'app', kind => 'truncate_not_refused' },
	sub { $node_a->safe_psql('app', "SELECT counter_crdt_enable_replica_merge('hits')") });

# 4. The monitoring role without pg_monitor: health gauges, no column figures.
#    Meanwhile an own-id conflict shows in the health gauge alone, and its
#    twin CounterCrdtWriterIdConflict pages, after its for: (pending with
#    the shipped rules' 10 minutes).  Its notifications from here on are of
#    a fault made; before, none may name it (the check of every
#    notification below).
my $twin_from;
$node_a->safe_psql('app', 'REVOKE pg_monitor FROM counter_crdt_monitor');
see_alert('the monitoring role without pg_monitor', 'CounterCrdtColumnMetricsMissing', { datname => 'app' },
	sub { $node_a->safe_psql('app', 'GRANT pg_monitor TO counter_crdt_monitor') },
	sub {
		$twin_from = scalar(my @n = notifications());
		$node_a->safe_psql('app', qq{
			SET session_replication_role = replica;
			UPDATE page_views SET views = '{$A:5000:60}' WHERE page = '/home';
		});
		see_alert('an own-id conflict that no column figure shows', 'CounterCrdtWriterIdConflict',
			{ datname => 'app', kind => 'writer_id_conflict' },
			sub { $node_a->safe_psql('app', recipe('alerting/clear-own-id-conflicts')) },
			sub {
				my $q = query('counter_crdt_own_id_conflicts');
				ok($q && !@$q, 'no column figure counter_crdt_own_id_conflicts meanwhile');
			});
	});

# 5. The exporter stopped, then started again.
stop_bg($exporter);
see_alert('the exporter stopped', 'CounterCrdtExporterDown', { instance => "127.0.0.1:$exp_port" },
	sub { $exporter = start_bg("$exp_log.2", 'bash', '-c', $exp_cmd) },
	sub {
		ok(wait_until(10, sub { my $q = query('counter_crdt_health_problems'); $q && !@$q }),
			'the counter_crdt series of the stopped exporter are gone');
		ok(silent('CounterCrdtMetricsGone') && !grep({ /CounterCrdtMetricsGone/ } active()),
			'CounterCrdtMetricsGone stays silent while the exporter is down');
	});

ok(wait_until(30, sub { @active = active(); !@active }), 'no alert is active after the repairs')
  or diag(join("\n", @active));

# Every notification went to the receiver of its alerts' severity, and
# named only alerts of the faults made: the health twin
# CounterCrdtWriterIdConflict only from its fault in section 4 on, not at
# the conflict of section 1 (made or cleared between the two queries of a
# scrape, it shows in one and not the other for that scrape; without the
# twin's for:, it paged).  CounterCrdtMetricsAbsent is one: the exporter
# stopped was the only one, so no counter_crdt series was left
# (and the copy's for: of 2 s may also see Prometheus's first scrape late).
my %made = map { $_ => 1 } qw(CounterCrdtOwnIdConflict CounterCrdtSubscriptionDisabled
  CounterCrdtTruncateNotRefused CounterCrdtColumnMetricsMissing CounterCrdtExporterDown
  CounterCrdtMetricsAbsent);
my @misrouted;
my @notes = notifications();
foreach my $i (0 .. $#notes)
{
	my $n = $notes[$i];
	my $to = $n->[0] =~ s{^/}{}r;
	foreach my $al (@{ $n->[1]{alerts} // [ { labels => { alertname => 'none' } } ] })
	{
		my $l = $al->{labels};
		my $name = $l->{alertname} // '';
		my $sev = ($l->{severity} // '') eq 'page' ? 'page' : 'ticket';
		my $was_made = $made{$name}
		  || ($name eq 'CounterCrdtWriterIdConflict' && defined $twin_from && $i >= $twin_from);
		push @misrouted, "$name ($sev) at /$to" . ($was_made ? '' : " (notification $i)")
		  unless $sev eq $to && $was_made;
	}
}
ok(@notes >= 10 && !@misrouted, scalar(@notes) . ' notifications, each at the receiver of its severity, '
	  . 'each of an alert whose fault was made')
  or diag(join("\n", @misrouted));

# The inhibit rule of alerting/alertmanager.yml, with alerts sent to
# Alertmanager itself (after the check above: the webhooks hear of them
# too): while CounterCrdtDatabaseDown fires for an exporter, the other
# counter_crdt alerts of its job and instance are muted, those of another
# instance and the alerts of other rule files are not.
{
	my %base = (job => 'counter_crdt', severity => 'page');
	my @send = (
		{ %base, alertname => 'CounterCrdtDatabaseDown', instance => 'x:9187' },
		{ %base, alertname => 'CounterCrdtSubscriptionDisabled', instance => 'x:9187', datname => 'app', subname => 's' },
		{ %base, alertname => 'PostgresReplicationLag', instance => 'x:9187' },
		{ %base, alertname => 'CounterCrdtSubscriptionDisabled', instance => 'y:9187', datname => 'app', subname => 's' });
	my $body = JSON::PP->new->canonical->encode([ map { { labels => $_ } } @send ]);
	my $out = `$curl -s --max-time 5 -XPOST -H 'Content-Type: application/json' --data '$body' http://127.0.0.1:$am_port/api/v2/alerts`;
	my $last = '';
	my $want = 'CounterCrdtDatabaseDown x:9187 active, CounterCrdtSubscriptionDisabled x:9187 suppressed, '
	  . 'CounterCrdtSubscriptionDisabled y:9187 active, PostgresReplicationLag x:9187 active';
	my $got = wait_until(10, sub {
			my $j = eval { JSON::PP::decode_json(`$curl -s --max-time 5 http://127.0.0.1:$am_port/api/v2/alerts`) } // [];
			my $s = join(', ', sort map { "$_->{labels}{alertname} $_->{labels}{instance} $_->{status}{state}" }
				  grep { ($_->{labels}{instance} // '') =~ /^[xy]:9187$/ } @$j);
			$last = $s;
			$s eq $want ? $s : undef;
		});
	is($got // $last, $want,
		'the inhibit rule: CounterCrdtDatabaseDown mutes the other counter_crdt alerts of its instance only')
	  or diag($out . slurp_file($am_log));
}

stop_bg($_) foreach (my @p = @pids);
note(sprintf('026 took %.1f s', time - $started));
$node_a->stop;
$node_b->stop;
done_testing();
