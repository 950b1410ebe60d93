"""Layer 2, the engine: the turn state machine and plain records of what happened.

``engine`` holds ``Engine``, which a front end drives (``prompt``,
``legal_moves``, ``apply``, ``Outcome``) and which never prints or reads;
``moves`` the typed ``Move`` with its parser and formatter; ``records`` the
plain data of a game (``Decision``, ``GameRecord``) that persistence writes
and an analysis replays.  It imports only the domain.
"""
