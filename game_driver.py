"""GameDriver: starts a game of Yahtzee (``python game_driver.py --help`` lists the options).

Extra credit: a ``Player`` class (``HumanPlayer``, ``ComputerPlayer``) used by
``Game``, and a player-versus-computer game (``--players human,computer``).
"""
from yahtzee.interfaces.cli import main
raise SystemExit(main())
