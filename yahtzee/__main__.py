"""``python -m yahtzee``: the command line of ``yahtzee.cli``."""

from yahtzee.cli import main

raise SystemExit(main())
