"""A finished game's review as HTML with inline SVG charts: one file that needs no server or script.

``review_document`` renders a ``Review`` (``yahtzee.interfaces.review``) as
a whole page: the win-chance chart (one line per player, the turns that
moved a chance most marked, the lines' start and end values in words), each
player's ``final = optimum + luck - decisions`` as a small bar chart with the
biggest mistakes and the luckiest and unluckiest rolls in plain words, and a
row per turn and player.  A game of one player has no win chances, so its
review leaves out the chart and the table's column of them.  ``analyze
--html`` writes it with its style sheet inline; the browser table serves it
with the style sheet as a file, since its content security policy refuses
inline styles.  Nothing here runs a script or fetches anything; every text
from a player is escaped.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from yahtzee.interfaces.review import (Review, Swing, TurnRow, better_moves, mistake_words,
                                       roll_words, swing_words)
from yahtzee.interfaces.wording import (cost_text, faces, game_name_and_rules, local_time,
                                        luck_line, luck_tenths, name_and_kind)
from yahtzee.players.kinds import COMPUTER
from yahtzee.solver.coach import PlayerAnalysis
from yahtzee.storage.stats import Bucket

COLOURS = ("#0b5fa5", "#b33c00", "#1b7a4c", "#8e3b8a", "#6e5600", "#3d3d9e")
"""Each seat's line colour: dark enough to stand out against white (3:1 at least)."""
DASHES = ("", "7 3", "2 3", "9 3 2 3", "4 4", "1 3")
"""Each seat's line pattern, so that lines differ without colour too."""
WIDTH, HEIGHT = 360, 230
"""The win-chance chart's drawing size (it scales to the page's width)."""
LEFT, RIGHT, TOP, BOTTOM = 46, 16, 14, 44
"""The chart's margins, for the axes' ticks and titles."""
INK, MUTED, GRID = "#1d2433", "#4b5563", "#d8dde3"
"""Text, secondary text and grid line colours."""

REVIEW_CSS = """\
:root { --ink: #1d2433; --paper: #fbfaf6; --felt: #1f6f4a; --muted: #4b5563; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.45 system-ui, sans-serif; color: var(--ink);
       background: var(--paper); }
header { background: var(--felt); color: white; padding: .3rem 1rem; display: flex;
         flex-wrap: wrap; align-items: baseline; gap: 0 1rem; min-height: 2.4rem; }
header .brand { margin: 0; font-size: 1.25rem; font-weight: bold; }
nav { display: flex; flex-wrap: wrap; gap: 0 1rem; }
header a { color: white; text-decoration: none; display: inline-block; padding: .3rem 0;
           margin: -.3rem 0; }
header a:hover { text-decoration: underline; }
header a:focus-visible { outline: 3px solid white; outline-offset: 2px; }
main { max-width: 76rem; margin: 0 auto; padding: .75rem; }
h1 { font-size: 1.25rem; margin: .3rem 0 .5rem; }
main p, main > ul, main > ol, .legend { max-width: 48rem; }  /* lines short enough to read */
h2 { font-size: 1.15rem; margin: 1.2rem 0 .4rem; }
h3 { font-size: 1rem; margin: .8rem 0 .3rem; }
a { color: #0b5fa5; }
figure { margin: 0; }
.chart { width: 100%; max-width: 36rem; height: auto; display: block; background: white;
         border: 1px solid #ddd; border-radius: .4rem; }
.chart.small { max-width: 28rem; }
.chart.bar { max-width: 24rem; border: 0; }
figcaption, .note { color: var(--muted); font-size: .9rem; }
.legend { list-style: none; padding: 0; margin: .4rem 0; }
.legend li { margin: .15rem 0; }
.legend svg { width: 2.2rem; height: .8rem; vertical-align: middle; margin-right: .3rem; }
.players { display: grid; grid-template-columns: repeat(auto-fit, minmax(18rem, 1fr));
           gap: .75rem; }
.histograms { grid-template-columns: repeat(auto-fill, minmax(min(26rem, 100%), 1fr));
              margin: .6rem 0; }   /* two a row on a laptop: the charts' words readable */
figure + .scroll { margin-top: .6rem; }
.player { background: white; border: 1px solid #ddd; border-radius: .4rem; padding: .4rem .75rem; }
.player ul { padding-left: 1.1rem; margin: .3rem 0; }
.scroll { overflow-x: auto; background: white; border: 1px solid #ddd; border-radius: .4rem; }
.scroll:focus-visible { outline: 3px solid #f2c14e; }
table { border-collapse: collapse; width: 100%; font-size: .9rem; }
caption { text-align: left; padding: .3rem .5rem; color: var(--muted); }
th, td { padding: .25rem .45rem; border-bottom: 1px solid #eee; text-align: left;
         vertical-align: top; }
td.num, th.num { text-align: right; white-space: nowrap; }
td.box, table.turns th[scope="row"], span.roll { white-space: nowrap; }
table.turns td.rolls { white-space: nowrap; }  /* a turn's rolls on one line, in order */
tr.costly td, tr.costly th { background: #fdf0ec; }
table.turns { min-width: 62rem; }
td.better { min-width: 18rem; }
table.narrow { width: auto; }
.scroll:has(> table.narrow) { width: fit-content; max-width: 100%; }
.chart.square { max-width: 18rem; }
.won { font-weight: 700; color: var(--felt); }
form.filters { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: end; }
form.filters label { display: flex; flex-direction: column; font-size: .9rem; }
input, select, button { font: inherit; padding: .35rem .5rem; min-height: 2.4rem; }
.pages { display: flex; gap: 1rem; margin: .6rem 0; }
.games { list-style: none; padding: 0; }
.games li { background: white; border: 1px solid #ddd; border-radius: .4rem;
            padding: .4rem .75rem; margin: .4rem 0; }
/* A phone shows each row of a labelled table (every turn; the history's figures) as a card
   of labelled lines, not a table scrolled sideways. */
@media (max-width: 47.99rem) {
  table.labelled { min-width: 0; }
  table.labelled thead { display: none; }
  table.labelled caption { display: block; }
  table.labelled, table.labelled tbody { display: block; }
  table.labelled tr { display: grid; grid-template-columns: 1fr 1fr; gap: 0 .75rem;
                      padding: .35rem .5rem; border-bottom: 1px solid #ddd; }
  table.labelled td, table.labelled th { display: block; border: 0; padding: .05rem 0;
                                         text-align: left; min-width: 0; }
  table.labelled [data-label]::before { content: attr(data-label) ": "; color: var(--muted); }
  table.turns td.dice, table.turns td.box, table.turns td.better { grid-column: 1 / -1; }
  table.turns tr.costly { background: #fdf0ec; }
  .sideways { display: none; }
  table.figures tr { grid-template-columns: repeat(3, 1fr); }
  table.figures th, table.figures td.game { grid-column: 1 / -1; }
}
"""
"""The review's and history's style sheet (inline in a file, served as ``/review.css``)."""


def esc(value: object) -> str:
    """Return a value as HTML text, quotes escaped too (safe inside attributes)."""
    return html.escape(str(value), quote=True)


def signed(value: float) -> str:
    """Return points with their sign and a tenth: ``+12.3``, ``-4.0``; what rounds to nothing
    is ``0.0``, with no sign (neither gained nor lost)."""
    shown = round(value, 1) + 0.0
    return f"{shown:+.1f}".replace("-", "\u2212") if shown else "0.0"


def _x(place: float, rounds: int) -> float:
    """Return the chart's x for a place in time: rounds played before it (the end: ``rounds``)."""
    return LEFT + place * (WIDTH - LEFT - RIGHT) / max(rounds, 1)


def _y(chance: float) -> float:
    """Return the chart's y for a chance from 0 to 1."""
    return TOP + (1 - chance) * (HEIGHT - TOP - BOTTOM)


def _axes(rounds: int) -> list[str]:
    """Return the win-chart's grid, ticks and axis titles."""
    parts = []
    for percent in (0, 25, 50, 75, 100):
        y = _y(percent / 100)
        parts.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{WIDTH - RIGHT}" y2="{y:.1f}" '
                     f'stroke="{GRID}" stroke-width="1"/>')
        parts.append(f'<text x="{LEFT - 5}" y="{y + 4:.1f}" text-anchor="end" font-size="11" '
                     f'fill="{INK}">{percent}%</text>')
    base = _y(0)
    for index in range(rounds + 1):
        label = str(index + 1) if index < rounds else "end"
        parts.append(f'<text x="{_x(index, rounds):.1f}" y="{base + 15:.1f}" '
                     f'text-anchor="middle" font-size="11" fill="{INK}">{label}</text>')
    parts.append(f'<line x1="{LEFT}" y1="{base:.1f}" x2="{WIDTH - RIGHT}" y2="{base:.1f}" '
                 f'stroke="{INK}" stroke-width="1"/>')
    parts.append(f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{base:.1f}" '
                 f'stroke="{INK}" stroke-width="1"/>')
    parts.append(f'<text x="{(LEFT + WIDTH - RIGHT) / 2:.1f}" y="{HEIGHT - 6}" '
                 f'text-anchor="middle" font-size="12" fill="{INK}">Round</text>')
    parts.append(f'<text transform="translate(12 {(TOP + base) / 2:.1f}) rotate(-90)" '
                 f'text-anchor="middle" font-size="12" fill="{INK}">Chance to win</text>')
    return parts


def _stroke(seat: int) -> str:
    """Return the SVG stroke attributes of a seat's line."""
    dash = DASHES[seat % len(DASHES)]
    pattern = f' stroke-dasharray="{dash}"' if dash else ""
    return f'stroke="{COLOURS[seat % len(COLOURS)]}" stroke-width="2.5"{pattern}'


def _swing_marks(review: Review, swings: Sequence[Swing], rounds: int) -> list[str]:
    """Return a numbered ring on each marked turn's line, halfway through the turn.

    Halfway between the turn's start and the next turn's, on the line's
    segment that the turn drew, so that it lies inside the turn the list
    names: at the next turn's start, the ring of a round's last turn would
    stand on the next round's tick.
    """
    parts = []
    for number, swing in enumerate(swings, 1):
        start, end = review.turn_place(swing.turn), review.turn_place(swing.turn + 1)
        x, y = _x((start + end) / 2, rounds), _y((swing.before + swing.after) / 2)
        parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="7" fill="none" stroke="{INK}" '
                     f'stroke-width="1.5"/>')
        above = y - 10 if y > TOP + 14 else y + 20
        parts.append(f'<text x="{x:.1f}" y="{above:.1f}" text-anchor="middle" font-size="11" '
                     f'font-weight="700" fill="{INK}">{number}</text>')
    return parts


def line_summary(name: str, line: Sequence[float], rounds: int) -> str:
    """Return one line of the chart in words: its start and end values."""
    if not line:
        return f"{name}: no chances"
    last = line[-2] if len(line) > 1 else line[-1]
    end = "won" if line[-1] == 1 else ("lost" if line[-1] == 0 else "tied")
    return (f"{name}: {line[0] * 100:.0f}% before the game, {last * 100:.0f}% at the start "
            f"of round {rounds}, {end} ({line[-1] * 100:.0f}% of the win)")


def win_chart(review: Review) -> str:
    """Return the win-chance chart as an inline SVG in a figure, with its text alternative.

    One line per player through every turn's start and the end (the share
    of the win each got), the rounds' starts ticked on the x axis; the
    turns that moved a chance most are ringed and numbered, and told in
    words below.  A game of one player has no chart.
    """
    lines = review.chance_lines()
    if not any(lines):
        return '<p class="note">A game of one player has no win chances.</p>'
    points = max(len(line) for line in lines)
    rounds = points - 1
    names = review.names
    summaries = [line_summary(name, line, rounds) for name, line in zip(names, lines)]
    swings = review.swings()
    parts = [f'<svg data-testid="win-chart" class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" '
             'role="img" aria-labelledby="win-title win-desc" xmlns="http://www.w3.org/2000/svg">',
             '<title id="win-title">Each player\'s chance to win as every turn began</title>',
             f'<desc id="win-desc">{esc("; ".join(summaries))}</desc>', *_axes(rounds)]
    for seat, line in enumerate(review.turn_points()):
        coords = " ".join(f"{_x(place, rounds):.1f},{_y(v):.1f}" for place, v in line)
        parts.append(f'<polyline class="player-line" data-seat="{seat + 1}" points="{coords}" '
                     f'fill="none" {_stroke(seat)}/>')
    parts.extend(_swing_marks(review, swings, rounds))
    parts.append("</svg>")
    legend = "".join(
        f'<li><svg viewBox="0 0 36 10" aria-hidden="true"><line x1="0" y1="5" x2="36" y2="5" '
        f'{_stroke(seat)}/></svg>{esc(text)}</li>' for seat, text in enumerate(summaries))
    told = "".join(f"<li>{esc(swing_words(s, names))}</li>" for s in swings)
    moved = (f'<p class="note">The ringed turns moved a chance most:</p><ol>{told}</ol>'
             if swings else "")
    return (f'<figure>{"".join(parts)}<figcaption>Each player\'s chance to win as every '
            f'turn began, and at the end the share of the win each got.</figcaption>'
            f'<ul class="legend">{legend}</ul>{moved}</figure>')


def luck_bar(a: PlayerAnalysis, top: float) -> str:
    """Return a player's ``final = optimum + luck - decisions`` as a small waterfall of bars.

    ``top`` is the largest score on the shared scale of every player's bars.
    """
    start, scale = 76.0, 180.0 / max(top, 1.0)
    after_luck = a.optimum + a.luck
    luck = luck_tenths(a) / 10   # the luck line's figure, which adds up with the others shown
    bars = [("Expected", 0.0, a.optimum, "#7b8794", f"{a.optimum:.1f}"),
            ("Luck", min(a.optimum, after_luck), max(a.optimum, after_luck),
             "#1b7a4c" if luck >= 0 else "#a15c00", signed(luck)),
            ("Decisions", after_luck - a.total_cost, after_luck, "#b33c00",
             signed(-a.total_cost)),
            ("Final", 0.0, float(a.final), INK, str(a.final))]
    parts = [f'<svg class="chart bar" viewBox="0 0 300 {len(bars) * 24 + 6}" role="img" '
             f'aria-label="{esc(luck_line(a))}" xmlns="http://www.w3.org/2000/svg">']
    for row, (label, low, high, colour, shown) in enumerate(bars):
        y = 6 + row * 24
        x, width = start + max(low, 0.0) * scale, max((high - max(low, 0.0)) * scale, 1.5)
        parts.append(f'<text x="4" y="{y + 13}" font-size="12" fill="{INK}">{label}</text>')
        parts.append(f'<rect x="{x:.1f}" y="{y}" width="{width:.1f}" height="16" '
                     f'fill="{colour}"/>')
        parts.append(f'<text x="{min(x + width + 4, 262):.1f}" y="{y + 13}" font-size="12" '
                     f'fill="{INK}">{shown}</text>')
    parts.append("</svg>")
    return "".join(parts)


def player_section(review: Review, seat: int, top: float) -> str:
    """Return one player's part: the luck line, its bars and the game's story in words.

    The computer that plays to win gives up expected points on purpose when
    that raises its chance to win: against others, its list of mistakes
    says so, lest they be read as blunders.
    """
    a = review.analyses[seat]
    variant = review.variant
    items = [f"<li>{esc(mistake_words(m, variant))}</li>" for m in a.costliest()]
    traded = ""
    if not items:
        items = ["<li>Every decision was the best one there was.</li>"]
    elif plays_to_win(review, seat):
        traded = (f'<p class="note">{esc(a.name)} plays to win, not for the most points: it '
                  "gave up these points on purpose, for a better chance to win.</p>")
    ranked = review.rolls_ranked(seat)
    luck = ""
    if ranked:
        luck = (f'<p class="note">Luck of the dice:</p><ul>'
                f"<li>Luckiest roll: {esc(roll_words(ranked[0], variant))}.</li>"
                f"<li>Unluckiest roll: {esc(roll_words(ranked[-1], variant))}.</li></ul>")
    return (f'<section class="player" aria-label="{esc(a.name)}"><h3>{esc(a.name)}</h3>'
            f"<p>{esc(luck_line(a))}</p>{luck_bar(a, top)}"
            f'<p class="note">Optimal play expects {a.optimum:.1f} points from an empty card; '
            f"the dice gave {signed(luck_tenths(a) / 10)} against that, and the decisions gave up "
            f"{a.total_cost:.1f} expected points.</p>"
            f'<p class="note">Biggest mistakes:</p>{traded}<ul>{"".join(items)}</ul>{luck}'
            "</section>")


def _unbroken(dice: str) -> str:
    """Return one roll's or keep's faces as HTML that a line never breaks inside.

    A cell of several rolls may wrap between them (after an arrow or a
    slash: the joins put a no-break space before these) where the table is
    short of room, as a Poker Dice game's ``10`` faces make it, but never
    inside a roll.
    """
    return f'<span class="roll">{esc(dice)}</span>'


def plays_to_win(review: Review, seat: int) -> bool:
    """Whether ``seat`` is the computer that trades expected points for its chance to win
    (against others; alone it plays for points, as the optimal strategy).  Whether it did
    in this game is its analysis's ``costliest()``: a game may have needed no trade."""
    return versus(review) and review.game.players[seat].kind == COMPUTER.name


def versus(review: Review) -> bool:
    """Whether the game had two players or more: alone, a player has no chance to win."""
    return len(review.analyses) > 1


def _turn_cells(row: TurnRow, review: Review) -> str:
    """Return the cells of one turn's row after its round and player (no win chance alone)."""
    variant = review.variant
    shown = [faces(dice, variant) for dice in row.rolls]
    rolls = "\u00a0\u2192 ".join(_unbroken(text) for text in shown)
    keeps = "\u00a0/ ".join(_unbroken(faces(kept, variant) or "none")
                            for kept in row.keeps) or "\u2013"
    better = "; ".join(better_moves(row, variant)) or "\u2013"
    chance = "\u2013" if row.chance is None else f"{row.chance * 100:.0f}%"
    scored = ("\u2013" if not row.box else f"{row.box} ({row.points})" if not row.bonus
              else f"{row.box} ({row.points - row.bonus} + {row.bonus} Yahtzee bonus)")
    chance_cell = (f'<td class="num" data-label="Win %">{chance}</td>' if versus(review)
                   else "")
    # Yahtzee's rolls of one-character faces fit one line; Poker Dice's ("10 10 K 10 J") wrap
    # between two rolls, so that Cost and Luck stay in sight
    short = all(len(face) == 1 for text in shown for face in text.split())
    return (f'{chance_cell}<td class="dice{" rolls" if short else ""}" data-label="Rolls">'
            f'{rolls}</td>'
            f'<td class="dice" data-label="Kept">{keeps}</td>'
            f'<td class="box" data-label="Scored">{esc(scored)}</td>'
            f'<td class="better" data-label="Better move">{esc(better)}</td>'
            f'<td class="num" data-label="Cost">{cost_text(row.cost)}</td>'
            f'<td class="num" data-label="Luck">{signed(row.luck)}</td>')


def turn_table(review: Review) -> str:
    """Return the table of every turn, a row per turn and player in the order played.

    Each row's ``data-testid`` is ``turn-<round>-<seat>`` (seats from 1) and
    its ``data-cost`` and ``data-luck`` hold the turn's cost and luck to 6
    decimals: a player's rows add up to ``analyze --json``'s figures.
    """
    rows = sorted((row for seat_rows in review.rows for row in seat_rows),
                  key=lambda r: (r.round, r.seat))
    names = review.names
    costly = ' class="costly"'
    body = "".join(
        f'<tr data-testid="turn-{row.round}-{row.seat + 1}" data-cost="{row.cost:.6f}" '
        f'data-luck="{row.luck:.6f}"{costly if row.mistakes() else ""}>'
        f'<td class="num" data-label="Round">{row.round}</td>'
        f'<th scope="row">{esc(names[row.seat])}</th>'
        f"{_turn_cells(row, review)}</tr>" for row in rows)
    chance = (("Win %", ' class="num"'),) if versus(review) else ()
    head = "".join(f'<th scope="col"{c}>{t}</th>' for t, c in (
        ("Round", ' class="num"'), ("Player", ""), *chance, ("Rolls", ""),
        ("Kept", ""), ("Scored", ""), ("Better move", ""), ("Cost", ' class="num"'),
        ("Luck", ' class="num"')))
    told = "Win %: the chance to win as the turn began. " if versus(review) else ""
    traders = [names[seat] for seat in range(len(names))
               if plays_to_win(review, seat) and review.analyses[seat].costliest()]
    traded = (f"{' and '.join(traders)} gave up points on purpose, for a better chance to "
              "win. " if traders else "")
    return (f'<p class="note">{told}Kept: the dice saved for each re-roll (the first '
            're-roll\'s, then after a slash the second\'s). Cost: expected '
            'points given up against optimal play. Luck: points the rolls gave against what '
            f'was expected. {esc(traded)}<span class="sideways">The table scrolls sideways '
            "on a narrow screen.</span></p>"
            '<div class="scroll" tabindex="0" role="region" aria-label="Table of every turn">'
            '<table class="turns labelled"><caption>Every turn, in the order played</caption>'
            f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>")


def results_list(review: Review) -> str:
    """Return the players with their kinds and final scores, the winner marked (the winners
    of a tie marked "tie", as the game's last line calls it)."""
    items = []
    players = review.game.players
    badge = "tie" if sum(player.winner for player in players) > 1 else "winner"
    for player in players:
        won = f' <span class="won">{badge}</span>' if player.winner and len(players) > 1 else ""
        items.append(f"<li>{esc(name_and_kind(player.name, player.kind))}: "
                     f"{player.total}{won}</li>")
    return f'<ul>{"".join(items)}</ul>'


def game_heading(review: Review) -> str:
    """Return the game in words: ``Game 5: Yahtzee, official rules, finished 2026-11-25 14:02
    UTC`` (the zone said: the page may be read far from where it was written)."""
    game = review.game
    return (f"Game {game.game_id}: {game_name_and_rules(game.variant, game.rules)}, "
            f"finished {local_time(game.finished_at, zone=True)}")


def review_main(review: Review) -> str:
    """Return the review's content: results, the win chart, each player's story, every turn.

    A game of one player has no win chances: no chart, no column of them.
    """
    top = max(max(a.optimum, a.optimum + a.luck, a.final) for a in review.analyses) * 1.2
    players = "".join(player_section(review, seat, top) for seat in range(len(review.analyses)))
    recomputed = ("" if review.recorded or len(review.analyses) < 2 else
                  '<p class="note">These chances were worked out again from the moves; '
                  "the game was filed without them.</p>")
    chances = ('<section aria-labelledby="chances"><h2 id="chances">Win chances</h2>'
               f"{win_chart(review)}{recomputed}</section>" if versus(review) else "")
    return (f'<section aria-labelledby="results"><h2 id="results">Final scores</h2>'
            f"{results_list(review)}</section>"
            f"{chances}"
            f'<section aria-labelledby="scores"><h2 id="scores">How each score came about</h2>'
            f'<p class="note">final score = what optimal play expects + luck of the dice '
            f'\u2212 cost of the decisions</p><div class="players">{players}</div></section>'
            f'<section aria-labelledby="turns"><h2 id="turns">Every turn</h2>'
            f"{turn_table(review)}</section>")


def page(title: str, heading: str, content: str, *, stylesheet: str | None = None,
         links: Sequence[tuple[str, str]] = ()) -> str:
    """Return a whole HTML page: ``stylesheet`` is the style sheet's address, else it is inline.

    Its bar is the browser table's: the name (a link to the start page when
    there are ``links``; a file saved alone has none) and the links; the
    page's own ``heading`` is its ``h1``, under the bar.
    """
    style = (f'<link rel="stylesheet" href="{esc(stylesheet)}">' if stylesheet
             else f"<style>{REVIEW_CSS}</style>")
    anchors = "".join(f'<a href="{esc(href)}">{esc(text)}</a>' for href, text in links)
    brand = '<a href="/">Yahtzee</a>' if links else "Yahtzee"
    nav = f'<nav aria-label="Pages">{anchors}</nav>' if links else ""
    return ('<!doctype html><html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{esc(title)}</title>{style}</head><body>"
            f'<header><p class="brand">{brand}</p>{nav}</header>'
            f"<main><h1>{esc(heading)}</h1>{content}</main></body></html>\n")


def review_document(review: Review, *, stylesheet: str | None = None,
                    links: Sequence[tuple[str, str]] = ()) -> str:
    """Return the review as a whole page; without ``stylesheet`` it is one self-contained file."""
    heading = game_heading(review)
    return page(f"Review: {heading}", heading, review_main(review),
                stylesheet=stylesheet, links=links)


DASH = "\u2013"
"""The dash between a range's two ends (``30–39``)."""


def histogram_chart(buckets: Sequence[Bucket], label: str) -> str:
    """Return a score histogram as an inline SVG bar chart with labelled axes."""
    if not buckets:
        return ""
    width, height, left, bottom = 300, 150, 30, 36
    most = max(b.count for b in buckets)
    step = (width - left - 6) / len(buckets)
    ranges = step >= 44   # room under each bar for its range ("30-39"), else its lowest score
    parts = [f'<svg class="chart small" viewBox="0 0 {width} {height}" role="img" '
             f'aria-label="{esc(label)}" xmlns="http://www.w3.org/2000/svg">']
    for i, b in enumerate(buckets):
        bar = (height - bottom - 14) * b.count / most
        x = left + i * step
        parts.append(f'<rect x="{x + 1:.1f}" y="{height - bottom - bar:.1f}" '
                     f'width="{step - 2:.1f}" height="{bar:.1f}" fill="{COLOURS[0]}"/>')
        if b.count:
            parts.append(f'<text x="{x + step / 2:.1f}" y="{height - bottom - bar - 3:.1f}" '
                         f'text-anchor="middle" font-size="10" fill="{INK}">{b.count}</text>')
        parts.append(f'<text x="{x + step / 2:.1f}" y="{height - bottom + 12}" '
                     f'text-anchor="middle" font-size="9" fill="{INK}">'
                     f"{f'{b.low}{DASH}{b.high}' if ranges else b.low}</text>")
    parts.append(f'<line x1="{left}" y1="{height - bottom}" x2="{width - 6}" '
                 f'y2="{height - bottom}" stroke="{INK}"/>')
    parts.append(f'<text x="{(left + width) / 2:.0f}" y="{height - 6}" text-anchor="middle" '
                 f'font-size="11" fill="{INK}">{"Score" if ranges else "Score (from)"}</text>')
    parts.append(f'<text transform="translate(11 {(height - bottom) / 2:.0f}) rotate(-90)" '
                 f'text-anchor="middle" font-size="11" fill="{INK}">Games</text></svg>')
    return "".join(parts)


def calibration_chart(bins: Sequence[tuple[float, float, int]]) -> str:
    """Return predicted against observed win chances as an inline SVG, with the diagonal."""
    size, pad = 240, 40
    span = size - pad - 16   # room at the right for half of the label "100%" under its tick

    def at(chance: float) -> float:
        """Return the chart coordinate of a chance along either axis."""
        return pad + chance * span

    parts = [f'<svg class="chart square" viewBox="0 0 {size} {size}" role="img" '
             'aria-label="Predicted win chances against how often they came true" '
             'xmlns="http://www.w3.org/2000/svg">',
             f'<line x1="{at(0)}" y1="{size - at(0)}" x2="{at(1)}" y2="{size - at(1)}" '
             f'stroke="{GRID}" stroke-width="2"/>',
             f'<line x1="{pad}" y1="{size - pad}" x2="{size - 10}" y2="{size - pad}" '
             f'stroke="{INK}"/>',
             f'<line x1="{pad}" y1="10" x2="{pad}" y2="{size - pad}" stroke="{INK}"/>']
    for tick in (0, 0.5, 1):
        parts.append(f'<text x="{at(tick):.0f}" y="{size - pad + 13}" text-anchor="middle" '
                     f'font-size="10" fill="{INK}">{tick * 100:.0f}%</text>')
        parts.append(f'<text x="{pad - 4}" y="{size - at(tick) + 4:.0f}" text-anchor="end" '
                     f'font-size="10" fill="{INK}">{tick * 100:.0f}%</text>')
    points = " ".join(f"{at(p):.1f},{size - at(o):.1f}" for p, o, _ in bins)
    parts.append(f'<polyline points="{points}" fill="none" {_stroke(0)}/>')
    parts.extend(f'<circle cx="{at(p):.1f}" cy="{size - at(o):.1f}" r="3.5" '
                 f'fill="{COLOURS[0]}"/>' for p, o, _ in bins)
    parts.append(f'<text x="{(pad + size) / 2:.0f}" y="{size - 8}" text-anchor="middle" '
                 f'font-size="11" fill="{INK}">Predicted</text>')
    parts.append(f'<text transform="translate(11 {(size - pad) / 2:.0f}) rotate(-90)" '
                 f'text-anchor="middle" font-size="11" fill="{INK}">Observed</text></svg>')
    return "".join(parts)
