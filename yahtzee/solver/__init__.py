"""The exact optimal solver for Yahtzee-like dice games, its table cache and strategies.

This package needs numpy; nothing outside it imports numpy.  The modules:
``keeps`` (the multisets of dice), ``model`` (a game's scoring model),
``engine`` (the dynamic program), ``cache`` (stored value tables),
``strategy`` (optimal and greedy players), ``simulate`` (batched games),
``poker`` (Poker Dice on the same solver) and ``commands`` (the ``solve``
and ``simulate`` commands, which import numpy only when they run).
"""
