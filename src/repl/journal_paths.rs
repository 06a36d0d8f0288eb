//! Where a journal's game and rules files are: written as absolute paths, so a journal can
//! be loaded from any directory, and read back as absolute, relative to the journal file,
//! or (journals written before paths were made absolute) relative to the current directory.

use std::path::{Path, PathBuf};

/// `path` as an absolute path: canonical when it exists, else joined to the current
/// directory.
pub fn absolute(path: &Path) -> PathBuf {
    if let Ok(p) = std::fs::canonicalize(path) {
        return p;
    }
    match std::env::current_dir() {
        Ok(dir) if path.is_relative() => dir.join(path),
        _ => path.to_path_buf(),
    }
}

/// The file a journal at `journal` means by `recorded`: an absolute path as it is; a
/// relative one beside the journal file when something is there, else as it is (relative
/// to the current directory).
pub fn resolve(journal: &Path, recorded: &Path) -> PathBuf {
    if recorded.is_absolute() {
        return recorded.to_path_buf();
    }
    let beside = journal
        .parent()
        .map_or_else(|| recorded.to_path_buf(), |dir| dir.join(recorded));
    if beside.exists() {
        beside
    } else {
        recorded.to_path_buf()
    }
}

/// Whether `a` and `b` are the same game: the same file once made absolute, a directory
/// standing for its `game.fr`.
pub fn same_game(a: &Path, b: &Path) -> bool {
    let file = |p: &Path| {
        let p = absolute(p);
        if p.is_dir() { p.join("game.fr") } else { p }
    };
    file(a) == file(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_are_read_beside_the_journal_first() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let journal = root.join("tests/inputs/journals/tic-tac-toe.journal");
        assert_eq!(
            resolve(&journal, Path::new("../tic-tac-toe")),
            root.join("tests/inputs/journals/../tic-tac-toe")
        );
        // Nothing beside the journal: the path as written (older journals).
        assert_eq!(
            resolve(&journal, Path::new("games/awele")),
            PathBuf::from("games/awele")
        );
        assert_eq!(resolve(&journal, root), root.to_path_buf());
        assert!(absolute(Path::new("Cargo.toml")).is_absolute());
        assert!(same_game(
            &root.join("games/awele"),
            &root.join("games/awele/game.fr")
        ));
        assert!(!same_game(
            &root.join("games/awele"),
            &root.join("games/go")
        ));
    }
}
