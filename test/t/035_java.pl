# The Java library of clients/java (doc/java.md), built and installed as a
# user does, with the suite's JDK, Maven and pgjdbc (Debian's, offline from
# /usr/share/maven-repo, as the page's recipe java/install sets it up):
#
# 1. mvn -o install of clients/java, by the recipe java/install, into a
#    local repository under a scratch $HOME: its unit tests without a server
#    (the text form, merge laws, value overflow, the binary forms at every
#    layout width's edges, the server's messages for refused values) and,
#    with COUNTER_CRDT_JDBC_URL set, its tests against this server (random
#    texts, states and damaged bytes read by the server's recv through
#    binary COPY, compact values of every layout, merges, two threads x
#    1,000 increments, the guard's refusal as a PSQLException).  Each JUnit
#    test is a check here, as Surefire's reports give them; none may skip.
# 2. The programs of doc/java.md, as a separate Maven project that depends
#    on the installed artifact, run as written in a database "shop" under
#    the writer id the page shows, each printing what the page shows.
#
# Maven's local repository (plugins copied from /usr/share/maven-repo, the
# installed artifact) lives in the scratch dir and goes with it: a cold
# copy takes a few seconds.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use File::Temp ();
use File::Path ();
use FindBin;
use lib $FindBin::RealBin;
use SignalExit;
use ClientChecks qw(run_cmd);
use ReadmeRecipe;

if ($ENV{COUNTER_CRDT_IN_CHROOT})
{
	plan skip_all => 'the Java library is tested on the machine\'s own PostgreSQL only (Debian 12\'s Maven '
	  . 'plugins, which its pom pins), not in the chroot of ' . $ENV{COUNTER_CRDT_IN_CHROOT};
}

my $clients = "$FindBin::RealBin/../../clients";
my $doc_id = '7ddd454a-30ea-3e9a-a5d1-3d0092b783a6';
my $tmp = File::Temp::tempdir('java_XXXX', DIR => $PostgreSQL::Test::Utils::tmp_check, CLEANUP => 1);

my $node = PostgreSQL::Test::Cluster->new('java');
$node->init;
# pgjdbc speaks TCP only
$node->append_conf('postgresql.conf', "listen_addresses = '127.0.0.1'");
$node->start;
my $user = scalar(getpwuid($<));
my $url = 'jdbc:postgresql://127.0.0.1:' . $node->port . "/postgres?user=$user";

# 1. The library, built, tested and installed by the page's recipe, in a
# copy of the tree, with $HOME in the scratch dir.
mkdir("$tmp/tree") or die;
system('cp', '-a', "$clients/java", "$tmp/tree/java") == 0 or die 'cannot copy clients/java';
mkdir("$tmp/tree/clients") or die;
rename("$tmp/tree/java", "$tmp/tree/clients/java") or die;
File::Path::remove_tree("$tmp/tree/clients/java/target");
# Java takes user.home from the password file, not from $HOME: MAVEN_OPTS
# gives it the scratch dir, where the recipe puts ~/.m2.
my %home = (HOME => $tmp, MAVEN_OPTS => "-Duser.home=$tmp");
my ($rc, $out, $err) = run_cmd({ %home, COUNTER_CRDT_JDBC_URL => $url },
	'sh', '-ec', "cd $tmp/tree\n" . recipe('java/install'));
is($rc, 0, 'doc/java.md, java/install: mvn -o install runs, its tests pass') or diag("$out\n$err");
my $jar = "$tmp/.m2/repository/io/github/counter-crdt/counter-crdt-jdbc/1.12.0/counter-crdt-jdbc-1.12.0.jar";
ok(-f $jar, 'the artifact is installed in the local repository of $HOME');
foreach my $line (split /\n/, $out)
{
	note($line) if $line =~ /seed|texts:|damaged/;
}

# Each JUnit test a check, from Surefire's reports.
my ($tests, $skipped) = (0, 0);
my %classes;
foreach my $report (sort glob("$tmp/tree/clients/java/target/surefire-reports/TEST-*.xml"))
{
	my $xml = slurp_file($report);
	while ($xml =~ m{<testcase\s+name="([^"]+)"\s+classname="([^"]+)"[^>]*?(/>|>(.*?)</testcase>)}sg)
	{
		my ($name, $class, $body) = ($1, $2, $4 // '');
		$class =~ s/.*\.//;
		$tests++;
		$classes{$class}++;
		$skipped++ if $body =~ /<skipped/;
		ok($body !~ /<(failure|error|skipped)/, "JUnit: $class.$name") or diag($body);
	}
}
ok($tests >= 20 && $classes{CounterStateTest} && $classes{ServerTest} && $skipped == 0,
	"Surefire ran $tests tests, the server's too, none skipped")
  or diag(join(', ', map { "$_: $classes{$_}" } sort keys %classes) . ", $skipped skipped");

# 2. The programs of the page, in a Maven project of their own that depends
# on the installed artifact.
$node->safe_psql('postgres', "CREATE DATABASE shop;\nLOAD 'counter_crdt';\nALTER DATABASE shop SET counter_crdt.node_id = '$doc_id';");
$node->safe_psql('shop', recipe('java/table'));
my $app = "$tmp/shop";
File::Path::make_path("$app/src/main/java/shop");
my $port = { 'jdbc:postgresql://localhost:5432/' => 'jdbc:postgresql://localhost:' . $node->port . '/' };
my %files = ('pom.xml' => recipe('java/pom'),
	'src/main/java/shop/Main.java' => recipe('java/app', $port),
	'src/main/java/shop/Copy.java' => recipe('java/copy', $port));
foreach my $file (sort keys %files)
{
	open(my $fh, '>', "$app/$file") or die "cannot write $app/$file: $!";
	print $fh $files{$file};
	close($fh);
}
foreach my $prog ([ 'app', 'shop.Main' ], [ 'copy', 'shop.Copy' ])
{
	my ($name, $main) = @$prog;
	($rc, $out, $err) = run_cmd(\%home, 'sh', '-c', "cd $app && mvn -o -q compile exec:java -Dexec.mainClass=$main");
	is($rc, 0, "doc/java.md, java/$name: runs") or diag("$out\n$err");
	# Maven 3.8 writes a colour reset around a quiet run's output, even -B
	$out =~ s/\e\[[0-9;]*m//g;
	is($out, recipe("java/$name.out"), "doc/java.md, java/$name: prints what the page shows");
}
my $built = "$tmp/tree/clients/java/target/counter-crdt-jdbc-1.12.0.jar";
ok(-f $jar && -f $built && slurp_file($jar) eq slurp_file($built),
	'the installed artifact is the jar the build made');

$node->stop;
done_testing();
