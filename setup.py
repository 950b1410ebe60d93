"""Build script: the metadata is in setup.cfg; this adds the solver's optional compiled kernel.

``pip install .`` (or ``-e .``) compiles ``yahtzee/solver/_kernel.c`` when a C
compiler is at hand.  The kernel is optional: if it cannot be compiled the
install goes on without it and the solver runs on numpy alone.
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
                           optional=True)],
    cmdclass={"build_ext": BuildKernel},
)
