//! Every way a downloaded game or journal could reach outside its directory or hang the
//! loader: a symbolic link to a directory or a file outside the game, a device, a FIFO,
//! and a journal whose lines would run commands or read files elsewhere.
//!
//! Symbolic links, FIFOs and devices cannot be kept as files in the repository, so each
//! test builds its game in a fresh temporary directory.

#![cfg(unix)]

use std::path::{Path, PathBuf};

use flexrules::compile::{CheckOptions, check_game};
use flexrules::diagnostic::render_plain;
use flexrules::repl::{Repl, ReplOptions};
use flexrules::syntax::load::{DiskFs, read_regular_file};

/// A fresh directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("flexrules-escape-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temporary directory");
    dir
}

fn write(path: &Path, text: &str) {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).expect("directory");
    }
    std::fs::write(path, text).expect("file written");
}

/// What the checker says about the game at `dir`.
fn check(dir: &Path) -> String {
    let checked = check_game(&DiskFs, dir, &CheckOptions::default()).expect("the game opens");
    render_plain(&checked.loaded.sources, &checked.diagnostics)
}

const GAME_HEAD: &str =
    "#entity e\n  #state default\n    #onMessage go\n      (notify \"go\")\n#instance e of e\n";

#[test]
fn an_include_through_a_symlinked_directory_is_refused() {
    let dir = scratch("dir-link");
    let outside = dir.join("outside");
    write(
        &outside.join("secret.fr"),
        "#define secret () \"from outside\"\n",
    );
    let game = dir.join("game");
    write(
        &game.join("game.fr"),
        &format!("{GAME_HEAD}#include \"link/secret.fr\"\n"),
    );
    std::os::unix::fs::symlink(&outside, game.join("link")).unwrap();
    let text = check(&game);
    assert!(text.contains("symbolic link takes it outside"), "{text}");
    // A link that stays inside the game is fine.
    write(&game.join("real/inner.fr"), "#define inner () 1\n");
    std::os::unix::fs::symlink(game.join("real"), game.join("alias")).unwrap();
    write(
        &game.join("game.fr"),
        &format!("{GAME_HEAD}#include \"alias/inner.fr\"\n"),
    );
    assert_eq!(check(&game), "");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_advice_file_linked_outside_is_refused_without_showing_it() {
    let dir = scratch("file-link");
    let secret = dir.join("secret.txt");
    write(&secret, "root:x:0:0:the first line of a secret\n");
    let game = dir.join("game");
    write(
        &game.join("game.fr"),
        &format!("{GAME_HEAD}#law on go to e in * is \"rule.law\"\n"),
    );
    std::os::unix::fs::symlink(&secret, game.join("rule.law")).unwrap();
    let text = check(&game);
    assert!(text.contains("symbolic link takes it outside"), "{text}");
    assert!(!text.contains("first line of a secret"), "{text}");
    // game.fr itself linked outside the directory named.
    let other = scratch("file-link-main");
    std::os::unix::fs::symlink(&secret, other.join("game.fr")).unwrap();
    let opened = check_game(&DiskFs, &other, &CheckOptions::default());
    let message = opened.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(message.contains("symbolic link"), "{message}");
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&other);
}

#[test]
fn devices_are_not_read() {
    let e = read_regular_file(Path::new("/dev/zero")).unwrap_err();
    assert!(e.to_string().contains("not a regular file"), "{e}");
    // A board file linked to a device inside the game is refused before it is read.
    let dir = scratch("device");
    write(
        &dir.join("game.fr"),
        &format!("{GAME_HEAD}#board \"board.xml\" of e\n"),
    );
    std::os::unix::fs::symlink("/dev/zero", dir.join("board.xml")).unwrap();
    let text = check(&dir);
    assert!(text.contains("cannot read board file"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_fifo_does_not_hang_the_loader() {
    let dir = scratch("fifo");
    write(
        &dir.join("game.fr"),
        &format!("{GAME_HEAD}#law on go to e in * is \"rule.law\"\n"),
    );
    let fifo = dir.join("rule.law");
    let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path; mkfifo only creates a file.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let text = check(&dir);
    assert!(text.contains("not a regular file"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

fn repl(game: &Path) -> Repl {
    Repl::new(ReplOptions {
        tier: Default::default(),
        game: game.to_path_buf(),
        seed: 0,
        params: vec![],
        limits: Default::default(),
        rules: vec![],
        color: false,
    })
    .unwrap_or_else(|e| panic!("the game opens: {e}"))
}

#[test]
fn a_journal_cannot_run_commands_or_read_files_outside_the_game() {
    let dir = scratch("journal");
    let game = dir.join("game");
    write(&game.join("game.fr"), GAME_HEAD);
    let outside = dir.join("elsewhere.law");
    write(&outside, "(return)\n");
    let written = dir.join("written.journal");
    let journal = |body: &str| {
        format!(
            "flexrules journal 1\ngame {}\nseed 0\nbegin\n{body}\nend\ndigest 0000000000000000\n",
            game.display()
        )
    };
    const NOT_A_CHANGE: &str = "is not a change a journal can hold";
    const OUTSIDE: &str = "a journal may only name files in the game's directory";
    let cases = [
        (format!(" :save {}", written.display()), NOT_A_CHANGE),
        (
            format!("\t:load {}", dir.join("j0.journal").display()),
            NOT_A_CHANGE,
        ),
        (
            format!(":law on go to e in * is \"{}\"", outside.display()),
            OUTSIDE,
        ),
        (format!(":rules {}", outside.display()), OUTSIDE),
    ];
    let mut session = repl(&game);
    for (k, (body, why)) in cases.iter().enumerate() {
        let path = dir.join(format!("j{k}.journal"));
        write(&path, &journal(body));
        let reply = session.handle(&format!(":load {}", path.display())).text;
        assert!(
            reply.contains("the session is unchanged"),
            "{body}: {reply}"
        );
        assert!(reply.contains(why), "{body}: {reply}");
        assert!(!written.exists(), "{body} wrote a file");
    }
    // Typed by the user, the same law file is accepted.
    let reply = session
        .handle(&format!(
            ":law on go to e in * is \"{}\"",
            outside.display()
        ))
        .text;
    assert!(reply.contains("added"), "{reply}");
    let _ = std::fs::remove_dir_all(&dir);
}
