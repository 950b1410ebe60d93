"""Layer 2, the engine: the turn state machine and plain records of what happened.

``engine`` holds ``Engine``, which a front end drives (``prompt``, ``submit``,
``Outcome``) and which never prints or reads; ``records`` holds the plain
data of a game (``Decision``, ``GameRecord``) that persistence writes and an
analysis replays.  It imports only the domain.
"""
