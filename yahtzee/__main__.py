"""``python -m yahtzee``: the command line of ``yahtzee.interfaces.cli``."""

from yahtzee.interfaces.cli import main

raise SystemExit(main())
