//! `flexrules playout --plot`: the SVG figure of a run (well-formed, one interval per
//! outcome and configuration, the change panel only with --compare, the same bytes on any
//! number of threads) and the paths and options it refuses.

use std::path::PathBuf;
use std::process::{Command, Output};

/// A fresh directory for this test's files.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("flexrules-plot-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}

fn flexrules(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_flexrules"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("flexrules runs")
}

/// Play awele with `extra` arguments and `--plot` into `dir`; the SVG written.
fn plotted(dir: &std::path::Path, file: &str, extra: &[&str]) -> (Output, String) {
    let path = dir.join(file);
    let path = path.to_str().expect("a UTF-8 path");
    let mut args = vec!["playout", "games/awele", "-n", "40", "--seed", "5"];
    args.extend(extra);
    args.extend(["--plot", path]);
    let out = flexrules(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        out,
        std::fs::read_to_string(path).expect("the figure is written"),
    )
}

/// Each panel's outcome groups: (panel, outcome, the configurations of its intervals).
fn panels(svg: &str) -> Vec<(String, String, Vec<String>)> {
    let doc = roxmltree::Document::parse(svg).expect("the figure is well-formed XML");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    let mut out = Vec::new();
    for panel in doc.descendants().filter(|n| n.has_attribute("id")) {
        for g in panel
            .descendants()
            .filter(|n| n.attribute("class") == Some("outcome"))
        {
            let runs = g
                .children()
                .filter(|n| n.attribute("class") == Some("interval"))
                .map(|n| n.attribute("data-run").unwrap_or("?").to_string())
                .collect();
            out.push((
                panel.attribute("id").unwrap_or("").to_string(),
                g.attribute("data-outcome").unwrap_or("").to_string(),
                runs,
            ));
        }
    }
    out
}

#[test]
fn a_run_is_drawn_with_an_interval_per_outcome() {
    let dir = scratch("alone");
    let (out, svg) = plotted(&dir, "awele.svg", &["--jobs", "1"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("40 games"),
        "the summary is printed: {stdout}"
    );
    let drawn = panels(&svg);
    let outcomes: Vec<&str> = drawn.iter().map(|(_, o, _)| o.as_str()).collect();
    assert_eq!(outcomes, ["winner 0", "winner 1", "draw"]);
    assert!(
        drawn
            .iter()
            .all(|(p, _, runs)| p == "rates" && runs == &["0"])
    );
    assert!(!svg.contains("id=\"changes\"") && !svg.contains("id=\"legend\""));
    for label in [
        "games/awele",
        "40 games",
        "seed 5",
        "every player random",
        "%",
    ] {
        assert!(svg.contains(label), "no {label:?} in the figure");
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn compared_rules_are_drawn_beside_the_game_and_as_changes() {
    let dir = scratch("compare");
    let (out, svg) = plotted(
        &dir,
        "compare.svg",
        &[
            "--jobs",
            "1",
            "--compare",
            "games/awele/variants/capture-four.fr",
            "--compare",
            "games/awele/variants/first-to-twenty.fr",
            "--json",
        ],
    );
    // --json still gives the JSON on standard output.
    let json: serde_json::Value =
        serde_json::from_slice(&out.stdout).expect("JSON on standard output");
    assert_eq!(json["configurations"].as_array().map(Vec::len), Some(3));
    let drawn = panels(&svg);
    let rates: Vec<_> = drawn.iter().filter(|(p, _, _)| p == "rates").collect();
    let changes: Vec<_> = drawn.iter().filter(|(p, _, _)| p == "changes").collect();
    assert_eq!(rates.len(), 3);
    assert!(rates.iter().all(|(_, _, runs)| runs == &["0", "1", "2"]));
    assert_eq!(changes.len(), 3);
    assert!(changes.iter().all(|(_, _, runs)| runs == &["1", "2"]));
    for label in [
        "the game as given",
        "with games/awele/variants/capture-four.fr",
        "with games/awele/variants/first-to-twenty.fr",
        "percentage points",
    ] {
        assert!(svg.contains(label), "no {label:?} in the figure");
    }
    insta::assert_snapshot!("awele_compare_svg", svg);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn the_figure_does_not_depend_on_the_threads() {
    let dir = scratch("jobs");
    let compare = ["--compare", "games/awele/variants/capture-four.fr"];
    let (_, one) = plotted(&dir, "one.svg", &[&["--jobs", "1"][..], &compare].concat());
    let (_, two) = plotted(&dir, "two.svg", &[&["--jobs", "2"][..], &compare].concat());
    assert_eq!(one, two);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_path_not_ending_in_svg_is_refused_before_any_game() {
    let dir = scratch("png");
    let path = dir.join("out.png");
    let out = flexrules(&[
        "playout",
        "games/awele",
        "-n",
        "5",
        "--plot",
        path.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(out.stdout.is_empty(), "no game is played");
    assert!(
        stderr.contains("the file name must end in .svg") && stderr.contains("hint:"),
        "{stderr}"
    );
    assert!(stderr.contains("flexrules.plot"), "{stderr}");
    assert!(!path.exists());
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn an_unwritable_path_is_an_error_after_the_summary() {
    let dir = scratch("unwritable");
    let path = dir.join("missing").join("x.svg");
    let out = flexrules(&[
        "playout",
        "games/awele",
        "-n",
        "5",
        "--plot",
        path.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stdout.contains("5 games"), "the summary is kept: {stdout}");
    assert!(
        stderr.starts_with(&format!("error: --plot {}: ", path.display())),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn plot_goes_without_duplicate_and_profile() {
    for extra in [
        &[
            "--score",
            "score_ns",
            "--duplicate",
            "N,S=random",
            "--duplicate",
            "E,W=random",
        ][..],
        &["--profile"][..],
    ] {
        let mut args = vec!["playout", "games/bridge", "-n", "2", "--plot", "x.svg"];
        args.extend(extra);
        let out = flexrules(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains("'--plot <FILE.svg>' cannot be used with"),
            "{stderr}"
        );
    }
}
