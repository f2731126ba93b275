# The single-server examples of README.md ("A first session"), run as
# written on a fresh server: every statement must succeed, every result that
# the README shows below a statement (commented psql output) must be what
# psql prints, and every command tag the README shows (a trailing comment
# such as "-- UPDATE 0") must be the tag psql prints.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run ();
use FindBin;
use lib $FindBin::RealBin;
use SignalExit;
use ReadmeRecipe;

# Splits a block into statements, each with what the README expects of it:
# the table it shows (the run of comment lines right after the statement
# that start like psql output, "--  " or "-- -"), or a command tag in a
# trailing comment.
sub statements
{
	my ($text) = @_;
	my (@out, $sql, $cur);
	foreach my $line (split /\n/, $text)
	{
		if (!defined $sql && $line =~ /^--(?: |$)/)
		{
			# comment lines after a statement: its output, if they look so
			if ($cur && ($cur->{shown} ne '' || $line =~ /^--(  | -|$)/)
				&& !$cur->{closed})
			{
				(my $l = $line) =~ s/^-- ?//;
				$cur->{shown} .= "$l\n";
				next;
			}
			$cur->{closed} = 1 if $cur;
			next;
		}
		if ($line =~ /^\s*$/)
		{
			$cur->{closed} = 1 if $cur;
			next;
		}
		my ($code, $comment) = $line =~ /^(.*?)(?:\s+--\s*(.*))?$/;
		$sql = defined $sql ? "$sql\n$code" : $code;
		if ($code =~ /;\s*$/)
		{
			$cur = { sql => $sql, shown => '', tag => undef, closed => 0 };
			$cur->{tag} = $comment
			  if defined $comment && $comment =~ /^[A-Z]+(?: [0-9]+)+$/;
			push @out, $cur;
			undef $sql;
		}
	}
	die "a statement is not closed: $sql" if defined $sql;
	return @out;
}

my @names = grep { m{^first-session/} } recipe_names();
ok(@names >= 3, 'README has the first-session examples as recipes: ' . join(', ', @names));

my $node = PostgreSQL::Test::Cluster->new('examples');
$node->init;
$node->start;

# The README shows stored states with one writer id; the server writes
# under that id, so the printed states can match to the character.
my $all = join('', map { recipe($_) } @names);
my %ids = map { $_ => 1 } ($all =~ /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}):/g);
my @ids = keys %ids;
is(scalar(@ids), 1, 'the examples show the states of one leader id');
$node->safe_psql('postgres', qq{
	CREATE EXTENSION counter_crdt;
	ALTER DATABASE postgres SET counter_crdt.node_id = '$ids[0]';
});

# then doc/numbers.md's, in the same database
my @numbers = grep { m{^numbers/} } recipe_names();
ok(@numbers >= 3, 'doc/numbers.md has its recipes: ' . join(', ', @numbers));

foreach my $name (@names, @numbers)
{
	my @stmts = statements(recipe($name));
	ok(@stmts > 0, "$name: has statements");
	foreach my $st (@stmts)
	{
		# psql as a user runs it (aligned, tags printed), not the
		# unaligned, quiet form of PostgreSQL::Test::Cluster::psql
		my ($stdout, $stderr) = ('', '');
		IPC::Run::run(
			[
				'psql', '-X', '-P', 'footer=off', '-v', 'ON_ERROR_STOP=1',
				'-d', $node->connstr('postgres'), '-c', $st->{sql}
			],
			'>', \$stdout, '2>', \$stderr);
		my $ret = $? >> 8;
		(my $short = $st->{sql}) =~ s/\s+/ /g;
		$short = substr($short, 0, 70);
		is($ret, 0, "$name: runs: $short") or diag($stderr);
		if ($st->{shown} ne '')
		{
			(my $want = $st->{shown}) =~ s/\s+\z//;
			(my $got = $stdout) =~ s/\s+\z//;
			# psql pads cells with trailing blanks that a README line drops
			s/[ ]+$//mg for ($want, $got);
			is($got, $want, "$name: prints what the README shows: $short");
		}
		if (defined $st->{tag})
		{
			# psql -c prints the tag of a statement that returns no rows
			(my $got = $stdout) =~ s/\s+\z//;
			is($got, $st->{tag}, "$name: command tag $st->{tag}: $short");
		}
	}
}

# doc/reference.md names every object of the extension, and every
# counter_crdt_* name it mentions exists: functions (support functions
# included, in the paragraph under the table), aggregates, tables, types and
# operator classes.
{
	my $readme = $ENV{COUNTER_CRDT_README}
	  // "$FindBin::RealBin/../../README.md";
	(my $path = $readme) =~ s{[^/]*$}{doc/reference.md};
	open(my $fh, '<', $path) or die "cannot read $path: $!";
	local $/;
	my $page = <$fh>;
	close($fh);
	# the page up to its Privileges section
	my ($ref) = $page =~ /^# Reference\n(.*?)\n## Privileges\n/s;
	ok(defined $ref, 'doc/reference.md has its reference section');
	$ref //= '';
	# "counter_crdt_merge_agg_trans/combine/final" names three functions
	my %named;
	while ($ref =~ /\b(counter_crdt_[a-z0-9_]+)((?:\/[a-z0-9_]+)*)/g)
	{
		my ($first, $rest) = ($1, $2);
		$named{$first} = 1;
		next unless $rest;
		(my $stem = $first) =~ s/_[a-z0-9]+$//;
		$named{"${stem}_$_"} = 1 foreach grep { $_ ne '' } split m{/}, $rest;
	}
	my %installed = map { $_ => 1 } split /\n/, $node->safe_psql('postgres', q{
		SELECT DISTINCT coalesce(p.proname, c.relname, t.typname, o.opcname)
		  FROM pg_depend d
		  LEFT JOIN pg_proc p ON d.classid = 'pg_proc'::regclass AND p.oid = d.objid
		  LEFT JOIN pg_class c ON d.classid = 'pg_class'::regclass AND c.oid = d.objid
		  LEFT JOIN pg_type t ON d.classid = 'pg_type'::regclass AND t.oid = d.objid
		  LEFT JOIN pg_opclass o ON d.classid = 'pg_opclass'::regclass AND o.oid = d.objid
		 WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
		   AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'counter_crdt')
		   AND coalesce(p.proname, c.relname, t.typname, o.opcname) LIKE 'counter\_crdt%'});
	my @missing = sort grep { !$named{$_} && $_ ne 'counter_crdt' } keys %installed;
	my @unknown = sort grep { !$installed{$_} } keys %named;
	is("@missing", '', 'every installed object is named in doc/reference.md');
	is("@unknown", '', 'every counter_crdt_* name of doc/reference.md is installed');
	ok(keys(%installed) > 40, scalar(keys %installed) . ' objects compared');
}

$node->stop;
done_testing();
