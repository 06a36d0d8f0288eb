#!/usr/bin/env python3
"""Reference Goofspiel games from OpenSpiel, for flexrules' agreement tests.

OpenSpiel (https://github.com/google-deepmind/open_spiel, `pip install open_spiel`) is an
independent, established implementation of Goofspiel ("goofspiel"), a game of
simultaneous moves. This script asks it, and only it, what happens;
tests/goofspiel_reference.rs replays the same bids in games/goofspiel and compares.

    tools/goofspiel-reference.py --seed S --count N --cards C --players P --order O

plays N games with random bids (the legal ones of each player, drawn uniformly), with C
cards, P players and the prizes in order O ("descending" or "ascending").

Output (one item per line, `#` lines are comments):

    game <n> cards <C> players <P> order <O>
    turn prize <card> hands <hand>/<hand>/... points <p0> <p1> ...
    bids <card of player 0> <card of player 1> ...
    ... (a `turn` line before every turn with a choice, the `bids` line after it)
    end points <p0> <p1> ... winner <id|draw>

Cards are written 1..C (OpenSpiel's action a is card a + 1). Hands are the cards each
player holds before the turn, space-separated, players separated by `/`. OpenSpiel plays
the last turn itself (every player has one card left): it has no `turn` line; `end` gives
the points after it. `winner` is the one player with the most points, or `draw`.
"""

import argparse
import random
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--count", type=int, required=True)
    ap.add_argument("--cards", type=int, required=True)
    ap.add_argument("--players", type=int, required=True)
    ap.add_argument("--order", choices=["descending", "ascending"], required=True)
    args = ap.parse_args()
    import pyspiel

    game = pyspiel.load_game(
        "goofspiel",
        {
            "num_cards": args.cards,
            "players": args.players,
            "points_order": args.order,
            "returns_type": "total_points",
        },
    )
    rng = random.Random(args.seed)
    out = sys.stdout
    out.write(f"# tools/goofspiel-reference.py --seed {args.seed} --count {args.count} "
              f"--cards {args.cards} --players {args.players} --order {args.order}\n")
    for n in range(args.count):
        state = game.new_initial_state()
        out.write(f"game {n} cards {args.cards} players {args.players} order {args.order}\n")
        while not state.is_terminal():
            assert state.is_simultaneous_node()
            hands = [[a + 1 for a in state.legal_actions(p)] for p in range(args.players)]
            prize = read(state, "Point card sequence:")[-1]
            points = read(state, "Points:")
            out.write("turn prize %d hands %s points %s\n" % (
                prize, "/".join(" ".join(map(str, h)) for h in hands),
                " ".join(map(str, points))))
            bids = [rng.choice(h) for h in hands]
            out.write("bids %s\n" % " ".join(map(str, bids)))
            state.apply_actions([b - 1 for b in bids])
        points = read(state, "Points:")
        best = max(points)
        winners = [i for i, p in enumerate(points) if p == best]
        winner = str(winners[0]) if len(winners) == 1 else "draw"
        out.write("end points %s winner %s\n" % (" ".join(map(str, points)), winner))


def read(state, heading):
    """The numbers of a line of OpenSpiel's own description of the state: the prize
    cards turned up so far (`Point card sequence:`), the points (`Points:`)."""
    for line in str(state).splitlines():
        if line.startswith(heading):
            return [int(x) for x in line[len(heading):].split()]
    raise SystemExit(f"no `{heading}` in the state")


if __name__ == "__main__":
    main()
