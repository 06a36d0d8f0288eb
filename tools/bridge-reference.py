#!/usr/bin/env python3
"""Reference contract bridge deals from OpenSpiel, for flexrules' agreement tests.

OpenSpiel (https://github.com/google-deepmind/open_spiel, `pip install open_spiel`) is an
independent, established implementation of contract bridge ("bridge", loaded with
`use_double_dummy_result=false` so that the cards are really played). This script asks it,
and only it, what happens; tests/bridge_reference.rs replays the same calls and cards in
games/bridge and compares.

    tools/bridge-reference.py --seed S --count N [--auction-only]
    tools/bridge-reference.py --seed S --count N --system FILE [--flexrules BIN]
    tools/bridge-reference.py --check FILE...

plays N deals with Python's `random.Random(S)` (one generator for the N deals): a random
dealer and vulnerability, a random deal (OpenSpiel's chance outcomes), a random legal
auction and, unless `--auction-only`, a random legal play of all 52 cards. Every legal
call and card is listed, but the choice among them is weighted, so that auctions end at
every level, some are passed out, doubled or redoubled, and some contracts are made. A
call is RDbl with probability 30% when legal, else Dbl 12% when legal, else Pass 55% (75%
once someone has bid), else a bid (nine times in ten one of the six cheapest legal bids,
else any legal bid). A card is drawn uniformly, except that the
declaring side plays its highest card (trumps above the rest) half the time.

With `--system FILE` the auction is not drawn here: flexrules (`--flexrules`, by default
target/release/flexrules) is asked for the calls a bidding system makes at all four seats
on the deal (`playout games/bridge --param deal=... --agent system:FILE -n 1 --record`),
and each of them is played in OpenSpiel, which must find it legal and end the auction
with the last; the deal stops after the auction, and its `game` line ends with
`system <file name>` (tests/bridge_reference.rs checks that the system makes those calls
again).

`--check` replays files this script wrote in OpenSpiel and checks every line (the deal
against OpenSpiel's own picture of it, the legal calls and cards, the contract, the
tricks and the score against a textbook duplicate score).

Output (one item per line, `#` lines are comments):

    game <n> kind <full|auction> dealer <N|E|S|W> vulnerable <None|NS|EW|All>
    deal <PBN deal>
    step <k> by <seat> legal <names> play <name> [hand <seat>]
    ... (one `step` line for every call and card, in order)
    auction declarer <seat|-> contract <contract>
    end declarer <seat|-> tricks <n> score_ns <n> contract <contract>

The deal is written in PBN, starting from the dealer's seat: `E:<E> <S> <W> <N>`, each
hand spades.hearts.diamonds.clubs, ranks AKQJT98765432. `by` is the seat OpenSpiel asks
to act (during the play, the declarer when dummy's card is due). Calls are named `Pass`,
`Dbl`, `RDbl`, `1C` ... `7NT`; cards suit letter then rank (`SA`, `HT`, `C2`); a card's
`hand` is the seat it is played from. `legal` lists OpenSpiel's legal actions: calls in
its order (Pass Dbl RDbl 1C 1D ... 7NT), cards by suit (spades, hearts, diamonds, clubs)
and rank (ace first). The `auction` line follows the last call (a passed-out deal: declarer `-`,
contract `Passed Out`); a `full` deal ends with the `end` line after its 52nd card (or
right after the `auction` line when passed out): the tricks the declaring side took and
North-South's score (OpenSpiel's `returns()[0]`, North's). Contracts are written as
OpenSpiel's `contract_string` writes them (`4HX S`, `2CXX E`), except that notrump is
`NT` where OpenSpiel writes `N` (`3NT N`).

OpenSpiel's numbering, as this script reads it: chance outcome (card) c is the rank
c // 4 (2..A) of the suit c % 4 (clubs, diamonds, hearts, spades); the k-th card dealt
goes to seat k % 4 (North, East, South, West) whoever deals; action 52 + i is call i
(Pass, Dbl, RDbl, then 1C 1D 1H 1S 1NT 2C ... 7NT); players 0..3 are N, E, S, W; the game
parameter `dealer` (0..3) names the first to call, `dealer_vul` makes the dealer's side
vulnerable, `non_dealer_vul` the other side.
"""

import argparse
import os
import random
import sys

try:
    import pyspiel
except ImportError:
    sys.stderr.write("bridge-reference: pyspiel is not installed (pip install open_spiel)\n")
    sys.exit(3)

SEATS = "NESW"
SUITS = "CDHS"
RANKS = "23456789TJQKA"
STRAINS = ["C", "D", "H", "S", "NT"]
CALLS = ["Pass", "Dbl", "RDbl"] + [f"{lv}{st}" for lv in range(1, 8) for st in STRAINS]
VULNERABLE = ("None", "NS", "EW", "All")
FIRST_CALL = 52


def open_spiel_version():
    try:
        from importlib.metadata import version

        return version("open_spiel")
    except Exception:  # noqa: BLE001 - only for the header comment
        return "unknown"


def card_name(c):
    return SUITS[c % 4] + RANKS[c // 4]


def action_name(a):
    return card_name(a) if a < FIRST_CALL else CALLS[a - FIRST_CALL]


def in_order(actions):
    """The actions in the order the files list them: calls as OpenSpiel numbers them,
    cards by suit (spades first) then rank (ace first)."""
    return sorted(actions, key=lambda a: (a, 0) if a >= FIRST_CALL else (-(a % 4), -(a // 4)))


def load(dealer, vulnerable):
    """OpenSpiel's bridge with `dealer` (0..3) dealing and `vulnerable` (None, NS, EW,
    All) expressed as its dealer / non-dealer vulnerability."""
    ns = vulnerable in ("NS", "All")
    ew = vulnerable in ("EW", "All")
    dealer_side_ns = dealer % 2 == 0
    return pyspiel.load_game("bridge", {
        "use_double_dummy_result": False,
        "dealer": dealer,
        "dealer_vul": ns if dealer_side_ns else ew,
        "non_dealer_vul": ew if dealer_side_ns else ns,
    })


def pbn(holder, first):
    """The deal `holder` (card -> seat) in PBN, starting from seat `first`."""
    hands = []
    for k in range(4):
        seat = (first + k) % 4
        suits = []
        for suit in (3, 2, 1, 0):
            suits.append("".join(RANKS[r] for r in range(12, -1, -1)
                                 if holder[r * 4 + suit] == seat))
        hands.append(".".join(suits))
    return SEATS[first] + ":" + " ".join(hands)


def contract_text(game, state):
    text = game.contract_string(state.contract_index())
    if text == "Passed Out":
        return text, "-"
    level_strain, declarer = text.split(" ")
    if level_strain[1] == "N":
        level_strain = level_strain[0] + "NT" + level_strain[2:]
    return f"{level_strain} {declarer}", declarer


def choose_call(rng, legal):
    calls = [a - FIRST_CALL for a in legal]
    if 2 in calls and rng.random() < 0.3:
        return FIRST_CALL + 2
    if 1 in calls and rng.random() < 0.12:
        return FIRST_CALL + 1
    opened = 3 not in calls  # 1C is legal until someone bids
    if rng.random() < (0.75 if opened else 0.55):
        return FIRST_CALL
    bids = [c for c in calls if c >= 3]
    if not bids:
        return FIRST_CALL
    if rng.random() < 0.9:
        bids = bids[:6]
    return FIRST_CALL + rng.choice(bids)


def choose_card(rng, state, game, legal):
    """A legal card: uniformly for the defenders; for the declaring side (OpenSpiel asks
    the declarer for dummy's cards too) the highest card, trumps above the rest, half the
    time, so that some contracts are made."""
    declarer = SEATS.index(contract_text(game, state)[1])
    if state.current_player() != declarer or rng.random() < 0.5:
        return rng.choice(legal)
    strain = contract_text(game, state)[0].split()[0].rstrip("X")[1:]
    trump = SUITS.index(strain) if strain in SUITS else None
    return max(legal, key=lambda c: (c % 4 == trump, c // 4))


def system_calls(args, system, deal, dealer, vulnerable):
    """The calls flexrules' agent following bidding system `system` makes on the deal,
    at all four seats."""
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        record = os.path.join(tmp, "record.txt")
        subprocess.run([
            args.flexrules, "playout", "games/bridge", "-n", "1", "--jobs", "1",
            "--param", f"deal={deal}", "--param", f"dealer={dealer}",
            "--param", f"vulnerable={vulnerable}", "--agent", f"system:{system}",
            "--record", record], check=True, capture_output=True)
        with open(record, encoding="utf-8") as f:
            moves = f.read().rstrip("\n").split("\t")[4].split()
    calls = []
    for m in moves:
        if m not in CALLS:
            break
        calls.append(m)
    return calls


def play(rng, n, auction_only, out, args=None):
    dealer = rng.randrange(4)
    vulnerable = rng.choice(VULNERABLE)
    game = load(dealer, vulnerable)
    state = game.new_initial_state()
    holder = [None] * 52
    k = 0
    while state.is_chance_node():
        card = rng.choice(state.legal_actions())
        holder[card] = k % 4
        state.apply_action(card)
        k += 1
    kind = "auction" if auction_only else "full"
    system = args.system if args is not None else None
    tail = f" system {os.path.basename(system)}" if system else ""
    out.write(f"game {n} kind {kind} dealer {SEATS[dealer]} vulnerable {vulnerable}{tail}\n")
    out.write(f"deal {pbn(holder, dealer)}\n")
    calls = None
    if system:
        calls = system_calls(args, system, pbn(holder, dealer), SEATS[dealer], vulnerable)
    step = 0
    in_auction = True
    while not state.is_terminal():
        legal = state.legal_actions()
        by = state.current_player()
        if calls is not None and in_auction:
            if step >= len(calls):
                raise SystemExit(f"game {n}: the system's auction {calls} ends, OpenSpiel's goes on")
            if FIRST_CALL + CALLS.index(calls[step]) not in legal:
                raise SystemExit(f"game {n}: the system calls {calls[step]} at step {step}, "
                                 "which OpenSpiel does not find legal")
            action = FIRST_CALL + CALLS.index(calls[step])
        elif in_auction:
            action = choose_call(rng, legal)
        else:
            action = choose_card(rng, state, game, legal)
        line = "step %d by %s legal %s play %s" % (
            step, SEATS[by], " ".join(action_name(a) for a in in_order(legal)),
            action_name(action))
        if action < FIRST_CALL:
            line += f" hand {SEATS[holder[action]]}"
        out.write(line + "\n")
        state.apply_action(action)
        step += 1
        if in_auction and (state.is_terminal() or state.legal_actions()[0] < FIRST_CALL):
            in_auction = False
            contract, declarer = contract_text(game, state)
            out.write(f"auction declarer {declarer} contract {contract}\n")
            if calls is not None and step != len(calls):
                raise SystemExit(f"game {n}: OpenSpiel's auction ends after {step} calls, "
                                 f"the system's {calls} goes on")
            if auction_only:
                return
    contract, declarer = contract_text(game, state)
    text = str(state)
    tricks = int(text.split("Declarer tricks won: ")[1].split()[0]) if declarer != "-" else 0
    score = state.returns()[0]
    assert score == int(score)
    out.write(f"end declarer {declarer} tricks {tricks} score_ns {int(score)} "
              f"contract {contract}\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int)
    ap.add_argument("--count", type=int)
    ap.add_argument("--auction-only", action="store_true")
    ap.add_argument("--check", nargs="+", metavar="FILE")
    ap.add_argument("--system", metavar="FILE")
    ap.add_argument("--flexrules", default="target/release/flexrules")
    args = ap.parse_args()
    if args.check:
        for path in args.check:
            check(path)
        return
    if args.seed is None or args.count is None:
        ap.error("--seed and --count are needed (or --check FILE...)")
    rng = random.Random(args.seed)
    out = sys.stdout
    if args.system:
        args.auction_only = True
    extra = " --auction-only" if args.auction_only else ""
    if args.system:
        extra += f" --system {args.system}"
    out.write(f"# tools/bridge-reference.py --seed {args.seed} --count {args.count}{extra} "
              f"(OpenSpiel {open_spiel_version()})\n")
    for n in range(args.count):
        play(rng, n, args.auction_only, out, args)


# --- checking written files against OpenSpiel ------------------------------------------

def textbook_score(level, strain, doubled, declarer_tricks, vulnerable):
    """The duplicate score of the declaring side (the laws' table, written here apart
    from OpenSpiel)."""
    need = 6 + level
    if declarer_tricks < need:
        down = need - declarer_tricks
        if doubled == 0:
            return -(100 if vulnerable else 50) * down
        if vulnerable:
            per = [200] + [300] * (down - 1)
        else:
            per = ([100, 200, 200] + [300] * down)[:down]
        return -sum(per) * (2 if doubled == 2 else 1)
    per_trick = 20 if strain in ("C", "D") else 30
    trick_score = level * per_trick + (10 if strain == "NT" else 0)
    trick_score *= (1, 2, 4)[doubled]
    over = declarer_tricks - need
    if doubled == 0:
        over_score = over * per_trick
    else:
        over_score = over * (200 if vulnerable else 100) * (1, 2)[doubled - 1]
    bonus = 300 if trick_score >= 100 else 50
    if trick_score >= 100 and vulnerable:
        bonus = 500
    if level == 6:
        bonus += 750 if vulnerable else 500
    if level == 7:
        bonus += 1500 if vulnerable else 1000
    insult = (0, 50, 100)[doubled]
    return trick_score + over_score + bonus + insult


def parse_pbn(text):
    first = SEATS.index(text[0])
    holder = [None] * 52
    for k, hand in enumerate(text[2:].split(" ")):
        seat = (first + k) % 4
        for suit, ranks in zip((3, 2, 1, 0), hand.split(".")):
            for r in ranks:
                holder[RANKS.index(r) * 4 + suit] = seat
    assert None not in holder, text
    return holder


def pictured(state):
    """OpenSpiel's own picture of the deal (its state string): per seat, per suit, the
    ranks, as `{seat: "AK7.QJ2.T943.K82"}`."""
    lines = str(state).splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith("Vul:")) + 1
    rows = lines[start:start + 12]

    def ranks(cell):
        return "".join(cell.split()[1:]).replace("10", "T")

    hands = {"N": [], "E": [], "S": [], "W": []}
    for i in range(4):
        hands["N"].append(ranks(rows[i].strip()))
        hands["S"].append(ranks(rows[8 + i].strip()))
        row = rows[4 + i]
        cut = row.index(row[0], 1)  # East's column starts with the same suit sign
        west, east = row[:cut], row[cut:]
        hands["W"].append(ranks(west.strip()))
        hands["E"].append(ranks(east.strip()))
    return {s: ".".join(h) for s, h in hands.items()}


def check(path):
    games = []
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        kind, _, rest = line.partition(" ")
        if kind == "game":
            w = rest.split()
            games.append({"kind": w[2], "dealer": w[4], "vulnerable": w[6], "steps": []})
        elif kind == "deal":
            games[-1]["deal"] = rest
        elif kind == "step":
            w = rest.split()
            i = w.index("play")
            games[-1]["steps"].append({
                "by": w[2], "legal": w[4:i], "play": w[i + 1],
                "hand": w[i + 3] if len(w) > i + 2 else None})
        elif kind in ("auction", "end"):
            games[-1][kind] = rest
        else:
            raise SystemExit(f"{path}: unknown line {line!r}")
    full = 0
    for n, g in enumerate(games):
        where = f"{path} game {n}"
        dealer = SEATS.index(g["dealer"])
        assert g["deal"][0] == g["dealer"], where
        game = load(dealer, g["vulnerable"])
        state = game.new_initial_state()
        holder = parse_pbn(g["deal"])
        by_seat = [[c for c in range(52) if holder[c] == s] for s in range(4)]
        for k in range(13):
            for s in range(4):
                state.apply_action(by_seat[s][k])
        text = str(state)
        assert f"Dealer {['North', 'East', 'South', 'West'][dealer]}" in text, where
        vul = {"None": "None", "NS": "N/S", "EW": "E/W", "All": "All"}[g["vulnerable"]]
        assert f"Vul: {vul}\n" in text, where
        picture = pictured(state)
        hands = dict(zip([SEATS[(dealer + k) % 4] for k in range(4)], g["deal"][2:].split()))
        assert picture == hands, (where, picture, hands)
        auction_done = False
        for k, step in enumerate(g["steps"]):
            assert not state.is_terminal(), (where, k)
            assert not auction_done or g["kind"] == "full", (where, k)
            assert SEATS[state.current_player()] == step["by"], (where, k)
            actions = in_order(state.legal_actions())
            legal = [action_name(a) for a in actions]
            assert legal == step["legal"], (where, k, legal, step["legal"])
            action = actions[legal.index(step["play"])]
            if action < FIRST_CALL:
                assert SEATS[holder[action]] == step["hand"], (where, k)
                player = state.current_player()
                owner = holder[action]
                assert owner == player or owner == (player + 2) % 4, (where, k)
            else:
                assert step["hand"] is None, (where, k)
            state.apply_action(action)
            if not auction_done and (state.is_terminal()
                                     or state.legal_actions()[0] < FIRST_CALL):
                auction_done = True
                contract, declarer = contract_text(game, state)
                assert g["auction"] == f"declarer {declarer} contract {contract}", where
                assert k == len(g["steps"]) - 1 or g["kind"] == "full", where
        assert auction_done, where
        if g["kind"] == "auction":
            assert "end" not in g, where
            continue
        full += 1
        assert state.is_terminal(), where
        contract, declarer = contract_text(game, state)
        w = g["end"].split()
        tricks, score = int(w[3]), int(w[5])
        assert g["end"] == (f"declarer {declarer} tricks {tricks} score_ns {score} "
                            f"contract {contract}"), where
        assert state.returns() == [score, -score, score, -score], where
        if declarer == "-":
            assert score == 0 and tricks == 0, where
            continue
        strain = contract.split()[0].rstrip("X")[1:]
        doubled = contract.split()[0].count("X")
        side_ns = declarer in "NS"
        vul = g["vulnerable"] in ("All", "NS" if side_ns else "EW")
        mine = textbook_score(int(contract[0]), strain, doubled, tricks, vul)
        assert mine == (score if side_ns else -score), (where, mine, score)
    print(f"{path}: {len(games)} deals ({full} played out) agree with OpenSpiel")


if __name__ == "__main__":
    main()
