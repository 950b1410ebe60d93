"""Many solitaire games at once: every game's dice and decisions as numpy arrays.

Each turn, the games' states are deduplicated, the values inside a turn
are worked out once per distinct state, and every game then rolls, keeps
and scores by table look-ups.  The decisions are the strategies' own (the
same tie-breaking as ``yahtzee.solver.strategy``); the dice come from one
numpy generator seeded by the caller, so a seed always gives the same games;
a computer level draws its choices from that generator too.  While one
batch of games throws its dice, a helper thread works out the next batch's
values (numpy's array work runs without the interpreter lock).
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np
import numpy.typing as npt

from yahtzee.domain.rules import Rules
from yahtzee.players.kinds import EXPECTED, GREEDY, SOLO_STRATEGIES
from yahtzee.solver import accel
from yahtzee.solver.cache import TableSource
from yahtzee.solver.dynamic import (States, TurnValues, first_best, scoring_choices,
                                    scoring_worth, state_index, step, table_specials,
                                    turn_values)
from yahtzee.solver.keeps import (COUNTS, FACES, KEEP_OF_CODE, MAX_SUB_KEEPS, NUM_DICE,
                                  ROLL_START, SUB_KEEP_COUNT, SUB_KEEPS, FloatArray, IntArray,
                                  code_of)
from yahtzee.solver.levels import draw_options, find_level
from yahtzee.solver.model import ScoringModel, yahtzee_model

GAMES_PER_BATCH = 4096
"""Games whose turn is played together (their distinct states are evaluated at once)."""


_KEEP_CODE = code_of(COUNTS)
"""The lookup code of each keep."""
_FACE_CODE = code_of(np.eye(FACES, dtype=np.int64))
"""What one more die of each face (0 to 5) adds to a lookup code."""
_KEEP_SIZE = COUNTS.sum(axis=1)
"""The dice of each keep."""
_SUB_KEEPS_T = np.ascontiguousarray(SUB_KEEPS.T)
"""``SUB_KEEPS`` with one row per position: (32, 252)."""
_PADDING_T = np.arange(MAX_SUB_KEEPS)[:, None] >= SUB_KEEP_COUNT[None, :]
"""Where ``_SUB_KEEPS_T`` only repeats the roll (past its distinct keeps)."""


def _throw(rng: np.random.Generator, kept: IntArray) -> IntArray:
    """Return the rolls (numbers 0 to 251) after throwing the dice missing from each keep."""
    count = len(kept)
    faces = rng.integers(0, FACES, size=(count, NUM_DICE))
    missing = NUM_DICE - _KEEP_SIZE[kept]
    thrown = np.arange(NUM_DICE)[None, :] < missing[:, None]
    code = _KEEP_CODE[kept] + (_FACE_CODE[faces] * thrown).sum(axis=1)
    rolls: IntArray = KEEP_OF_CODE[code] - ROLL_START
    return rolls


Prepared = tuple[States, TurnValues, IntArray, int]
"""A turn ready to play: the games' states, the tables, each game's column, the columns."""


def prepare_turn(model: ScoringModel, values: FloatArray, states: States) -> Prepared:
    """Return (states, turn values of the distinct states, each game's one, their number)."""
    index = state_index(model, states.flag, states.mask, states.upper)
    unique, where = np.unique(index, return_inverse=True)
    rest, upper = np.divmod(unique, model.n_upper)
    flag, mask = np.divmod(rest, model.n_masks)
    batch = States(flag, mask, upper)
    return states, turn_values(model, values, batch, table_specials(model, batch)), \
        where.ravel(), len(unique)


def play_turn(model: ScoringModel, values: FloatArray, rng: np.random.Generator,
              prepared: Prepared, temperature: float = 0.0
              ) -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """Play one turn of some games; return their next states and the points they scored.

    Each game keeps by its column ``where`` of the turn's tables; it scores
    the box the tables chose when they hold the choices, and otherwise the
    box of the highest expected final score.  A ``temperature`` above 0
    plays a computer level: each keep and box is drawn from ``rng`` with the
    chances of ``levels.choice_chances``.
    """
    states, turn, where, width = prepared
    rolls = _throw(rng, np.zeros(len(where), dtype=np.int64))
    done = np.zeros(len(where), dtype=np.bool_)
    for table in (turn.keep2, turn.keep1):
        pick = _keep_picks(rng, turn, table, rolls, where, width, temperature)
        stop = done | (pick == 0)
        kept = _SUB_KEEPS_T[pick, rolls]
        thrown = _throw(rng, kept)
        rolls = np.where(stop, rolls, thrown)
        done = stop
    if temperature > 0:
        worth = scoring_worth(model, values, states, rolls)
        slot = draw_options(worth.T, temperature, rng.random(len(rolls)))
    elif turn.choice is not None:
        slot = turn.choice.reshape(-1).take(rolls * width + where).astype(np.int64)
    else:
        picked = accel.best_boxes(model, values, states.flag, states.mask, states.upper, rolls)
        slot = scoring_choices(model, values, states, rolls) if picked is None else picked
    n_cat = model.n_categories
    box = np.where(slot < n_cat, model.base[rolls, np.minimum(slot, n_cat - 1)], 0)
    bonus = np.zeros_like(box)
    special = model.special
    if special is not None:
        for s, roll in enumerate(special.rolls):
            hit = (rolls == roll) & special.varies[states.flag, states.mask]
            if hit.any():
                box[hit] = special.box_points[states.flag[hit], states.mask[hit], s, slot[hit]]
                bonus[hit] = special.bonus_points[states.flag[hit], states.mask[hit], s,
                                                  slot[hit]]
    flag, mask, upper, reward = step(model, states.flag, states.mask, states.upper, slot, box,
                                     bonus)
    return (np.array(flag), np.array(mask), np.array(upper), np.array(reward))


def _keep_picks(rng: np.random.Generator, turn: TurnValues, table: FloatArray, rolls: IntArray,
                where: IntArray, width: int, temperature: float) -> IntArray:
    """Return each game's keep of its roll, as a position in ``SUB_KEEPS`` (0: score now).

    The best keep by ``table`` (a turn's keeps with one or two rolls left),
    or with a ``temperature`` above 0 one drawn from ``rng``.
    """
    pick = accel.best_keeps(table, turn.leaf, where, rolls) if temperature <= 0 else None
    if pick is not None:
        return pick
    options = _SUB_KEEPS_T[:, rolls]
    worth = table.reshape(-1).take(options * width + where)
    worth[0] = turn.leaf.reshape(-1).take(rolls * width + where)
    np.copyto(worth, -np.inf, where=_PADDING_T[:, rolls])
    if temperature > 0:
        return draw_options(worth, temperature, rng.random(len(rolls)))
    return first_best(worth, axis=0)


def play_games(model: ScoringModel, values: FloatArray, games: int,
               seed: int | None, temperature: float = 0.0) -> npt.NDArray[np.int64]:
    """Return the final scores of ``games`` solitaire games played with the state ``values``.

    A ``temperature`` above 0 plays a computer level (see ``play_turn``).
    """
    rng = np.random.default_rng(seed)
    flag = np.zeros(games, dtype=np.int64)
    mask = np.zeros(games, dtype=np.int64)
    upper = np.zeros(games, dtype=np.int64)
    total = np.zeros(games, dtype=np.int64)
    with ThreadPoolExecutor(1) as helper:
        for _ in range(model.rounds):
            order = np.lexsort((upper, mask, flag))
            parts = [order[lo:lo + GAMES_PER_BATCH] for lo in range(0, games, GAMES_PER_BATCH)]

            def prepare(part: IntArray) -> Future[Prepared]:
                """Start working out the turn's values of the games ``part`` in the helper."""
                return helper.submit(prepare_turn, model, values,
                                     States(flag[part], mask[part], upper[part]))

            coming = prepare(parts[0])
            for i, part in enumerate(parts):
                prepared = coming.result()
                if i + 1 < len(parts):
                    coming = prepare(parts[i + 1])
                f2, m2, u2, reward = play_turn(model, values, rng, prepared, temperature)
                flag[part], mask[part], upper[part] = f2, m2, u2
                total[part] += reward
    return total


def simulate(rules: Rules, strategy: str, games: int, seed: int | None,
             tables: TableSource) -> npt.NDArray[np.int64]:
    """Return the final scores of ``games`` games of ``rules`` played by ``strategy``.

    ``strategy`` is a name of ``SOLO_STRATEGIES``; optimal play and the
    levels ask ``tables`` for the rule set's table.
    """
    level = find_level(strategy)
    if strategy == EXPECTED.strategy or level is not None:
        solution = tables(rules)
        return play_games(solution.model, solution.values, games, seed,
                          0.0 if level is None else level.temperature)
    if strategy == GREEDY.strategy:
        model = yahtzee_model(rules)
        return play_games(model, np.zeros(model.shape), games, seed)
    raise ValueError(f"unknown strategy {strategy!r}; "
                     f"choose one of: {', '.join(SOLO_STRATEGIES)}")
