//! The machine bench's micro-programs (`benches/machine/*.fr`) print what their Lua
//! counterparts (`benches/lua/*.lua`) print, checked against known values so that Lua need
//! not be installed: `flexrules run <file> --param n=<arg>` prints one `print:` line; and
//! the probe of one ply lasts as many moves as it is told.

use std::path::Path;
use std::process::Command;

/// Run `benches/machine/<program>.fr`, with `n` set if given; its standard output.
fn run(program: &str, n: Option<u64>) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_flexrules"));
    cmd.current_dir(root)
        .arg("run")
        .arg(format!("benches/machine/{program}.fr"));
    if let Some(n) = n {
        cmd.arg("--param").arg(format!("n={n}"));
    }
    let out = cmd.output().expect("flexrules runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{program}: {stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// The value of the one `print:` line.
fn result(program: &str, n: u64) -> String {
    let out = run(program, Some(n));
    let printed: Vec<&str> = out
        .lines()
        .filter_map(|l| l.trim().strip_prefix("print: "))
        .collect();
    assert_eq!(printed.len(), 1, "{program} {n} printed one result: {out}");
    printed[0].to_string()
}

#[test]
fn fib_gives_lua_results() {
    for (n, want) in [(0, "0"), (1, "1"), (2, "1"), (10, "55"), (20, "6765")] {
        assert_eq!(result("fib", n), want, "fib({n})");
    }
}

#[test]
fn count_gives_lua_results() {
    for (n, want) in [(0, "0"), (1, "1"), (12345, "12345")] {
        assert_eq!(result("count", n), want, "count {n}");
    }
}

#[test]
fn dict_gives_lua_results() {
    // The sum of the counts is the number of counts, whatever the keys.
    for (n, want) in [(0, "0"), (7, "7"), (2500, "2500")] {
        assert_eq!(result("dict", n), want, "dict {n}");
    }
}

#[test]
fn the_programs_default_to_the_bench_sizes() {
    // The defaults are the arguments the Lua scripts default to; fib(27) is cheap enough to
    // run here.
    let out = run("fib", None);
    assert!(out.contains("print: 196418"), "{out}");
}

#[test]
fn the_empty_program_prints_nothing() {
    assert_eq!(run("empty", None).trim(), "");
}

/// The probe of one ply (`benches/machine/ply.fr`) lasts exactly its `plies` moves a
/// game, so that the bench's difference of two runs is that many plies.
#[test]
fn the_ply_game_lasts_its_plies() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for plies in [1, 7, 1001] {
        let out = Command::new(env!("CARGO_BIN_EXE_flexrules"))
            .current_dir(root)
            .args([
                "playout",
                "benches/machine/ply.fr",
                "-n",
                "3",
                "--seed",
                "5",
            ])
            .args(["--jobs", "1", "--param", &format!("plies={plies}")])
            .output()
            .expect("flexrules runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{stdout}");
        assert!(
            stdout.contains(&format!("3 games, mean length {plies}.0 moves")),
            "{plies} plies: {stdout}"
        );
    }
}
