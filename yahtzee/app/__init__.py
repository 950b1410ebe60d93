"""Layer 6, the application: the one game service, composing the layers below.

``service`` is a game in play (``LiveGame``: new or resumed, a move, a
computer's move, the coach's word, the end filed), used by the console and
the browser alike; ``session`` seats players of the kinds asked for
(computer strategies from the solver, ``Solvers``), saves every change
(``Autosave``) and finds saves to resume; ``browser`` keeps a server's
games with their seats' secrets; ``advice`` is the real-dice companion;
``background`` builds solver tables while a game goes on.  It prints
nothing; the interfaces above it do.
"""
