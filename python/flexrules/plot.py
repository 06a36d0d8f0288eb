"""Plots of balance runs (matplotlib, drawn off screen): the picture ``flexrules playout
--plot`` draws.

Panel 1: the rate of each outcome (each winner, the draws) with its Wilson 95% interval,
the game as given and each rules file compared side by side, in their own colours.
Panel 2, only when rules files are compared: a forest plot of each file's change of each
outcome's rate from the game as given, in percentage points, with its 95% interval
(Newcombe's) and a line at zero; a change whose interval leaves out zero is filled and
starred. The title names the game, the games, the seed and the agents.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Union

__all__ = ["plot"]

_FORMATS = {".svg": "svg", ".png": "png"}
# The game as given in a neutral grey, compared rules files in distinct colours
# (Okabe-Ito, readable by colour-blind readers and in greyscale print).
_BASE = "#4d4d4d"
_COLOURS = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#F0E442"]


def _configurations(result: Any) -> tuple:
    """The configurations (summaries, the game as given first) and the title's facts."""
    summary = getattr(result, "summary", result)
    if not isinstance(summary, dict):
        raise TypeError(
            "plot takes a flexrules.balance result (or the summary dict of "
            f"`flexrules playout --json`), not {type(result).__name__}"
        )
    if "configurations" in summary:
        configs = list(summary["configurations"])
    else:
        configs = [dict(summary, rules=None)]
    facts = {
        "game": getattr(result, "game", None),
        "seed": getattr(result, "seed", None),
        "agents": getattr(result, "agents", None),
    }
    if facts["agents"] is None and "agents" in configs[0]:
        facts["agents"] = configs[0]["agents"]
    return configs, facts


def _outcomes(configs: list) -> list:
    """Every outcome seen in any configuration: the winners (sorted by text), then draw."""
    winners = sorted({w for c in configs for w in c["wins"]})
    return [(w, f"winner {w}") for w in winners] + [(None, "draw")]


def _row(c: dict, outcome) -> tuple:
    if outcome is None:
        r = c["draws"]
    else:
        r = c["wins"].get(outcome, {"games": 0, "rate": 0.0, "ci95": [0.0, 0.0]})
    return r["rate"], r["ci95"][0], r["ci95"][1]


def _label(rules) -> str:
    return "as given" if rules is None else Path(rules).name


def _agents_text(agents) -> str:
    if agents is None:
        return "random play"
    if isinstance(agents, dict) and "players" in agents:
        players = ", ".join(f"{p} {a}" for p, a in agents["players"].items())
        others = agents.get("others", "random")
        return f"{players}, others {others}" if players else f"every player {others}"
    if isinstance(agents, dict):
        return ", ".join(f"{p} {a}" for p, a in agents.items())
    if isinstance(agents, str):
        return agents
    return ", ".join(str(a) for a in agents)


def plot(result: Any, path: Union[str, os.PathLike]) -> Path:
    """Draw a balance result into ``path``: SVG or PNG by its extension. Returns the path.

    ``result`` is what ``flexrules.balance`` returns, or the summary dict ``flexrules
    playout --json`` prints. A path ending otherwise raises ``ValueError``.
    """
    path = Path(path)
    fmt = _FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise ValueError(
            f"cannot draw into {str(path)!r}: the plot is written as SVG or PNG, by the "
            "file's extension (hint: end the name with .svg or .png)"
        )
    configs, facts = _configurations(result)
    try:
        import matplotlib

        matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt
        from matplotlib.figure import Figure
    except ImportError as e:
        raise ImportError(
            "flexrules.plot draws with matplotlib, which cannot be imported here "
            "(hint: pip install matplotlib)"
        ) from e
    del plt  # pyplot only sets the backend up; the figure is made without its state.

    outcomes = _outcomes(configs)
    compared = len(configs) > 1
    colours = [_BASE] + [_COLOURS[i % len(_COLOURS)] for i in range(len(configs) - 1)]
    with matplotlib.rc_context(
        {
            "font.size": 10,
            "axes.spines.top": False,
            "axes.spines.right": False,
            "axes.titlesize": 11,
            "axes.titleweight": "bold",
            "svg.fonttype": "none",
        }
    ):
        if compared:
            rows = (len(configs) - 1) * len(outcomes)
            height = max(5.2, 3.4 + 0.28 * rows)
            fig = Figure(figsize=(11, height), layout="constrained")
            ax1, ax2 = fig.subplots(1, 2, width_ratios=[1, 1.15])
        else:
            fig = Figure(figsize=(6.4, 4.4), layout="constrained")
            ax1 = fig.subplots()
            ax2 = None

        # Panel 1: each outcome's rate, a bar per configuration with its interval.
        width = 0.8 / len(configs)
        for i, (c, colour) in enumerate(zip(configs, colours)):
            xs, rates, lows, highs = [], [], [], []
            for j, (o, _) in enumerate(outcomes):
                rate, lo, hi = _row(c, o)
                xs.append(j - 0.4 + width * (i + 0.5))
                rates.append(rate * 100)
                lows.append(max(0.0, rate - lo) * 100)
                highs.append(max(0.0, hi - rate) * 100)
            ax1.bar(
                xs,
                rates,
                width * 0.92,
                color=colour,
                alpha=0.85,
                label=_label(c["rules"]),
                yerr=[lows, highs],
                error_kw={"elinewidth": 1.2, "capsize": 3, "ecolor": "#222222"},
            )
            if len(configs) <= 3:
                for x, r, h in zip(xs, rates, highs):
                    ax1.annotate(
                        f"{r:.1f}",
                        (x, r + h),
                        xytext=(0, 3),
                        textcoords="offset points",
                        ha="center",
                        va="bottom",
                        fontsize=8,
                        color="#333333",
                    )
        ax1.set_xticks(range(len(outcomes)), [name for _, name in outcomes])
        ax1.set_ylabel("share of games (%), 95% Wilson interval")
        top = max(
            (_row(c, o)[2] * 100 for c in configs for o, _ in outcomes), default=100
        )
        ax1.set_ylim(0, min(100, top * 1.15 + 4))
        ax1.yaxis.grid(True, color="#dddddd", linewidth=0.8)
        ax1.set_axisbelow(True)
        ax1.set_title("Outcome rates", loc="left")
        if compared:
            ax1.legend(frameon=False, loc="upper right", fontsize=9)

        # Panel 2: each rules file's change per outcome, a forest plot.
        if ax2 is not None:
            labels, ys = [], []
            y = 0
            span = 0.0
            for i, (c, colour) in enumerate(zip(configs[1:], colours[1:])):
                change = c["change"]
                for o, name in outcomes:
                    ch = change["draws"] if o is None else change["wins"].get(o)
                    if ch is None:
                        continue
                    d = ch["points"]
                    lo, hi = ch["ci95"]
                    span = max(span, abs(lo), abs(hi))
                    marked = lo > 0 or hi < 0
                    ax2.errorbar(
                        d,
                        -y,
                        xerr=[[max(0.0, d - lo)], [max(0.0, hi - d)]],
                        fmt="o",
                        color=colour,
                        markerfacecolor=colour if marked else "white",
                        markersize=7,
                        elinewidth=2,
                        capsize=4,
                    )
                    ax2.annotate(
                        f"{d:+.1f}" + (" *" if marked else ""),
                        (hi, -y),
                        xytext=(6, 0),
                        textcoords="offset points",
                        va="center",
                        fontsize=8,
                        color="#333333",
                        fontweight="bold" if marked else "normal",
                    )
                    labels.append(f"{_label(c['rules'])}: {name}")
                    ys.append(-y)
                    y += 1
                y += 0.6
            ax2.axvline(0, color="#222222", linewidth=1, linestyle="--")
            ax2.set_yticks(ys, labels)
            lim = max(5.0, span * 1.25)
            ax2.set_xlim(-lim, lim)
            ax2.set_xlabel("percentage points, 95% interval (filled, *: leaves out 0)")
            ax2.set_ylim(-(y - 0.6) + 0.4, 0.6)
            ax2.xaxis.grid(True, color="#dddddd", linewidth=0.8)
            ax2.set_axisbelow(True)
            ax2.set_title("Change from the game as given", loc="left")
            ax2.tick_params(axis="y", length=0)
            ax2.spines["left"].set_visible(False)

        game = facts["game"] or "game"
        name = Path(str(game)).name or str(game)
        seed = facts["seed"]
        bits = [f"{configs[0]['games']} games" + (" per configuration" if compared else "")]
        if seed is not None:
            bits.append(f"seed {seed}")
        bits.append(_agents_text(facts["agents"]))
        fig.suptitle(f"{name}: {', '.join(bits)}", fontsize=12, fontweight="bold")
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, format=fmt, dpi=150)
    return path
