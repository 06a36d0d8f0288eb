//! Saved sessions: the game, seed and parameters, then every input line that changed the
//! world, then a digest of the world it reached.
//!
//! ```text
//! flexrules journal 1
//! game games/mini-awele
//! seed 0
//! param seeds-per-hole=4
//! begin
//! send startSeeding to hole2
//! (print "a"
//! ... "b")
//! :law "No Sixes" on startSeeding to hole in * is (if (= (property "seeds") 6) (return))
//! end
//! digest 5f0c2a1b9d3e4f60
//! ```

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The first line of every journal.
pub const MAGIC: &str = "flexrules journal 1";

/// A journal read from a file.
#[derive(Clone, Debug, PartialEq)]
pub struct Journal {
    /// The game's path as given when it was opened.
    pub game: PathBuf,
    /// The seed.
    pub seed: u64,
    /// `--param` overrides, as `name=value`.
    pub params: Vec<String>,
    /// `--rules` files, in order.
    pub rules: Vec<PathBuf>,
    /// The input lines to replay.
    pub lines: Vec<String>,
    /// The digest of the world they reached.
    pub digest: u64,
}

impl Journal {
    /// The text of the journal.
    pub fn to_text(&self) -> String {
        let mut s = format!(
            "{MAGIC}\ngame {}\nseed {}\n",
            self.game.display(),
            self.seed
        );
        for p in &self.params {
            let _ = writeln!(s, "param {p}");
        }
        for r in &self.rules {
            let _ = writeln!(s, "rules {}", r.display());
        }
        s.push_str("begin\n");
        for l in &self.lines {
            // A multi-line input goes on lines starting with "... ".
            let _ = writeln!(s, "{}", l.replace('\n', "\n... "));
        }
        let _ = write!(s, "end\ndigest {:016x}\n", self.digest);
        s
    }

    /// Read a journal; the error says which line is wrong and why.
    pub fn parse(text: &str) -> Result<Journal, String> {
        let mut lines = text.lines().enumerate();
        let bad = |n: usize, why: &str| format!("line {}: {why}", n + 1);
        match lines.next() {
            Some((_, MAGIC)) => {}
            _ => {
                return Err(format!(
                    "line 1: not a flexrules journal (expected `{MAGIC}`)"
                ));
            }
        }
        let mut game = None;
        let mut seed = 0;
        let mut params = Vec::new();
        let mut rules = Vec::new();
        loop {
            let Some((n, line)) = lines.next() else {
                return Err("the journal ends before `begin`".into());
            };
            match line.split_once(' ') {
                Some(("game", p)) => game = Some(PathBuf::from(p)),
                Some(("seed", v)) => {
                    seed = v
                        .parse()
                        .map_err(|_| bad(n, "the seed is not a whole number"))?;
                }
                Some(("param", p)) if p.contains('=') => params.push(p.to_string()),
                Some(("rules", r)) => rules.push(PathBuf::from(r)),
                _ if line == "begin" => break,
                _ => return Err(bad(n, &format!("unexpected `{line}` in the header"))),
            }
        }
        let mut body: Vec<String> = Vec::new();
        loop {
            let Some((_, line)) = lines.next() else {
                return Err("the journal ends before `end`: it was cut short".into());
            };
            if line == "end" {
                break;
            }
            match (line.strip_prefix("... "), body.last_mut()) {
                (Some(more), Some(last)) => {
                    last.push('\n');
                    last.push_str(more);
                }
                _ => body.push(line.to_string()),
            }
        }
        let digest = match lines.next() {
            Some((n, line)) => {
                let hex = line
                    .strip_prefix("digest ")
                    .ok_or_else(|| bad(n, "expected `digest <hex>` after `end`"))?;
                u64::from_str_radix(hex.trim(), 16)
                    .map_err(|_| bad(n, "the digest is not a hexadecimal number"))?
            }
            None => return Err("the journal has no digest after `end`: it was cut short".into()),
        };
        if let Some((n, line)) = lines.find(|(_, l)| !l.trim().is_empty()) {
            return Err(bad(
                n,
                &format!("unexpected `{line}` after the digest: the journal ends there"),
            ));
        }
        let game = game.ok_or("the journal does not name its game (`game <path>`)")?;
        Ok(Journal {
            game,
            seed,
            params,
            rules,
            lines: body,
            digest,
        })
    }
}

/// Write `text` to `path` atomically: a temporary file of its own beside it (two sessions
/// saving to the same path never share one), then a rename. A temporary file is removed
/// when anything fails, and ones left by a save that was killed are removed by the next
/// save to the same path.
pub fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write as _;
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a file name"))?;
    let prefix = format!(".{name}.tmp-");
    remove_stale(&dir, &prefix);
    let pid = std::process::id();
    let (tmp, mut file) = loop {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let tmp = dir.join(format!("{prefix}{pid}-{n}"));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
        {
            Ok(f) => break (tmp, f),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    };
    let written = file
        .write_all(text.as_bytes())
        .and_then(|()| file.sync_all());
    drop(file);
    written
        .and_then(|()| std::fs::rename(&tmp, path))
        .inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })
}

/// Remove temporary files `<prefix><pid>-<n>` in `dir` whose process is gone (a save that
/// was killed). Only where running processes can be told (`/proc`).
fn remove_stale(dir: &Path, prefix: &str) {
    let proc = Path::new("/proc/self");
    if !proc.exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(prefix)) else {
            continue;
        };
        let Some(pid) = rest.split('-').next().and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        if !Path::new("/proc").join(pid.to_string()).exists() {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

pub use crate::runtime::digest::digest;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn journals_round_trip() {
        let j = Journal {
            game: "games/x".into(),
            seed: 3,
            params: vec!["a=1".into()],
            rules: vec!["variants/x.fr".into()],
            lines: vec!["send go to e".into(), "(+ 1\n  2)".into()],
            digest: 0xabc,
        };
        assert_eq!(Journal::parse(&j.to_text()), Ok(j));
    }

    #[test]
    fn truncated_journals_are_refused() {
        let j = Journal {
            game: "g".into(),
            seed: 0,
            params: vec![],
            rules: vec![],
            lines: vec!["send a to b".into()],
            digest: 1,
        };
        let text = j.to_text();
        let cut = &text[..text.len() - 25];
        assert!(Journal::parse(cut).unwrap_err().contains("cut short"));
        assert!(
            Journal::parse("hello")
                .unwrap_err()
                .contains("not a flexrules journal")
        );
        let garbage = format!("{text}send go to x\n");
        assert!(
            Journal::parse(&garbage)
                .unwrap_err()
                .contains("after the digest")
        );
        assert!(Journal::parse(&format!("{text}\n\n")).is_ok());
    }

    #[test]
    fn saves_leave_no_temporary_files() {
        let dir = std::env::temp_dir().join(format!("flexrules-save-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("j.journal");
        // A leftover of a killed save (no process has id u32::MAX on Linux).
        let stale = dir.join(format!(".j.journal.tmp-{}-0", u32::MAX));
        std::fs::write(&stale, "partial").unwrap();
        write_atomically(&path, "one").unwrap();
        write_atomically(&path, "two").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "two");
        let left: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, ["j.journal"]);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
