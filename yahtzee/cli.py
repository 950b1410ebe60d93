"""The command line: ``play`` (the default), ``solve``, ``simulate`` and the other subcommands.

``python game_driver.py [options]`` and ``python -m yahtzee [play] [options]``
both come here.  With no options the course's two-human game starts at once.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from yahtzee.console import Console
from yahtzee.game import Game, yahtzee_variant
from yahtzee.player import (NUMPY_NEEDED, ComputerPlayer, HumanPlayer, Player,
                            StrategyUnavailableError)
from yahtzee.rules import RULES, get_rules
from yahtzee.storage.commands import (LATEST, autosaver, find_save, resume_hint, run_saves,
                                      run_stats)
from yahtzee.storage.saves import SaveFile
from yahtzee.variant import Variant

if TYPE_CHECKING:
    from yahtzee.coach import Coach

PLAYER_KINDS = {"human": "human", "computer": "optimal", "optimal": "optimal", "greedy": "greedy"}
"""Player kinds on the command line, and the strategy each plays (``human``: none)."""
GAMES = ("yahtzee", "poker-dice")
COMMANDS = ("play", "solve", "simulate", "saves", "stats", "analyze")
DEFAULT_DELAY = 0.6
DEFAULT_PLAYERS = ["human", "human"]


def _player_kinds(text: str) -> list[str]:
    """Parse ``--players``: a comma list of 1 to 6 player kinds."""
    kinds = [part.strip().lower() for part in text.split(",")]
    for kind in kinds:
        if kind not in PLAYER_KINDS:
            raise argparse.ArgumentTypeError(
                f"{kind!r} is not a player kind (choose from human, computer, greedy)")
    if not 1 <= len(kinds) <= Game.MAX_PLAYERS:
        raise argparse.ArgumentTypeError(
            f"a game has 1 to {Game.MAX_PLAYERS} players, not {len(kinds)}")
    return kinds


def _names(text: str) -> list[str]:
    """Parse ``--names``: a comma list of non-empty player names."""
    names = [part.strip() for part in text.split(",")]
    if not all(names):
        raise argparse.ArgumentTypeError("player names cannot be empty")
    return names


def _non_negative(text: str) -> float:
    """Parse a number of seconds that is zero or more."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds")
    return value


def _positive(text: str) -> int:
    """Parse a whole number of 1 or more."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is less than 1")
    return value


def program_name() -> str:
    """Return how the user started the program: ``game_driver.py`` or ``python -m yahtzee``."""
    started = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    if started in ("", "__main__.py", "-c"):
        return "python -m yahtzee"
    return started


def build_parser() -> argparse.ArgumentParser:
    """Return the parser of the whole command line."""
    prog = program_name()
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Yahtzee in the terminal, with an exact optimal computer opponent. "
                    "With no command, plays a game (see 'play --help').")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    play = sub.add_parser(
        "play", help="play a game (the default command)",
        prog=prog if prog.endswith(".py") else f"{prog} play",
        description="Play a game. With no options: the course's two-human Yahtzee game. "
                    f"Other commands: {', '.join(COMMANDS[1:])} ({prog} COMMAND --help).")
    play.add_argument("--players", type=_player_kinds, default=DEFAULT_PLAYERS,
                      metavar="KINDS",
                      help="comma list of 1-6 players: human, computer (optimal), greedy "
                           "(default: human,human)")
    play.add_argument("--names", type=_names, metavar="NAMES",
                      help="comma list of player names, in seating order")
    play.add_argument("--rules", choices=sorted(RULES),
                      help="Yahtzee rule set (default: course)")
    play.add_argument("--game", choices=GAMES, default="yahtzee",
                      help="which dice game (default: yahtzee)")
    play.add_argument("--seed", type=int, metavar="N", help="seed the dice: same seed, same dice")
    play.add_argument("--coach", action="store_true",
                      help="advise each human decision and analyze the game at its end")
    play.add_argument("--resume", nargs="?", const=LATEST, metavar="ID",
                      help="continue the most recent unfinished game, or the game ID "
                           "('saves' lists them)")
    play.add_argument("--delay", type=_non_negative, metavar="SECONDS",
                      help="pause before each computer command (default: "
                           f"{DEFAULT_DELAY} on a terminal, 0 otherwise)")

    solve = sub.add_parser(
        "solve", help="print the optimal expected score of solitaire play",
        description="Solve the game exactly and print the expected final score of optimal "
                    "solitaire play (the table is built once, then cached).")
    solve.add_argument("--rules", choices=sorted(RULES), default="course",
                       help="rule set (default: course)")
    solve.add_argument("--json", action="store_true",
                       help='print {"rules", "expected_score", "seconds"}')

    simulate = sub.add_parser(
        "simulate", help="play many solitaire games with a strategy",
        description="Play many solitaire games at once and report the mean, standard "
                    "deviation, lowest and highest score and a histogram.")
    simulate.add_argument("--rules", choices=sorted(RULES), default="course",
                          help="rule set (default: course)")
    simulate.add_argument("--strategy", choices=("optimal", "greedy"), default="optimal",
                          help="how the games are played (default: optimal)")
    simulate.add_argument("--games", type=_positive, default=1000, metavar="N",
                          help="how many games (default: 1000)")
    simulate.add_argument("--seed", type=int, metavar="S",
                          help="seed the dice: same seed, same result")
    simulate.add_argument("--json", action="store_true", help="print JSON")

    sub.add_parser("saves", help="list the unfinished games, to resume with --resume ID",
                   description="List the unfinished games with their save IDs; continue one "
                               "with --resume ID.")
    stats = sub.add_parser("stats", help="statistics of the finished games",
                           description="Games played, wins, best, mean and a histogram of the "
                                       "scores, per player name and per computer strength.")
    stats.add_argument("--json", action="store_true", help="print JSON")
    analyze = sub.add_parser("analyze", help="judge a finished game's decisions against "
                                             "optimal play")
    analyze.add_argument("game_id", nargs="?", metavar="GAME_ID",
                         help="the finished game's number (default: the latest)")
    analyze.add_argument("--json", action="store_true", help="print JSON")
    return parser


def player_names(kinds: Sequence[str]) -> list[str]:
    """Return default names: ``Player N`` for a human in seat N; ``Computer``/``Greedy`` else.

    A computer label shared by several seats is numbered (``Computer 1``, ``Computer 2``).
    """
    labels = ["Player" if kind == "human" else PLAYER_KINDS[kind].replace("optimal", "computer")
              .capitalize() for kind in kinds]
    totals = Counter(labels)
    seen: Counter[str] = Counter()
    names = []
    for seat, label in enumerate(labels, start=1):
        seen[label] += 1
        if label == "Player":
            names.append(f"Player {seat}")
        else:
            names.append(label if totals[label] == 1 else f"{label} {seen[label]}")
    return names


def make_players(kinds: Sequence[str], names: Sequence[str] | None,
                 variant: Variant) -> list[Player]:
    """Seat the players of ``kinds`` with ``names`` (defaults where missing)."""
    defaults = player_names(kinds)
    chosen = list(names or [])
    players: list[Player] = []
    for seat, kind in enumerate(kinds):
        name = chosen[seat] if seat < len(chosen) else defaults[seat]
        card = variant.new_card()
        if kind == "human":
            players.append(HumanPlayer(name, card))
        else:
            players.append(ComputerPlayer(name, card, PLAYER_KINDS[kind],
                                          rules_name=variant.rules_name))
    return players


def make_variant(game: str, rules_name: str) -> Variant:
    """Return the dice game called ``game`` under the rules called ``rules_name``."""
    if game == "poker-dice":
        from yahtzee.poker_dice import POKER_DICE
        return POKER_DICE
    return yahtzee_variant(get_rules(rules_name))


def make_coach(variant: Variant) -> Coach:
    """Return a coach for ``variant``, its table loaded before the game starts."""
    from yahtzee.coach import Coach
    coach = Coach(variant)
    coach.strategy
    return coach


def run_play(args: argparse.Namespace) -> int:
    """Play a game as the options say; return the exit status."""
    delay = args.delay if args.delay is not None else (
        DEFAULT_DELAY if sys.stdout.isatty() else 0.0)
    console = Console(delay=delay)
    if args.names and len(args.names) > len(args.players):
        console.error(f"{len(args.names)} names given for {len(args.players)} players")
        return 2
    if args.names and len(set(args.names)) != len(args.names):
        console.error("player names must differ")
        return 2
    if args.game == "poker-dice" and args.rules is not None:
        console.error("--rules chooses Yahtzee rules; Poker Dice has one rule set")
        return 2
    resumed: SaveFile | None = None
    if args.resume is not None:
        resumed = find_save(args.resume, console)
        if resumed is None:
            return 2
        ignored = [option for option, given in (
            ("--players", args.players != DEFAULT_PLAYERS), ("--names", args.names),
            ("--rules", args.rules), ("--game", args.game != "yahtzee"),
            ("--seed", args.seed is not None)) if given]
        if ignored:
            console.error(f"{', '.join(ignored)} ignored: a resumed game keeps its own settings")
    variant = (make_variant(args.game, args.rules or "course") if resumed is None
               else resumed.snapshot.game_variant())
    try:
        coach = make_coach(variant) if args.coach else None
        saver = autosaver(console, resumed)
        if resumed is not None:
            game = resumed.snapshot.to_game(console=console, observers=[saver], advisor=coach)
        else:
            game = Game(make_players(args.players, args.names, variant), variant=variant,
                        console=console, seed=args.seed, advisor=coach, observers=[saver])
        for player in game.players:
            if isinstance(player, ComputerPlayer):
                player.prepare()
    except StrategyUnavailableError as error:
        console.error(str(error))
        return 1
    except KeyboardInterrupt:
        console.say()
        console.stopped_before_start(resumed is not None)
        return 130
    try:
        game.play_game()
        if coach is not None:
            console.analysis(coach.analyze([p.name for p in game.players], game.progress.log),
                             variant)
    except EOFError:
        console.interrupted(resume_hint(saver))
        return 0
    except KeyboardInterrupt:
        console.say()
        console.interrupted(resume_hint(saver))
        return 130
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line ``argv`` (default: the process's); return the exit status."""
    try:
        return _dispatch(argv)
    except BrokenPipeError:
        # The reader of our output went away (``| head``): stop quietly.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


def _dispatch(argv: Sequence[str] | None) -> int:
    """Parse ``argv`` and run the subcommand it names."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    if args_list and not args_list[0].startswith("-") and args_list[0] not in COMMANDS:
        parser.error(f"unknown command {args_list[0]!r} (commands: {', '.join(COMMANDS)}; "
                     "with no command, a game is played)")
    overview = ("-h", "--help") if program_name() == "python -m yahtzee" else ()
    if not args_list or args_list[0] not in COMMANDS + overview:
        args_list.insert(0, "play")
    args = parser.parse_args(args_list)
    try:
        return _run(args)
    except ModuleNotFoundError as error:
        if error.name != "numpy":
            raise
        Console().error(NUMPY_NEEDED)
        return 1
    except StrategyUnavailableError as error:
        Console().error(str(error))
        return 1
    except KeyboardInterrupt:
        # A play command handles Ctrl-C itself; any other command just stops.
        Console().error("stopped")
        return 130


def _run(args: argparse.Namespace) -> int:
    """Run the parsed command."""
    if args.command == "solve":
        from yahtzee.solver import commands
        return commands.run_solve(args.rules, args.json, sys.stdout)
    if args.command == "saves":
        return run_saves(Console())
    if args.command == "stats":
        return run_stats(Console(), args.json)
    if args.command == "analyze":
        from yahtzee.coach import run_analyze
        return run_analyze(args.game_id, args.json, Console())
    if args.command == "simulate":
        from yahtzee.solver import commands
        return commands.run_simulate(args.rules, args.strategy, args.games, args.seed,
                                     args.json, sys.stdout)
    return run_play(args)
