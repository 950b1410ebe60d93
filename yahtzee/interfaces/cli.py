"""The command line: its parser, and ``main``, which runs the subcommand it names.

``python game_driver.py [options]`` and ``python -m yahtzee [play] [options]``
both come here.  ``play`` is the default subcommand: its options are also
the top-level parser's, so a game starts with no command at all, and with
no options at once (the course's two-human game).  argparse checks every
option; ``yahtzee.interfaces.commands`` holds what each subcommand does.
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import re
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from yahtzee.app.session import LATEST
from yahtzee.domain.games import GAMES, YAHTZEE
from yahtzee.domain.rules import COURSE, RULES
from yahtzee.engine.engine import MAX_NAME, MAX_PLAYERS, MAX_SEED
from yahtzee.engine.moves import Notation, whole_number
from yahtzee.interfaces.commands import COMMANDS, DEFAULT_DELAY, run
from yahtzee.interfaces.console import Console
from yahtzee.interfaces.reporting import fit_error
from yahtzee.interfaces.streams import prepare_streams, quoted
from yahtzee.players.kinds import (COMPUTER, EXPECTED, KINDS, SOLO_NAMES, SOLO_STRATEGIES,
                                   PlayerKind, find_kind)


class CommandParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` that reads no abbreviation of an option and whose errors fit 80
    columns, for itself and each subcommand's parser (``add_subparsers`` makes those of the
    same class).

    argparse would read ``duel --game poker-dice`` as ``--games poker-dice``
    (duel has no ``--game``) and refuse it as no number; whole names only.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """Make the parser as ``ArgumentParser`` does, ``allow_abbrev`` off unless given."""
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    given: Sequence[str] = ()
    """The command line being read (``parse_command_line``), for ``error`` to look at."""

    def error(self, message: str) -> NoReturn:
        """Print the usage and ``message`` to standard error, each line within
        ``ERROR_WIDTH`` columns, and exit with status 2.

        Before the command, ``--gam poker-dice`` leaves argparse taking
        ``poker-dice`` for the command, refused as none: the option it
        does not know is named instead, with its value, as after a command.
        """
        found = _INVALID_COMMAND.fullmatch(message)
        if found is not None:
            for before, value in zip(self.given, self.given[1:]):
                if (value == found.group(1) and _OPTION.fullmatch(before)
                        and before not in self._option_string_actions):
                    message = f"unrecognized arguments: {before} {value}"
                    break
        self.print_usage(sys.stderr)
        self.exit(2, fit_error(f"{self.prog}: error: {message}") + "\n")


_INVALID_COMMAND = re.compile(r"argument COMMAND: invalid choice: '(.*?)' \(.*", re.DOTALL)
"""argparse's refusal of a command that is none (the command's name in the group)."""
_OPTION = re.compile(r"--?[A-Za-z][\w-]*")
"""An option's name as typed, not a negative number such as ``-3``."""


if TYPE_CHECKING:
    SubParsers = argparse._SubParsersAction[CommandParser]
else:  # not subscriptable when the program runs
    SubParsers = argparse._SubParsersAction


class Commands(SubParsers):
    """The subcommands, which refuse an option of ``play`` written before a command other
    than ``play``.

    Before the command, an option is the top-level parser's, which are
    play's (a game starts with no command); ``--seed 3 stats`` or
    ``--database URL stats`` would otherwise be dropped without a word.
    """

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: str | Sequence[Any] | None, option_string: str | None = None) -> None:
        """Refuse play's options given before the command ``values[0]``, then parse the rest."""
        command = values[0] if values else ""
        if command != "play" and command in self.choices:
            given = [action.option_strings[-1] for action in parser._actions
                     if action.dest in PLAY_DEFAULTS and hasattr(namespace, action.dest)]
            if given:
                self.choices[command].error(misplaced(given, command, self.choices[command]))
        super().__call__(parser, namespace, values, option_string)


def misplaced(options: Sequence[str], command: str, parser: argparse.ArgumentParser) -> str:
    """Return the refusal of play's ``options`` written before ``command`` (whose parser is
    ``parser``): those ``command`` has not are named first, as play's."""
    known = {option for action in parser._actions for option in action.option_strings}
    foreign = [option for option in options if option not in known]
    if foreign:
        are = "is an option" if len(foreign) == 1 else "are options"
        return f"{', '.join(foreign)} {are} of play, not of {command}"
    return f"write {', '.join(options)} after {command}: options before a command are play's"


def _player_kinds(text: str) -> list[PlayerKind]:
    """Parse ``--players``: a comma list of 1 to 6 player kinds."""
    kinds = []
    for part in text.split(","):
        kind = find_kind(part.strip().lower())
        if kind is None:
            raise argparse.ArgumentTypeError(
                f"{quoted(part.strip().lower())} is not a player kind "
                f"(choose from {', '.join(k.name for k in KINDS)})")
        kinds.append(kind)
    if not 1 <= len(kinds) <= MAX_PLAYERS:
        raise argparse.ArgumentTypeError(f"a game has 1 to {MAX_PLAYERS} players, not {len(kinds)}")
    return kinds


def _computer_kinds(text: str) -> list[PlayerKind]:
    """Parse ``duel``'s ``--players``: a comma list of 2 to 6 computer kinds."""
    kinds = _player_kinds(text)
    people = [k.name for k in kinds if not k.is_computer]
    if people:
        computers = ", ".join(k.name for k in KINDS if k.is_computer)
        raise argparse.ArgumentTypeError(
            f"a duel is played by computers only (choose from {computers})")
    if len(kinds) < 2:
        raise argparse.ArgumentTypeError("a duel needs 2 to 6 players")
    return kinds


def _names(text: str) -> list[str]:
    """Parse ``--names``: a comma list of non-empty, printable player names of ``MAX_NAME`` at most.

    A control character (a newline, a terminal escape code) would break the
    screen and the listings, so it is refused rather than printed.
    """
    names = [part.strip() for part in text.split(",")]
    if not all(names):
        raise argparse.ArgumentTypeError("player names cannot be empty")
    for name in names:
        if not name.isprintable():
            raise argparse.ArgumentTypeError(
                f"{quoted(name)} holds a control character; names must be plain text")
        if len(name) > MAX_NAME:
            raise argparse.ArgumentTypeError(
                f"{quoted(name)} is longer than {MAX_NAME} characters")
    return names


MAX_DELAY = 5.0
"""The longest pause, in seconds, ``--delay`` accepts."""
MAX_GAMES = 1_000_000
"""The most games ``simulate`` plays in one run."""


def _seconds(text: str) -> float:
    """Parse ``--delay``: a number of seconds from 0 to ``MAX_DELAY``."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= MAX_DELAY:
        raise argparse.ArgumentTypeError(
            f"{quoted(text)} is not a number of seconds from 0 to {MAX_DELAY:g}")
    return value


def _seed(text: str) -> int:
    """Parse a seed, the same for every command: a whole number from 0 to ``MAX_SEED``."""
    seed = whole_number(text)
    if seed is None or seed > MAX_SEED:
        raise argparse.ArgumentTypeError(
            f"{quoted(text)} is not a seed (a whole number from 0 to {MAX_SEED})")
    return seed


def _positive(text: str) -> int:
    """Parse ``--games``: a whole number from 1 to ``MAX_GAMES``."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{quoted(text)} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{quoted(text)} is less than 1")
    if value > MAX_GAMES:
        raise argparse.ArgumentTypeError(f"{quoted(text)} is more than {MAX_GAMES}")
    return value


def _notation(text: str) -> Notation:
    """Parse ``--keep-by``: ``positions`` or ``faces``."""
    try:
        return Notation(text.strip().lower())
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{quoted(text)}: choose positions or faces") from None


def program_name() -> str:
    """Return how the user started the program: ``game_driver.py`` or ``python -m yahtzee``."""
    started = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    if started in ("", "__main__.py", "-c"):
        return "python -m yahtzee"
    return started


PLAY_DEFAULTS: dict[str, object] = {
    "players": None, "names": None, "rules": None, "game": YAHTZEE, "seed": None,
    "coach": False, "resume": None, "delay": None, "keep_by": None,
    "database": None}
"""What each option of ``play`` is when it is not given, by its ``dest``."""


def _play_options(parser: argparse.ArgumentParser) -> None:
    """Add the options of ``play`` to ``parser`` (the top-level one, or ``play``'s own).

    Neither holds a default (``argparse.SUPPRESS``): an option given before
    the word ``play`` counts as one given after it, an option given before
    any other command is refused (``Commands``), and ``parse_command_line``
    puts ``PLAY_DEFAULTS`` in place of the options left out.
    """
    unset = argparse.SUPPRESS
    parser.add_argument("--players", type=_player_kinds, default=unset, metavar="KINDS",
                        help="comma list of 1-6 players: human, computer (plays to win), "
                             "expected, also called optimal (plays for the highest expected "
                             "score), skilled, casual, novice (play like people, about 10, 25 "
                             "and 45 points a game below the best), greedy (default: "
                             "human,human)")
    parser.add_argument("--names", type=_names, default=unset, metavar="NAMES",
                        help="comma list of player names, in seating order, each of "
                             f"{MAX_NAME} characters at most")
    parser.add_argument("--rules", choices=sorted(RULES), default=unset,
                        help=f"Yahtzee rule set (default: {COURSE.name})")
    parser.add_argument("--game", choices=GAMES, default=unset,
                        help=f"which dice game (default: {YAHTZEE})")
    parser.add_argument("--seed", type=_seed, default=unset, metavar="N",
                        help="seed the dice: same seed, same dice")
    parser.add_argument("--coach", action="store_true", default=unset,
                        help="advise each human decision and analyze the game at its end")
    parser.add_argument("--resume", nargs="?", const=LATEST, default=unset, metavar="ID",
                        help="continue the most recent unfinished game, or the game ID "
                             "('saves' lists them)")
    parser.add_argument("--delay", type=_seconds, default=unset, metavar="SECONDS",
                        help=f"pause before each line of a computer's turn, 0 to {MAX_DELAY:g} "
                             f"(default: {DEFAULT_DELAY} on a terminal, 0 otherwise)")
    parser.add_argument("--keep-by", type=_notation, default=unset, metavar="positions|faces",
                        help="how to say which dice to keep: 'positions' toggles a die by its "
                             "number, then 'roll' (the specification's, the default); 'faces' "
                             "types the faces to keep, e.g. 336, and rolls the rest (a resumed "
                             "game keeps its saved setting unless this is given)")
    _database_option(parser, default=unset)


DATABASE_HELP = ("the PostgreSQL database keeping the saves and the history, as a URL "
                 "postgresql://user:password@host:port/name (default: $YAHTZEE_DATABASE; "
                 "without it, the files of the data folder)")


def _database_option(parser: argparse.ArgumentParser, *, default: object = None) -> None:
    """Add ``--database URL`` to ``parser``."""
    parser.add_argument("--database", default=default, metavar="URL", help=DATABASE_HELP)


EXIT_STATUSES = ("Exit status: 0 when done (a listing may be empty); 1 when there is no game "
                 "to work on (no finished game to analyze, no unfinished game to resume or "
                 "delete) or something failed; 2 for a wrong command line (an option or value "
                 "refused, an ID of none of the games there are); 130 when stopped by Ctrl-C.")
"""The exit statuses of every command, as ``--help`` ends with them."""


def build_parser() -> CommandParser:
    """Return the parser of the whole command line."""
    prog = program_name()
    others = [name for name in COMMANDS if name != "play"]
    parser = CommandParser(
        prog=prog,
        usage=(f"{prog} [options]           (plays a game)\n"
               f"       {prog} COMMAND [options]   (--help lists the commands)"),
        description="Yahtzee in the terminal, with an exact optimal computer opponent. "
                    "With no command, plays a game (the options below are play's).",
        epilog=EXIT_STATUSES)
    _play_options(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", prog=prog, action=Commands)
    play = sub.add_parser(
        "play", help="play a game (the default command)",
        description="Play a game. With no options: the course's two-human Yahtzee game. "
                    f"Other commands: {', '.join(others)}; each takes --help.")
    _play_options(play)

    rules_help = f"Yahtzee rule set (default: {COURSE.name})"
    game_help = f"which dice game (default: {YAHTZEE})"
    solve = sub.add_parser(
        "solve", help="print the optimal expected score of solitaire play",
        description="Solve the game exactly and print the expected final score of optimal "
                    "solitaire play (the table is built once, then cached).")
    solve.add_argument("--rules", choices=sorted(RULES), default=None, help=rules_help)
    solve.add_argument("--game", choices=GAMES, default=YAHTZEE, help=game_help)
    solve.add_argument("--json", action="store_true",
                       help='print {"game", "rules", "expected_score", "seconds"}')

    simulate = sub.add_parser(
        "simulate", help="play many solitaire games with a strategy",
        description="Play many solitaire games at once and report the mean, standard "
                    "deviation, lowest and highest score and a histogram.")
    simulate.add_argument("--rules", choices=sorted(RULES), default=None, help=rules_help)
    simulate.add_argument("--game", choices=GAMES, default=YAHTZEE, help=game_help)
    simulate.add_argument("--strategy", choices=SOLO_NAMES, default=SOLO_STRATEGIES[0],
                          metavar="KIND",
                          help="how the games are played: a strategy or any computer kind, "
                               f"one of {', '.join(SOLO_NAMES)} (default: {SOLO_STRATEGIES[0]})")
    simulate.add_argument("--games", type=_positive, default=1000, metavar="N",
                          help=f"how many games, 1 to {MAX_GAMES} (default: 1000)")
    simulate.add_argument("--seed", type=_seed, metavar="S",
                          help="seed the dice: same seed, same result (default: a new seed, "
                               "printed with the result)")
    simulate.add_argument("--json", action="store_true", help="print JSON")

    duel = sub.add_parser(
        "duel", help="play many games between computer players and count the wins",
        description="Play many games between computer players, seats rotating from game to "
                    "game, and report each player's wins (a tie counts as a share) and how "
                    "honest the win chances were: at every turn's start, the predicted chance "
                    "of the player to roll against how such games ended, per tenth.")
    duel.add_argument("--players", type=_computer_kinds, default=None, metavar="KINDS",
                      help="comma list of 2-6 computer kinds "
                           f"(default: {COMPUTER.name},{EXPECTED.name})")
    duel.add_argument("--rules", choices=sorted(RULES), default=None, help=rules_help)
    duel.add_argument("--games", type=_positive, default=1000, metavar="N",
                      help=f"how many games, 1 to {MAX_GAMES} (default: 1000)")
    duel.add_argument("--seed", type=_seed, metavar="S",
                      help="seed the dice: same seed, same result (default: a new seed, "
                           "printed with the result)")
    duel.add_argument("--json", action="store_true",
                      help='print {"rules", "players", "games", "seed", "wins", "win_rate", '
                           '"seconds", "calibration", ...}')

    saves = sub.add_parser(
        "saves", help="list the unfinished games (to resume or delete)",
        description="List the unfinished games with their save IDs: play one on with "
                    "--resume and its ID, or delete games you will not finish.")
    saves_mode = saves.add_mutually_exclusive_group()
    saves_mode.add_argument("--json", action="store_true", help="print the list as JSON")
    saves_mode.add_argument("--delete", nargs="+", metavar="ID",
                            help="delete these unfinished games, or 'all' of them, without "
                                 "asking (a game open in another window is kept)")
    _database_option(saves)
    stats = sub.add_parser("stats", help="statistics of the finished games",
                           description="Games played, wins, best, mean and a histogram of the "
                                       "scores, per player name and per computer strength.")
    stats.add_argument("--json", action="store_true", help="print JSON")
    _database_option(stats)
    analyze = sub.add_parser(
        "analyze", help="judge a finished game's decisions against optimal play",
        description="Judge every decision of every player of a finished game against "
                    "optimal play: each player's expected points lost, a turn's average, "
                    "and the three costliest decisions with the better move, and a chart "
                    "of the win chances; or write the whole review as one HTML page.")
    analyze.add_argument("game_id", nargs="?", metavar="GAME_ID",
                         help="the finished game's number, or a browser game's ID as its "
                              "review's address has it (default: the latest)")
    views = analyze.add_mutually_exclusive_group()
    views.add_argument("--json", action="store_true", help="print JSON")
    views.add_argument("--html", metavar="FILE",
                       help="write the review (charts, a row per turn) as one HTML file "
                            "that opens without a server")
    _database_option(analyze)

    advise = sub.add_parser(
        "advise", help="advice for a game played with real dice",
        description="A companion for real dice: type the dice you roll and get the best "
                    "move and the next two, with their expected final scores; your card is "
                    "kept through the game. With --json, answer one roll given by --dice "
                    "(and --roll, --card) and stop.")
    advise.add_argument("--rules", choices=sorted(RULES), default=None, help=rules_help)
    advise.add_argument("--game", choices=GAMES, default=YAHTZEE, help=game_help)
    advise.add_argument("--card", metavar="BOXES",
                        help='the card so far, such as "ones=3,fives=15,yahtzee=50,bonus=1" '
                             "(box names or numbers; bonus: Yahtzee bonuses taken)")
    advise.add_argument("--opponents", metavar="TOTALS",
                        help="the other players' final totals, such as 120,95 (taken as "
                             "final: chances to win are too high while they still play)")
    advise.add_argument("--json", action="store_true",
                        help="answer the roll of --dice in JSON and stop")
    advise.add_argument("--dice", metavar="DICE", help='with --json: the dice, such as "5 5 2 1 6"')
    advise.add_argument("--roll", metavar="N",
                        help="with --json: which roll the dice are, 1-3 (default: 1)")
    _serve_options(sub)
    return parser


def _bounded(low: int, high: int) -> Callable[[str], int]:
    """Return a parser of a whole number from ``low`` to ``high``."""
    def parse(text: str) -> int:
        """Parse a whole number from ``low`` to ``high``."""
        value = whole_number(text)
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(
                f"{quoted(text)} is not a whole number from {low} to {high}")
        return value
    return parse


_LABEL = r"[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?"
HOST_NAME = re.compile(rf"(?=.{{1,253}}$){_LABEL}(?:\.{_LABEL})*\.?", re.IGNORECASE)
"""A host name: dot-separated labels of letters, digits, underscores and inner hyphens."""


def _address(text: str) -> str:
    """Parse ``--proxy``: an IP address (a name or a port would never match a client's address)."""
    try:
        return str(ipaddress.ip_address(text.strip().strip("[]")))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{quoted(text)} is not an IP address (the proxy's own address, "
            "e.g. 127.0.0.1)") from None


def _host(text: str) -> str:
    """Parse ``--allowed-host``: a host name or an IP address, without scheme or port.

    The server compares it with the name in each request's ``Host`` header,
    port left out; ``example.org:8000`` or ``https://example.org`` would
    match no request at all, so they are refused here rather than silently.
    """
    name = text.strip()
    try:
        return str(ipaddress.ip_address(name.strip("[]")))
    except ValueError:
        if HOST_NAME.fullmatch(name):
            return name.lower().rstrip(".")
    raise argparse.ArgumentTypeError(
        f"{quoted(text)} is not a host name (a name such as table.example.org, or an "
        "address; without scheme or port)")


def _listen_host(text: str) -> str:
    """Parse ``--host``: not empty (an empty address would listen on every one)."""
    if not text.strip():
        raise argparse.ArgumentTypeError(
            "'' is not an address to listen on (127.0.0.1: this computer; 0.0.0.0: the network)")
    return text.strip()


GAMES_KEPT = ("They are kept in the data folder: $YAHTZEE_DATA_DIR when set, otherwise the "
              "per-user data folder (~/.local/share/yahtzee on Linux); with --database or "
              "$YAHTZEE_DATABASE, in that PostgreSQL database instead.")
"""Where ``serve``'s games are kept, as its help says it (and docs/saves-and-history.md)."""


def _serve_options(sub: argparse._SubParsersAction[CommandParser]) -> None:
    """Add ``serve``, the browser table, to the subcommands."""
    serve = sub.add_parser(
        "serve", help="serve the browser table (needs the web extra)",
        description="Serve Yahtzee in the browser: open the address it prints. Games are "
                    "saved like console games and go on after a restart of the server. "
                    f"{GAMES_KEPT}")
    serve.add_argument("--host", default="127.0.0.1", type=_listen_host,
                       help="the address to listen on (default: 127.0.0.1, this computer only; "
                            "0.0.0.0 lets the network in)")
    serve.add_argument("--port", type=_bounded(0, 65535), default=8000,
                       help="the port (default: 8000; 0 takes any free one)")
    serve.add_argument("--delay", type=_seconds, default=0.5, metavar="SECONDS",
                       help="pause between a computer's moves, 0 to 5 (default: 0.5)")
    serve.add_argument("--max-games", type=_bounded(1, 10_000), default=200, metavar="N",
                       help="the most games kept live at once (default: 200)")
    serve.add_argument("--allowed-host", action="append", default=[], metavar="NAME", type=_host,
                       dest="allowed_hosts",
                       help="a host name the server answers to besides its address (its "
                            "name on the network, or behind a proxy); may be repeated")
    serve.add_argument("--proxy", metavar="ADDRESS", default=None, type=_address,
                       help="the address of a reverse proxy (TLS) in front of the server: "
                            "its X-Forwarded-For and X-Forwarded-Proto are believed, "
                            "nobody else's")
    serve.add_argument("--workers", type=_bounded(1, 64), default=1, metavar="N",
                       help="serve with N processes behind the one address (needs --database: "
                            "they share its games; default: 1)")
    _database_option(serve)


def play_problem(args: argparse.Namespace) -> str | None:
    """Return what is wrong with a combination of options, or None.

    Each option alone is checked by argparse; these are the checks across
    options: names for ``play`` (one per player, all different), and
    ``--rules`` only for Yahtzee.  A resumed game keeps its own settings and
    ignores these options (with a notice), so they are not checked with it.
    """
    command = args.command or "play"
    if command not in ("play", "solve", "simulate", "advise"):
        return None
    if command == "play" and args.resume is not None:
        return None
    if args.game != YAHTZEE and args.rules is not None:
        return "--rules chooses Yahtzee rules; Poker Dice has one rule set"
    if command != "play":
        return None
    players = args.players or [None, None]
    if args.names and len(args.names) != len(players):
        noun = "name" if len(args.names) == 1 else "names"
        return f"{len(args.names)} {noun} given for {len(players)} players"
    if args.names and len(set(args.names)) != len(args.names):
        return "player names must differ"
    return None


def parse_command_line(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Return the options of ``argv``, as ``ArgumentParser.parse_args`` does, with
    ``PLAY_DEFAULTS`` for the options of ``play`` not given.

    An option the command does not know is refused with that command's own
    usage (``analyze --bogus`` shows how ``analyze`` is typed), where argparse
    would show the top-level one; as there, the process exits with status 2.
    """
    parser = build_parser()
    parser.given = list(argv if argv is not None else sys.argv[1:])
    args, unknown = parser.parse_known_args(argv)
    for dest, value in PLAY_DEFAULTS.items():
        if not hasattr(args, dest):
            setattr(args, dest, value)
    if unknown:
        commands = next(action for action in parser._actions
                        if isinstance(action, argparse._SubParsersAction))
        refusing = commands.choices.get(args.command, parser) if args.command else parser
        refusing.error(f"unrecognized arguments: {' '.join(unknown)}")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line ``argv`` (default: the process's); return the exit status."""
    if not prepare_streams():
        Console().error("standard output is closed: there is nowhere to show anything")
        return 2
    try:
        args = parse_command_line(argv)
        problem = play_problem(args)
        if problem is not None:
            Console().refuse(problem)
            return 2
        return run(args)
    except BrokenPipeError:
        # The reader of our output went away (``| head``): stop quietly.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
