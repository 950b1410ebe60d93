"""Layer 7, the interfaces: the console game, the command line and every text a player reads.

``console`` holds every text the terminal prints (the specification's own,
character for character); ``console_game`` holds the UML's ``Game``, the
console front end of the engine; ``commands`` what each subcommand does;
``cli`` the parser and ``main``.
"""
