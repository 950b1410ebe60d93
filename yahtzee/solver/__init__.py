"""Layer 4, the solver: the exact optimal strategy for Yahtzee-like dice games, and the coach.

This package needs numpy (only its ``events``, ``ties``, ``ranking`` and ``coach``
modules do not).
The modules: ``keeps`` (the multisets of dice), ``model`` (a game's scoring
model), ``dynamic`` (the dynamic program), ``cache`` (checked value tables,
kept through a ``TableStore`` the application supplies), ``events`` (what the
cache reports), ``strategy`` (optimal and greedy players), ``poker`` (Poker
Dice on the same solver), ``factory`` (a strategy by name), ``simulate``
(batched games), ``ranking`` (the one ranking of a position's moves) and
``coach`` (advice and the cost of decisions).
"""
