//! `serve --store DIR`: the table kept on disk, so that a restart (or `kill -9`) loses no
//! game. Two files in DIR, both created with mode 0600 (they hold the seats' secrets):
//!
//! - `table.json`, the setup, written once (a temporary file, synced, renamed into place):
//!   the game (its canonical path), seed, parameters, rules files, the limits of a
//!   transaction and of the history, and the seats with their tokens and agents.
//! - `table.log`, the changes, append-only: one JSON object a line, for every REPL command
//!   the table ran that changed the game, in order, each synced (`fdatasync`) before its
//!   reply is sent:
//!
//! ```text
//! {"n":1,"by":{"seat":0},"h":1,"c":":play E5"}
//! {"n":2,"by":{"server":1},"h":2,"c":":play D4"}
//! {"n":3,"by":{"server":null},"h":1,"c":":undo"}
//! {"n":4,"by":{"table":0},"h":2,"c":":undo"}
//! ```
//!
//! `n` numbers the changes, `by` says who made it (a seat's request, or the server: a seat
//! it plays, or its take-back of that seat's answer), `h` is the history's cursor after it
//! (checked on replay), `c` the command as the REPL reads it; a move a seat the server plays
//! chose is the concrete `:play` it made, so replay does not search again.
//!
//! Not `src/repl/journal.rs`: a journal is a whole file (its `end` and digest come after
//! the last line) rewritten on each save, holds only the lines of the current line of play
//! (no undo, redo or goto) and no seats; an append-only log is what a sync per change needs.
//! A last line without its newline is a write a crash cut short: it is dropped (with a
//! warning, and cut from the file); any other line that does not read is an error.

use std::fs::{File, OpenOptions};
use std::io::Write as _;
use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::repl::ReplOptions;
use crate::repl::command::Command;

use super::table::Seat;

/// The setup's file in the store's directory.
pub const SETUP: &str = "table.json";
/// The log of changes in the store's directory.
pub const LOG: &str = "table.log";
/// The setup's `format`.
const FORMAT: &str = "flexrules table 1";

/// Who made a change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum By {
    /// A seat's request.
    Seat(usize),
    /// The server: the move of the seat it plays, or (`None`) taking back such a move.
    Server(Option<usize>),
    /// A seat's proposal that every other seat accepted (house rules by agreement).
    Table(usize),
}

/// A change read back from the log.
pub struct Record {
    /// The command that made it.
    pub command: Command,
    /// Who made it.
    pub by: By,
    /// The history's cursor after it.
    pub cursor: usize,
    /// The command's text, its line number and the log's path, to say which line fails.
    text: String,
    line: usize,
    path: PathBuf,
}

impl Record {
    /// Why this change does not replay: it did nothing (the game answered `reply`), or
    /// reached another point of the history (`cursor`).
    pub fn refusal(&self, reply: &str, cursor: Option<usize>) -> String {
        let why = match cursor {
            None => format!("the game refuses it now:\n{reply}"),
            Some(c) => format!(
                "it leads to change {c} of the history where it led to change {}",
                self.cursor
            ),
        };
        format!(
            "the store's log {}, line {} (`{}`), does not replay: {why}\n(the game's files have changed since it was recorded? serve the store with the game as it was, or start another --store)",
            self.path.display(),
            self.line,
            self.text.lines().next().unwrap_or_default()
        )
    }
}

/// The setup as stored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Setup {
    format: String,
    game: PathBuf,
    seed: u64,
    params: Vec<String>,
    rules: Vec<PathBuf>,
    max_steps: u64,
    max_depth: usize,
    max_nesting: usize,
    max_length: usize,
    max_memory: u64,
    max_history_memory: u64,
    seats: Vec<StoredSeat>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StoredSeat {
    player: String,
    token: String,
    agent: Option<String>,
}

/// One line of the log.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    n: usize,
    by: By,
    h: usize,
    c: String,
}

/// A store opened: where to append, and the changes to replay.
pub struct Opened {
    /// The log, open for appending.
    pub store: Store,
    /// The changes recorded, to replay before serving.
    pub records: Vec<Record>,
    /// The store was made now (nothing was in the directory).
    pub created: bool,
}

/// The log of a table, open for appending (and locked: one server per store).
pub struct Store {
    file: File,
    path: PathBuf,
    /// Changes recorded so far.
    count: usize,
}

impl Store {
    /// Record a change and sync it to disk. A store that cannot be written stops the
    /// server: a change it acknowledged would otherwise be lost by the next restart.
    pub fn record(&mut self, command: &str, by: By, cursor: usize) {
        self.count += 1;
        let line = Line {
            n: self.count,
            by,
            h: cursor,
            c: command.to_string(),
        };
        let mut text = serde_json::to_string(&line).unwrap_or_default();
        text.push('\n');
        let written = self
            .file
            .write_all(text.as_bytes())
            .and_then(|()| self.file.sync_data());
        if let Err(e) = written {
            eprintln!(
                "error: cannot write the store's log {}: {e}\nthe server stops, so that no change is acknowledged that is not stored; serve the store again to resume from its last change",
                self.path.display()
            );
            std::process::exit(1);
        }
    }
}

/// Open the store in `dir` for a table of `options` and `seats`, making it when the
/// directory holds none. When it holds one, the command line must describe the same table
/// (game, seed, parameters, rules, limits, seats and agents); the seats then take the
/// stored tokens, so their links stay the same.
pub fn open(dir: &Path, options: &ReplOptions, seats: &mut [Seat]) -> Result<Opened, String> {
    let setup_path = dir.join(SETUP);
    let log_path = dir.join(LOG);
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| format!("cannot make the store's directory {}: {e}", dir.display()))?;
    let wanted = setup_of(options, seats)?;
    let created = !setup_path.exists();
    if created {
        if std::fs::metadata(&log_path).is_ok_and(|m| m.len() > 0) {
            return Err(format!(
                "the store {} has a log ({LOG}) but no setup ({SETUP}): it is not a store this server made whole; move it away or start another --store",
                dir.display()
            ));
        }
        let mut text = serde_json::to_string_pretty(&wanted).unwrap_or_default();
        text.push('\n');
        write_new(&setup_path, &text).map_err(|e| {
            format!(
                "cannot write the store's setup {}: {e}",
                setup_path.display()
            )
        })?;
    } else {
        let text = std::fs::read_to_string(&setup_path).map_err(|e| {
            format!(
                "cannot read the store's setup {}: {e}",
                setup_path.display()
            )
        })?;
        let stored: Setup = serde_json::from_str(&text).map_err(|e| {
            format!(
                "the store's setup {} does not read: {e}",
                setup_path.display()
            )
        })?;
        if stored.format != FORMAT {
            return Err(format!(
                "the store's setup {} is of format `{}`; this server reads `{FORMAT}`",
                setup_path.display(),
                stored.format
            ));
        }
        let differences = differences(&stored, &wanted);
        if !differences.is_empty() {
            return Err(format!(
                "the store {} holds another table: {}\nserve it with the options it was made with (they are in {}), or start another --store",
                dir.display(),
                differences.join("; "),
                setup_path.display()
            ));
        }
        for (seat, kept) in seats.iter_mut().zip(&stored.seats) {
            seat.token.clone_from(&kept.token);
        }
    }
    let mut file = OpenOptions::new()
        .read(true)
        .append(true)
        .create(true)
        .mode(0o600)
        .open(&log_path)
        .map_err(|e| format!("cannot open the store's log {}: {e}", log_path.display()))?;
    if !lock(&file) {
        return Err(format!(
            "the store's log {} is in use by another server: one server per store",
            log_path.display()
        ));
    }
    let records = read_log(&mut file, &log_path, seats.len())?;
    sync_dir(dir);
    Ok(Opened {
        store: Store {
            file,
            path: log_path,
            count: records.len(),
        },
        records,
        created,
    })
}

/// Remove a store just made (its table did not open), so that it is not refused later.
pub fn remove_new(dir: &Path) {
    let _ = std::fs::remove_file(dir.join(LOG));
    let _ = std::fs::remove_file(dir.join(SETUP));
    let _ = std::fs::remove_dir(dir);
}

/// The setup the command line describes.
fn setup_of(options: &ReplOptions, seats: &[Seat]) -> Result<Setup, String> {
    let canonical = |p: &Path| {
        std::fs::canonicalize(p).map_err(|e| format!("cannot find {}: {e}", p.display()))
    };
    Ok(Setup {
        format: FORMAT.into(),
        game: canonical(&options.game)?,
        seed: options.seed,
        params: options.params.clone(),
        rules: options
            .rules
            .iter()
            .map(|r| canonical(r))
            .collect::<Result<_, _>>()?,
        max_steps: options.limits.max_steps,
        max_depth: options.limits.max_depth,
        max_nesting: options.limits.max_nesting,
        max_length: options.limits.max_length,
        max_memory: options.limits.max_memory,
        max_history_memory: crate::repl::history::default_budget(),
        seats: seats
            .iter()
            .map(|s| StoredSeat {
                player: s.player.clone(),
                token: s.token.clone(),
                agent: s.agent.as_ref().map(|a| a.to_string()),
            })
            .collect(),
    })
}

/// What differs between the stored setup and the command line's, but for the tokens.
fn differences(stored: &Setup, wanted: &Setup) -> Vec<String> {
    let mut out = Vec::new();
    let mut differ = |what: &str, there: String, here: String| {
        if there != here {
            out.push(format!("{what} {there} there, {here} here"));
        }
    };
    let list = |v: &[String]| {
        if v.is_empty() {
            "(none)".to_string()
        } else {
            v.join(",")
        }
    };
    let paths = |v: &[PathBuf]| {
        list(
            &v.iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>(),
        )
    };
    differ(
        "game",
        stored.game.display().to_string(),
        wanted.game.display().to_string(),
    );
    differ("seed", stored.seed.to_string(), wanted.seed.to_string());
    differ("--param", list(&stored.params), list(&wanted.params));
    differ("--rules", paths(&stored.rules), paths(&wanted.rules));
    let limits = |s: &Setup| {
        format!(
            "{}/{}/{}/{}/{}/{}",
            s.max_steps,
            s.max_depth,
            s.max_nesting,
            s.max_length,
            s.max_memory,
            s.max_history_memory
        )
    };
    differ(
        "limits (steps/depth/nesting/length/memory/history memory)",
        limits(stored),
        limits(wanted),
    );
    let players = |s: &Setup| list(&s.seats.iter().map(|x| x.player.clone()).collect::<Vec<_>>());
    differ("--seats", players(stored), players(wanted));
    let agents = |s: &Setup| {
        list(
            &s.seats
                .iter()
                .filter_map(|x| Some(format!("{}={}", x.player, x.agent.as_ref()?)))
                .collect::<Vec<_>>(),
        )
    };
    differ("--agent", agents(stored), agents(wanted));
    out
}

/// Read the log's changes. A last line without its newline (a write a crash cut short) is
/// dropped with a warning and cut from the file, so appends go on after the last whole
/// line; any other line that does not read is an error naming it.
fn read_log(file: &mut File, path: &Path, seats: usize) -> Result<Vec<Record>, String> {
    use std::io::Read as _;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read the store's log {}: {e}", path.display()))?;
    let whole = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    if whole < bytes.len() {
        eprintln!(
            "warning: the store's log {} ends in a line cut short ({} bytes, a write a crash interrupted): it is dropped; its change was never acknowledged",
            path.display(),
            bytes.len() - whole
        );
        file.set_len(whole as u64)
            .and_then(|()| file.sync_data())
            .map_err(|e| format!("cannot cut the store's log {}: {e}", path.display()))?;
    }
    let text = std::str::from_utf8(&bytes[..whole]).map_err(|e| {
        let line = bytes[..e.valid_up_to()]
            .iter()
            .filter(|b| **b == b'\n')
            .count()
            + 1;
        format!(
            "the store's log {}, line {line}, is not UTF-8 text: the store is damaged",
            path.display()
        )
    })?;
    let mut records = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let bad = |why: String| {
            format!(
                "the store's log {}, line {n}, {why}: the store is damaged",
                path.display()
            )
        };
        let line: Line =
            serde_json::from_str(raw).map_err(|e| bad(format!("does not read ({e})")))?;
        if line.n != n {
            return Err(bad(format!(
                "is numbered {} (changes go 1, 2, 3, ...)",
                line.n
            )));
        }
        if let By::Seat(s) | By::Server(Some(s)) | By::Table(s) = line.by
            && s >= seats
        {
            return Err(bad(format!("names seat {s}; the table has {seats}")));
        }
        let command = Command::parse(&line.c).map_err(|e| bad(format!("`{}`: {e}", line.c)))?;
        if !matches!(
            command,
            Command::Play { .. }
                | Command::Click { .. }
                | Command::Signal { .. }
                | Command::Undo
                | Command::Redo
                | Command::Goto(_)
                | Command::Law { .. }
                | Command::SideEffect { .. }
                | Command::Disable { .. }
                | Command::Enable { .. }
                | Command::Remove { .. }
                | Command::Rules { .. }
        ) {
            return Err(bad(format!(
                "holds `{}`, which is not a change the server makes",
                line.c
            )));
        }
        records.push(Record {
            command,
            by: line.by,
            cursor: line.h,
            text: line.c,
            line: n,
            path: path.to_path_buf(),
        });
    }
    Ok(records)
}

/// Write a new file of mode 0600 atomically: a temporary file beside it, synced, renamed
/// into place, the directory synced.
fn write_new(path: &Path, text: &str) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let tmp = dir.join(format!(".{SETUP}.tmp-{}", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    let written = (|| {
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&tmp)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    sync_dir(dir);
    written
}

/// Take the exclusive lock of `file` without waiting (it goes with the file, or with the
/// process when killed): whether it was taken.
fn lock(file: &File) -> bool {
    use std::os::fd::AsRawFd as _;
    // SAFETY: `flock` only reads the descriptor, which `file` keeps open for the call.
    unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) == 0 }
}

/// Sync a directory, so that the files made or renamed in it stay after a crash.
fn sync_dir(dir: &Path) {
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}
