"""Types of the optional compiled kernel (``_kernel.c``); ``yahtzee.solver.accel`` uses it.

Every array is a C-contiguous numpy array (the kernel reads it through the
buffer protocol): int64 states and indices, float64 values, int8 choices,
bool and int16 special tables.
"""

from typing import Any

from numpy.typing import NDArray

BLOCK: int

def set_keeps(children: NDArray[Any], parents: NDArray[Any], chances: NDArray[Any],
              sub_keeps: NDArray[Any]) -> None: ...
def best_keep(table: NDArray[Any], leaf: NDArray[Any], roll: int) -> int: ...
def best_keeps(table: NDArray[Any], leaf: NDArray[Any], where: NDArray[Any],
               rolls: NDArray[Any], out: NDArray[Any]) -> None: ...
def turn_ends(keep1: NDArray[Any], leaf: NDArray[Any], one: NDArray[Any],
              two: NDArray[Any]) -> None: ...
def turn_keeps(leaf: NDArray[Any], keep1: NDArray[Any], keep2: NDArray[Any]) -> None: ...
def win_chances(players: NDArray[Any], rows: NDArray[Any], columns: NDArray[Any],
                field: NDArray[Any], field_rows: NDArray[Any], nodes: NDArray[Any],
                weights: NDArray[Any], steps: NDArray[Any], limits: NDArray[Any],
                pmf: NDArray[Any] | None, cdf: NDArray[Any] | None,
                points: NDArray[Any] | None, chances: NDArray[Any] | None,
                size: NDArray[Any] | None, out: NDArray[Any]) -> None: ...
def seat_chances(banked: NDArray[Any], index: NDArray[Any], mean: NDArray[Any],
                 variance: NDArray[Any], third: NDArray[Any], fourth: NDArray[Any],
                 row_of: NDArray[Any] | None, solved: NDArray[Any] | None,
                 nodes: NDArray[Any], weights: NDArray[Any], steps: NDArray[Any],
                 limits: NDArray[Any], pmf: NDArray[Any] | None, cdf: NDArray[Any] | None,
                 points: NDArray[Any] | None, chances: NDArray[Any] | None,
                 size: NDArray[Any] | None, out: NDArray[Any]) -> bool: ...

class Plan:
    def __init__(self, sizes: NDArray[Any], upper_of: NDArray[Any], entry_box: NDArray[Any],
                 entry_points: NDArray[Any], entry_of: NDArray[Any],
                 special_rolls: NDArray[Any], allowed: NDArray[Any], box: NDArray[Any],
                 bonus: NDArray[Any], varies: NDArray[Any], base: NDArray[Any]) -> None: ...
    def start(self, values: NDArray[Any], flags: NDArray[Any], masks: NDArray[Any],
              uppers: NDArray[Any], out: NDArray[Any]) -> None: ...
    def turn(self, values: NDArray[Any], flags: NDArray[Any], masks: NDArray[Any],
             uppers: NDArray[Any], leaf: NDArray[Any], keep1: NDArray[Any],
             keep2: NDArray[Any], choice: NDArray[Any] | None) -> None: ...
    def best_box(self, values: NDArray[Any], flag: int, mask: int, upper: int,
                 roll: int) -> int: ...
    def best_boxes(self, values: NDArray[Any], flags: NDArray[Any], masks: NDArray[Any],
                   uppers: NDArray[Any], rolls: NDArray[Any], out: NDArray[Any]) -> None: ...
    def moments(self, values: NDArray[Any], second: NDArray[Any], bonus: NDArray[Any],
                yahtzee: NDArray[Any], flags: NDArray[Any], masks: NDArray[Any],
                uppers: NDArray[Any], out: NDArray[Any]) -> None: ...
    def shape(self, values: NDArray[Any], second: NDArray[Any], third: NDArray[Any],
              fourth: NDArray[Any], flags: NDArray[Any], masks: NDArray[Any],
              uppers: NDArray[Any], out: NDArray[Any]) -> None: ...
    def moments_shape(self, values: NDArray[Any], second: NDArray[Any], bonus: NDArray[Any],
                      yahtzee: NDArray[Any], third: NDArray[Any], fourth: NDArray[Any],
                      flags: NDArray[Any], masks: NDArray[Any], uppers: NDArray[Any],
                      out: NDArray[Any]) -> None: ...
    def turn_one(self, values: NDArray[Any], flag: int, mask: int, upper: int,
                 out: NDArray[Any], choice: NDArray[Any] | None,
                 rolls: NDArray[Any] | None = ...,
                 allowed: NDArray[Any] | None = ..., box: NDArray[Any] | None = ...,
                 bonus: NDArray[Any] | None = ...) -> None: ...
    def leaf_steps(self, flag: int, mask: int, upper: int, choice: NDArray[Any],
                   reward: NDArray[Any], following: NDArray[Any]) -> None: ...
    def entry_steps(self, flag: int, mask: int, upper: int, reward: NDArray[Any],
                    following: NDArray[Any]) -> None: ...
    def best_entries(self, mask: int, worth: NDArray[Any], best: NDArray[Any],
                     choice: NDArray[Any]) -> None: ...
