"""Layer 3, players and their kinds: who supplies each seat's commands.

``kinds`` is the one table of player kinds (``human``, ``computer``,
``greedy``) that the command line, saves, history, statistics and the solver
all read; ``players`` holds the UML's ``Player`` with ``HumanPlayer`` and
``ComputerPlayer``, which returns commands from a strategy.  Players see the
game only through the engine's ``TurnView``; the engine checks what they send.
"""
