# The Python package of clients/python, built and installed as a user does
# it with Debian's tools: a wheel built by python3-build (python3 -m build
# --no-isolation, from the Debian packages of setuptools and wheel; pip
# wheel only where python3-build is missing), installed into a fresh venv
# that sees the system's packages (the drivers and ORMs of python3-psycopg,
# -sqlalchemy, -django ...) by pip from the wheel file alone.  No path
# tricks: the tests import the package that the wheel installed.  The venv
# is made --without-pip and the wheel installed by Debian's pip (python3-pip,
# which the venv sees): the commands of doc/python.md, and 0.1 s where
# copying a pip into the venv takes 5 to 7.
#
#   use PythonPackage;
#   my $pkg = python_package($scratch_dir);
#   $pkg->{python}    # the venv's python
#   $pkg->{wheel}     # the wheel file it installed
#
# The source is copied first, so that the build leaves nothing in the tree.
# In a chroot of scripts/test.sh, /usr/bin/python3 is the chroot's.
package PythonPackage;

use strict;
use warnings;

use Exporter 'import';
use File::Basename ();
use File::Path ();
use File::Spec ();
use IPC::Run ();
our @EXPORT = qw(python_package);

our $system_python = '/usr/bin/python3';

sub _source
{
	my $dir = File::Basename::dirname(File::Spec->rel2abs(__FILE__));
	return File::Spec->catdir($dir, File::Spec->updir, File::Spec->updir,
		'clients', 'python');
}

sub _run
{
	my ($what, @cmd) = @_;
	local $ENV{PIP_DISABLE_PIP_VERSION_CHECK} = 1;
	local $ENV{PIP_NO_CACHE_DIR} = 1;
	local $ENV{PIP_NO_INPUT} = 1;
	my ($out, $err) = ('', '');
	IPC::Run::run(\@cmd, '<', \undef, '>', \$out, '2>', \$err)
	  or die "$what failed (exit status " . ($? >> 8) . "): @cmd\n$out$err";
	return $out;
}

# Builds the wheel into DIR/dist and installs it into the venv DIR/venv;
# returns { python, wheel, venv }.
sub python_package
{
	my ($dir) = @_;
	my $src = "$dir/src";
	my $dist = "$dir/dist";
	my $venv = "$dir/venv";
	File::Path::make_path($dir);
	_run('copying clients/python', 'cp', '-a', _source(), $src);
	if (system($system_python, '-c', 'import build') == 0)
	{
		_run('python3 -m build', $system_python, '-m', 'build', '--no-isolation',
			'--wheel', '--outdir', $dist, $src);
	}
	else
	{
		_run('pip wheel', $system_python, '-m', 'pip', 'wheel', '--no-build-isolation',
			'--no-deps', '--wheel-dir', $dist, $src);
	}
	my @wheels = glob("$dist/counter_crdt-*.whl");
	die "no wheel built in $dist" unless @wheels == 1;
	_run('python3 -m venv', $system_python, '-m', 'venv', '--system-site-packages', '--without-pip', $venv);
	_run('pip install', "$venv/bin/python", '-m', 'pip', 'install', '--no-index', '--no-deps', $wheels[0]);
	return { python => "$venv/bin/python", wheel => $wheels[0], venv => $venv };
}

1;
