"""Layer 6, the application: new game, resume and autosave, composing the layers below.

``session`` seats players of the kinds asked for (computer strategies from
the solver, tables kept by persistence), wires autosave to the engine and
finds saves to resume.  It prints nothing; the interfaces above it do.
"""
