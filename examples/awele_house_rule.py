"""Does a house rule change who wins Awele? A walk from loading the game to a plot, in
cells (each `# %%` is one; run the file as a script, or cell by cell in an editor that
reads them, such as VS Code or Jupyter's jupytext).

Needs the Python package (`pip install ./python`), Ray and matplotlib (`pip install ray
matplotlib`). Run from the repository's root:

    python examples/awele_house_rule.py

FLEXRULES_EXAMPLE_GAMES sets the games per configuration (2000 unless set), and
FLEXRULES_EXAMPLE_OUT the directory the plot is written to (the current one unless set).
"""

# %% [markdown]
# ## The game
#
# Awele (Oware abapa) as the repository writes it: each rule players like to change is a
# law or a side-effect in its own file, so a house rule is a small rules file that
# replaces one of them. Loading checks and compiles everything; a mistake raises
# `flexrules.LoadError`, whose `diagnostics` give file, line and column.

# %%
import os
from pathlib import Path

import flexrules

here = Path(__file__).resolve().parent.parent
awele_dir = here / "games" / "awele"
games = int(os.environ.get("FLEXRULES_EXAMPLE_GAMES", "2000"))
out = Path(os.environ.get("FLEXRULES_EXAMPLE_OUT", "."))

awele = flexrules.Game(str(awele_dir))
print(awele, "players:", awele.players())

# %% [markdown]
# ## A match by hand
#
# A match starts from a seed; moves are played by name (or by their stable index), and
# the board is drawn as text.

# %%
m = awele.start(seed=7)
for _ in range(4):
    move = m.legal_moves()[0]
    m.play(move.name)
print(m.view())
print("moves so far:", m.moves)

# %% [markdown]
# ## The house rule
#
# In Oware abapa a capture takes the houses holding 2 or 3 seeds. A common house rule
# takes houses of 4 seeds too. It is `variants/capture-four.fr`: it replaces the capture
# law and the grand-slam side-effect with versions that count 4 as well.

# %%
house_rule = awele_dir / "variants" / "capture-four.fr"
print(house_rule.read_text())
with_rule = flexrules.Game(str(awele_dir), rules=[str(house_rule)])
print(with_rule)

# %% [markdown]
# ## Many games, on Ray
#
# `flexrules.balance` plays `games` games of the game as given and the same games with
# the house rule, spread over Ray's workers (a local Ray here; `RAY_ADDRESS` names a
# cluster). Game `i` is the command line's game `i` of `flexrules playout --seed 1`, so
# `flexrules playout games/awele -n <games> --seed 1 --compare <rule> --json` prints the
# same numbers. Every move is chosen at random; `agents={"0": "mcts:200"}` would let a
# search play one side.

# %%
result = flexrules.balance(awele, rules=[str(house_rule)], games=games, seed=1)
print(result)

# %% [markdown]
# ## What changed
#
# `result.changes` gives, for each rules file, how each outcome's rate moved from the game
# as given, in percentage points, with a 95% interval. An interval that leaves out 0 is a
# change the games show, not chance.

# %%
for outcome, change in result.changes[str(house_rule)].items():
    lo, hi = change["ci95"]
    verdict = "a real change" if lo > 0 or hi < 0 else "within chance"
    what = "draw" if outcome == "draw" else f"winner {outcome}"
    print(f"{what:>8}: {change['points']:+5.1f} points (95% CI {lo:+.1f} to {hi:+.1f}): {verdict}")

# %% [markdown]
# ## The picture
#
# Left: each outcome's rate with its interval, the game as given beside the house rule.
# Right: the change per outcome, with a line at zero. SVG or PNG, by the extension.

# %%
out.mkdir(parents=True, exist_ok=True)
picture = result.plot(out / "awele_house_rule.png")
print("written:", picture)
