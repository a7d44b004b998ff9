"""Build hook of the Python package (metadata: pyproject.toml).

Why a custom build_py: the package is a ctypes binding, so it needs the
project's shared library, and the `mlia` console script runs the C CLI.
Both are compiled here with the repository's Makefile (into the build
directory, never into the source tree's build/) and copied into the package
as mlia/_native/libmlia.so and mlia/_native/mlia. The wheel is therefore
platform specific (BinaryDistribution).
"""
import os
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))


class BuildPyWithNative(build_py):
    """build_py, then `make` the C library and CLI into mlia/_native/."""

    def run(self):
        super().run()
        build_temp = os.path.abspath(self.get_finalized_command("build").build_temp)
        c_build = os.path.join(build_temp, "c")
        env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
        jobs = str(max(1, min(4, os.cpu_count() or 1)))
        # WERROR= : a user's newer compiler may warn where CI's does not.
        subprocess.run(["make", "-j" + jobs, "BUILD=" + c_build, "WERROR=",
                        os.path.join(c_build, "libmlia.so"), os.path.join(c_build, "mlia")],
                       cwd=HERE, env=env, check=True)
        native = os.path.join(os.path.abspath(self.build_lib), "mlia", "_native")
        os.makedirs(native, exist_ok=True)
        shutil.copyfile(os.path.join(c_build, "libmlia.so"), os.path.join(native, "libmlia.so"))
        shutil.copyfile(os.path.join(c_build, "mlia"), os.path.join(native, "mlia"))
        os.chmod(os.path.join(native, "mlia"), 0o755)
        os.chmod(os.path.join(native, "libmlia.so"), 0o755)


class BinaryDistribution(Distribution):
    """Native code inside: tag the wheel for this platform."""

    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": BuildPyWithNative}, distclass=BinaryDistribution)
