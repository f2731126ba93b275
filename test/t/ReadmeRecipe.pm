# The recipes of README.md and of the pages in doc/, as the TAP tests run
# them.
#
# A recipe in the documentation is code: a test runs it as written, so that
# a change that breaks a recipe fails the tests.  A fenced block is a recipe
# block when the line just before its opening fence is a marker:
#
#   <!-- recipe: NAME -->
#   ```sql
#   ...
#   ```
#
# NAME is made of letters, digits, '-', '_', '/' and '.', and names one block
# in all the documents.  The fence may name any language (sql, conf, sh); the
# marker is an HTML comment, so readers of the rendered page do not see it.
#
# The tests find README.md through the environment variable
# COUNTER_CRDT_README (scripts/test.sh sets it to a copy of the tree's
# README.md, with doc/ beside it), else two directories above this file; the
# pages are doc/*.md beside README.md.
#
#   use ReadmeRecipe;
#   my $sql = recipe('replication/publish');               # the block's text
#   my $sql = recipe('replication/subscribe',
#                    { 'host=b port=5432' => $node_b->connstr });
#
# The second form substitutes literal text (host names, ports, the names a
# test gives its servers), all keys in one pass, so that a replacement is
# never replaced again: every key must occur in the block at least once, so
# that an edit that drops a host the test relies on fails loudly instead of
# running something else.
package ReadmeRecipe;

use strict;
use warnings;

use Exporter 'import';
use File::Basename ();
use File::Spec ();
our @EXPORT = qw(recipe recipe_names);

my %blocks;    # name => text of the block
my @order;     # names in document order
my %where;     # name => file and line

sub _readme_path
{
	return $ENV{COUNTER_CRDT_README} if $ENV{COUNTER_CRDT_README};
	my $dir = File::Basename::dirname(File::Spec->rel2abs(__FILE__));
	return File::Spec->catfile($dir, File::Spec->updir, File::Spec->updir,
		'README.md');
}

# README.md, then the pages of doc/ beside it, in name order.
sub _documents
{
	my $readme = _readme_path();
	my $doc = File::Spec->catdir(File::Basename::dirname($readme), 'doc');
	return ($readme, sort glob(File::Spec->catfile($doc, '*.md')));
}

sub _load
{
	return if @order;
	foreach my $path (_documents())
	{
		open(my $fh, '<', $path) or die "cannot read $path: $!";
		my @lines = <$fh>;
		close($fh);
		my $file = File::Basename::basename($path);
		$file = "doc/$file" if $path ne _readme_path();

		my $i = 0;
		while ($i < @lines)
		{
			if ($lines[$i] =~ /^<!--\s*recipe:\s*([A-Za-z0-9_.\/-]+)\s*-->\s*$/)
			{
				my $name = $1;
				my $at = $i + 1;
				die "$file line $at: recipe '$name' is not followed by a fenced block"
				  unless $i + 1 < @lines && $lines[ $i + 1 ] =~ /^(```+)/;
				my $fence = $1;
				die "$file line $at: recipe '$name' is marked twice (also in $where{$name})"
				  if exists $blocks{$name};
				my $text = '';
				my $j = $i + 2;
				while ($j < @lines && $lines[$j] !~ /^\Q$fence\E\s*$/)
				{
					$text .= $lines[$j];
					$j++;
				}
				die "$file line $at: the block of recipe '$name' is not closed"
				  if $j >= @lines;
				$blocks{$name} = $text;
				$where{$name} = "$file line $at";
				push @order, $name;
				$i = $j + 1;
				next;
			}
			$i++;
		}
	}
	die 'README.md and doc/ (' . _readme_path() . ') have no recipe blocks' unless @order;
	return;
}

# The names of every recipe block, in README order.
sub recipe_names
{
	_load();
	return @order;
}

# The text of one recipe block, with literal substitutions.
sub recipe
{
	my ($name, $subst) = @_;
	_load();
	die "README.md and doc/ have no recipe block named '$name'"
	  unless exists $blocks{$name};
	my $text = $blocks{$name};
	my @from = sort { length($b) <=> length($a) || $a cmp $b } keys %{ $subst // {} };
	return $text unless @from;
	foreach my $from (@from)
	{
		die "recipe '$name' does not contain '$from'" unless index($text, $from) >= 0;
	}
	# one pass, longest first: a replacement is never replaced again
	my $re = join('|', map { quotemeta } @from);
	$text =~ s/($re)/$subst->{$1}/g;
	return $text;
}

1;
