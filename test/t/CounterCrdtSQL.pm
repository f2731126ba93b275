# Statements shared by the TAP tests of counter_crdt.
package CounterCrdtSQL;

use strict;
use warnings;

use Exporter 'import';
use IPC::Run ();
use PostgreSQL::Test::Utils ();
our @EXPORT = qw(increment_statement start_script page_view_ids);

# One increment of key $k of a table by $d, as a statement and the command
# tag psql prints when it did increment: 'upsert' creates the key if it is
# missing (first increments race through ON CONFLICT), 'plus' and 'minus'
# update an existing row (c + d, or c - (-d)).  The table is t (k int,
# c counter_crdt) unless $tbl names another: { table => 'page_views',
# key => 'page', counter => 'views', text_keys => 1 } (text keys are quoted).
sub increment_statement
{
	my ($kind, $k, $d, $tbl) = @_;
	$tbl //= { table => 't', key => 'k', counter => 'c' };
	my ($t, $kc, $c) = @$tbl{qw(table key counter)};
	my $kl = $tbl->{text_keys} ? "'$k'" : $k;
	if ($kind eq 'upsert')
	{
		return (
			"INSERT INTO $t VALUES ($kl, NULL::counter_crdt + ($d)) "
			  . "ON CONFLICT ($kc) DO UPDATE SET $c = $t.$c + ($d);",
			'INSERT 0 1');
	}
	return ("UPDATE $t SET $c = $c + ($d) WHERE $kc = $kl;", 'UPDATE 1')
	  if $kind eq 'plus';
	return ("UPDATE $t SET $c = $c - (" . (-$d) . ") WHERE $kc = $kl;",
		'UPDATE 1')
	  if $kind eq 'minus';
	die "unknown increment kind $kind";
}

# Writes $sql to $file and starts psql running it on $node's database $db
# (postgres unless given), stopping at the first error; returns the IPC::Run handle and
# references to what psql prints (command tags, one a statement) and to its
# standard error.
sub start_script
{
	my ($node, $file, $sql, $db) = @_;
	my ($out, $err) = ('', '');
	PostgreSQL::Test::Utils::append_to_file($file, $sql);
	my $h = IPC::Run::start(
		[
			'psql', '-X', '-v', 'ON_ERROR_STOP=1',
			'-d', $node->connstr($db // 'postgres'), '-f', $file
		],
		'>', \$out, '2>', \$err);
	return ($h, \$out, \$err);
}

# The writer ids that page_views' counters on $node (database $db) carry,
# as shards or in fold records, sorted and comma-separated.
sub page_view_ids
{
	my ($node, $db) = @_;
	return $node->safe_psql($db, q{
		SELECT coalesce(string_agg(DISTINCT x, ',' ORDER BY x), '') FROM (
		  SELECT s.id::text AS x FROM page_views, counter_crdt_shards(views) s
		  UNION ALL
		  SELECT f.retired::text FROM page_views, counter_crdt_folds(views) f
		  UNION ALL
		  SELECT f.target::text FROM page_views, counter_crdt_folds(views) f) i});
}

1;
