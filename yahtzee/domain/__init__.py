"""Layer 1, the domain: the course UML's classes, the rule sets and both games' cards.

Pure logic: nothing here reads, prints, opens a file or imports numpy.  The
modules, bottom up: ``die`` and ``dice`` (``Die``, ``Dice``, ``DiceRoll``),
``category_value`` and ``category`` (the thirteen boxes), ``rules`` (the
course and official rule sets), ``score_card``, ``card`` (what any card offers
the engine), ``poker_dice`` (the other assignment's game) and ``games`` (the
registry naming every game and rule set).
"""
