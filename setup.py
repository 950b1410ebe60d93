"""Build script: the metadata is in setup.cfg; this adds the two optional compiled modules.

``pip install .`` (or ``-e .``) compiles ``yahtzee/solver/_kernel.c``, the
solver's kernel, and ``yahtzee/storage/_disk.c``, the browser table's appends
to the disk, when a C compiler is at hand.  Both are optional: if one cannot
be compiled the install goes on without it; the solver then runs on numpy
alone, and the table waits for the disk in Python threads.
"""

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


class BuildKernel(build_ext):
    """Compile the kernel with optimization, and without fused multiply-adds on GCC and Clang.

    Fused multiply-adds would round differently from numpy's separate products
    and sums.
    """

    def build_extensions(self) -> None:
        """Add the compiler flags for a Unix compiler, then build as usual."""
        if self.compiler.compiler_type == "unix":
            for extension in self.extensions:
                extension.extra_compile_args += ["-O3", "-ffp-contract=off", "-std=c99"]
        super().build_extensions()


setup(
    ext_modules=[Extension("yahtzee.solver._kernel", ["yahtzee/solver/_kernel.c"],
                           optional=True),
                 Extension("yahtzee.storage._disk", ["yahtzee/storage/_disk.c"],
                           optional=True)],
    cmdclass={"build_ext": BuildKernel},
)
