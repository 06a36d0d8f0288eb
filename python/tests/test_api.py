"""The Python API: loading, diagnostics, matches, moves by name and index, messages,
undo, forks, outcomes, views, waits, and pickling."""

from __future__ import annotations

import pickle
import subprocess
import sys
import textwrap

import pytest

import flexrules
from flexrules.testing import game_dir


def play_randomly(m: flexrules.Match, plies: int, pick: int = 7) -> None:
    for i in range(plies):
        if m.finished:
            return
        moves = m.legal_moves()
        if not moves:
            return
        m.play(moves[(i * pick) % len(moves)].name)


def test_a_game_loads_and_a_match_plays_by_name_and_index(awele):
    m = awele.start(seed=3)
    moves = m.legal_moves()
    assert moves, "Awele has moves at the start"
    assert all(isinstance(mv, flexrules.Move) for mv in moves)
    assert m.players_to_move() == ["0"] or len(m.players_to_move()) == 1
    first = moves[0]
    assert m.play_index(first.index) == first.name
    assert m.moves == [first.name]
    assert m.undo()
    assert m.moves == []
    assert m.play(first.name) == first.name
    # The index of a name is the same in every process (FNV-1a of the name).
    other = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(f"""
            import flexrules
            m = flexrules.Game({str(awele.path)!r}).start(3)
            print(next(mv.index for mv in m.legal_moves() if mv.name == {first.name!r}))
        """)],
        check=True, capture_output=True, text=True,
    )
    assert int(other.stdout) == first.index


def test_a_refused_move_raises_and_changes_nothing(awele):
    m = awele.start(seed=1)
    play_randomly(m, 5)
    before = (m.digest(), m.moves, [mv.name for mv in m.legal_moves()])
    with pytest.raises(flexrules.MoveError, match="not a move here"):
        m.play("no-such-move")
    with pytest.raises(flexrules.MoveError, match="no legal move has index"):
        m.play_index(12345)
    with pytest.raises(flexrules.MoveError, match="no entity is named"):
        m.send("nobody", "sow")
    assert (m.digest(), m.moves, [mv.name for mv in m.legal_moves()]) == before


def test_a_game_that_does_not_load_raises_its_diagnostics(tmp_path):
    broken = tmp_path / "broken.fr"
    broken.write_text('#entity e\n  #state default\n    #onMessage m\n      (update property "p" to (nosuch 1))\n')
    with pytest.raises(flexrules.LoadError) as caught:
        flexrules.Game(broken)
    e = caught.value
    assert e.diagnostics, "every diagnostic is carried"
    d = e.diagnostics[0]
    assert isinstance(d, flexrules.Diagnostic)
    assert d.severity == "error"
    assert d.file.endswith("broken.fr")
    assert (d.line, d.column) == (4, 32)
    assert "nosuch" in d.message
    assert d.code
    # The message is the compiler's own text, the source line underlined.
    assert "nosuch" in str(e) and "broken.fr" in str(e)

    with pytest.raises(flexrules.LoadError, match="no-such-dir") as missing:
        flexrules.Game(tmp_path / "no-such-dir")
    assert missing.value.diagnostics == []


def test_parameters_and_rules_files(root):
    go = flexrules.Game(game_dir("go"), params={"size": 9})
    assert go.params == {"size": "9"}
    assert len(go.start(0).legal_moves()) == 9 * 9 + 1
    with pytest.raises(flexrules.MoveError, match="nosuch"):
        flexrules.Game(game_dir("go"), params={"nosuch": 1}).start(0)
    with pytest.raises(ValueError, match="parameter's value"):
        flexrules.Game(game_dir("go"), params={"size": object()})
    atomic = flexrules.Game(game_dir("chess"), rules=[game_dir("chess") / "variants" / "atomic.fr"])
    assert atomic.rules[0].endswith("atomic.fr")
    assert "atomic.fr" in repr(atomic)


def test_outcome_winner_and_views(awele):
    m = awele.start(seed=5)
    assert m.outcome() is None and not m.finished and m.winner is None
    play_randomly(m, 400)
    assert m.finished
    outcome = m.outcome()
    assert isinstance(outcome, dict) and "winner" in outcome or outcome == {} or m.winner is None
    text = m.view()
    assert text.strip(), "the board draws as text"
    assert m.svg().lstrip().startswith("<svg")
    r = repr(m)
    assert r.startswith("<flexrules.Match ") and "finished" in r and text.strip()[:10] in r


def test_a_fork_goes_on_alone(awele):
    m = awele.start(seed=2)
    play_randomly(m, 4)
    f = m.fork()
    assert f.digest() == m.digest() and f.moves == m.moves
    f.play(f.legal_moves()[0].name)
    assert f.moves != m.moves and f.digest() != m.digest()
    assert len(m.moves) == 4


def test_messages_are_sent_with_attributes(tmp_path):
    counter = tmp_path / "counter.fr"
    counter.write_text(textwrap.dedent('''\
        #entity counter
          #property count 0
          #state default
            #onMessage add
              (update property "count" to (+ (property "count") (attribute "by")))
        #instance c of counter
        #law "Small Steps" on add to counter in default is
          (if (> (attribute "by") 10) (return))
        #define count () (property "count" of "c")
        #define twice (n) (* 2 n)
        '''))
    g = flexrules.Game(counter)
    m = g.start()
    sent = m.send("c", "add", by=3)
    assert sent == "add@c{by=3}"
    assert m.moves == [sent]
    assert m.call("count") == 3
    assert m.call("twice", 21) == 42
    assert m.defines("twice") and not m.defines("nosuch")
    with pytest.raises(flexrules.MoveError, match="Small Steps"):
        m.send("c", "add", by=11)
    assert m.call("count") == 3
    with pytest.raises(ValueError, match="no function `nosuch`"):
        m.call("nosuch")
    with pytest.raises(TypeError, match="a game value"):
        m.send("c", "add", by=object())
    # Pickled with its messages, rebuilt by sending them again.
    back = pickle.loads(pickle.dumps(m))
    assert back.call("count") == 3 and back.digest() == m.digest()


def test_values_convert_both_ways(tmp_path):
    f = tmp_path / "values.fr"
    f.write_text(textwrap.dedent('''\
        #entity e
          #property kept nil
          #state default
            #onMessage keep
              (update property "kept" to (attribute "v"))
        #instance box of e
        #define kept () (property "kept" of "box")
        #define sample () (list 1 2.5 "three" true nil (dict "a" 1 2 (list)))
        '''))
    m = flexrules.Game(f).start()
    assert m.call("sample") == [1, 2.5, "three", True, None, {"a": 1, 2: []}]
    for v in [7, -1.5, "x", False, None, [1, [2, "y"]], {"k": [True]}]:
        m.send("box", "keep", v=v)
        assert m.call("kept") == v
    with pytest.raises(TypeError, match="64-bit"):
        m.send("box", "keep", v=2**70)


def test_a_match_pickles_as_game_seed_and_moves(awele):
    m = awele.start(seed=9)
    play_randomly(m, 17)
    data = pickle.dumps(m)
    back = pickle.loads(data)
    assert back.moves == m.moves and back.seed == 9 and back.digest() == m.digest()
    # The game travels as plain data: it loads where its directory does not exist.
    code = textwrap.dedent("""
        import pickle, sys
        m = pickle.loads(sys.stdin.buffer.read())
        print(m.digest(), len(m.moves))
    """)
    out = subprocess.run([sys.executable, "-c", code], input=data, capture_output=True, check=True, text=False,
                         cwd="/", env={"PATH": "/usr/bin:/bin"})
    assert out.stdout.decode().split() == [str(m.digest()), "17"]


def test_a_game_pickles_as_its_files(awele):
    g = pickle.loads(pickle.dumps(awele))
    assert g.path == awele.path and dict(g.files()) == dict(awele.files())
    assert g.start(4).digest() == awele.start(4).digest()


def test_a_wait_is_answered_and_pickled(archipelago):
    # Play random moves until a move waits for a signal (a salvage choice).
    for seed in range(40):
        m = archipelago.start(seed)
        for i in range(600):
            if m.finished:
                break
            if m.waiting is not None:
                w = m.waiting
                assert w["signal"] and w["answers"]
                answers = m.legal_moves()
                assert all(a.name.startswith(w["signal"] + "=") for a in answers)
                before = m.moves
                m.undo()
                assert m.waiting is None and len(m.moves) == len(before) - 1
                m.play(before[-1])
                back = pickle.loads(pickle.dumps(m))
                assert back.waiting == m.waiting and back.moves == m.moves
                m.play(answers[0].name)
                assert m.waiting is None
                back = pickle.loads(pickle.dumps(m))
                assert back.digest() == m.digest()
                return
            moves = m.legal_moves()
            m.play(moves[(i * 5 + seed) % len(moves)].name)
    pytest.fail("no salvage choice came up in 40 games")


def test_players(awele, archipelago, tmp_path):
    assert flexrules.Game(game_dir("chess")).players() == ["white", "black"]
    assert archipelago.players() == ["0", "1", "2"]
    assert awele.players() == ["0", "1"]  # no `players`: two players
    odd = tmp_path / "odd.fr"
    odd.write_text("#entity e\n  #state s\n#instance e of e\n#define players () 3\n")
    with pytest.raises(ValueError, match=r"gave 3, not a list"):
        flexrules.Game(odd).players()
