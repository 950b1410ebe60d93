"""The bound under which two of the solver's values are equal (no numpy: the coach needs it)."""

TIE = 1e-9
"""Choices whose values differ by less than this are equal, and the tie order decides.

The values are exact up to rounding in the last bits (about 1e-13), which
depends on the order of the sums; equal choices must not be told apart by
it.  The solver's tables (``dynamic``, and ``_kernel.c``'s ``TIE``) break
ties with the same bound.
"""
