//! The terminal front end: rustyline with history, completion, multi-line input until the
//! parentheses balance, and highlighting. Ctrl-C cancels the line being typed, or
//! interrupts a running transaction (which then fails cleanly); Ctrl-D quits.

use std::borrow::Cow;
use std::cell::RefCell;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use rustyline::completion::{Completer, FilenameCompleter, Pair};
use rustyline::error::ReadlineError;
use rustyline::highlight::{CmdKind, Highlighter};
use rustyline::hint::Hinter;
use rustyline::validate::{ValidationContext, ValidationResult, Validator};
use rustyline::{Context, Editor, Helper};

use super::{Repl, input_complete};

/// Completion, validation and highlighting for the REPL.
pub struct ReplHelper {
    words: Rc<RefCell<Vec<String>>>,
    files: FilenameCompleter,
    color: bool,
}

impl Completer for ReplHelper {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        let before = &line[..pos];
        let takes_file = [":save ", ":load ", "is \""]
            .iter()
            .any(|p| before.contains(p));
        if takes_file {
            return self.files.complete(line, pos, ctx);
        }
        let start = before
            .rfind(|c: char| c.is_whitespace() || c == '(' || c == '"')
            .map_or(0, |i| i + 1);
        let word = &before[start..];
        let candidates = self
            .words
            .borrow()
            .iter()
            .filter(|w| w.starts_with(word))
            .map(|w| Pair {
                display: w.clone(),
                replacement: w.clone(),
            })
            .collect();
        Ok((start, candidates))
    }
}

impl Hinter for ReplHelper {
    type Hint = String;
}

impl Validator for ReplHelper {
    fn validate(&self, ctx: &mut ValidationContext<'_>) -> rustyline::Result<ValidationResult> {
        Ok(if input_complete(ctx.input()) {
            ValidationResult::Valid(None)
        } else {
            ValidationResult::Incomplete
        })
    }
}

impl Highlighter for ReplHelper {
    fn highlight<'l>(&self, line: &'l str, _pos: usize) -> Cow<'l, str> {
        if !self.color {
            return Cow::Borrowed(line);
        }
        Cow::Owned(highlight(line))
    }

    fn highlight_char(&self, _line: &str, _pos: usize, _kind: CmdKind) -> bool {
        self.color
    }
}

impl Helper for ReplHelper {}

/// Colour a line: commands, strings, numbers, comments and form names.
pub fn highlight(line: &str) -> String {
    const CMD: &str = "\x1b[1;36m";
    const STR: &str = "\x1b[32m";
    const NUM: &str = "\x1b[35m";
    const COMMENT: &str = "\x1b[2m";
    const FORM: &str = "\x1b[1;34m";
    const RESET: &str = "\x1b[0m";
    let mut out = String::with_capacity(line.len() + 16);
    let mut chars = line.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            ';' => {
                out.push_str(COMMENT);
                out.push_str(&line[i..]);
                out.push_str(RESET);
                return out;
            }
            '"' => {
                let mut end = line.len();
                let mut escaped = false;
                for (j, d) in chars.by_ref() {
                    if escaped {
                        escaped = false;
                    } else if d == '\\' {
                        escaped = true;
                    } else if d == '"' {
                        end = j + 1;
                        break;
                    }
                }
                out.push_str(STR);
                out.push_str(&line[i..end]);
                out.push_str(RESET);
            }
            c if c.is_alphanumeric() || c == ':' || c == '-' || c == '_' => {
                let mut end = i + c.len_utf8();
                while let Some(&(j, d)) = chars.peek() {
                    if d.is_alphanumeric() || "-_?!".contains(d) {
                        end = j + d.len_utf8();
                        chars.next();
                    } else {
                        break;
                    }
                }
                let word = &line[i..end];
                let color = if word.starts_with(':') {
                    Some(CMD)
                } else if word.parse::<f64>().is_ok() {
                    Some(NUM)
                } else if crate::compile::builtins::FORM_NAMES.contains(&word) || word == "send" {
                    Some(FORM)
                } else {
                    None
                };
                match color {
                    Some(col) => {
                        out.push_str(col);
                        out.push_str(word);
                        out.push_str(RESET);
                    }
                    None => out.push_str(word),
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// Where the input history is kept: `$XDG_DATA_HOME/flexrules/history`, else
/// `~/.local/share/flexrules/history`.
pub fn history_path() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_DATA_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))?;
    Some(base.join("flexrules").join("history"))
}

/// Run the REPL on the terminal until `:quit` or Ctrl-D.
pub fn run(repl: &mut Repl, color: bool) -> Result<(), String> {
    let interrupt = Arc::new(AtomicBool::new(false));
    {
        let flag = interrupt.clone();
        // Without the handler Ctrl-C during a long transaction would kill the process;
        // failing to install it only loses that convenience.
        let _ = ctrlc::set_handler(move || flag.store(true, std::sync::atomic::Ordering::Relaxed));
    }
    repl.set_interrupt(interrupt.clone());
    repl.set_show_board(true);
    let words = Rc::new(RefCell::new(repl.completions()));
    let mut editor: Editor<ReplHelper, rustyline::history::DefaultHistory> =
        Editor::new().map_err(|e| format!("cannot open the terminal: {e}"))?;
    editor.set_helper(Some(ReplHelper {
        words: words.clone(),
        files: FilenameCompleter::new(),
        color,
    }));
    let history = history_path();
    if let Some(h) = &history {
        let _ = editor.load_history(h);
    }
    println!("{}", repl.banner());
    loop {
        match editor.readline(repl.prompt()) {
            Ok(line) => {
                if !line.trim().is_empty() {
                    let _ = editor.add_history_entry(line.as_str());
                }
                interrupt.store(false, std::sync::atomic::Ordering::Relaxed);
                let reply = repl.handle(&line);
                if !reply.text.is_empty() {
                    println!("{}", reply.text);
                }
                *words.borrow_mut() = repl.completions();
                if reply.quit {
                    break;
                }
            }
            Err(ReadlineError::Interrupted) => continue,
            Err(ReadlineError::Eof) => break,
            Err(e) => return Err(format!("terminal error: {e}")),
        }
    }
    if let Some(h) = &history {
        if let Some(dir) = h.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        let _ = editor.save_history(h);
    }
    Ok(())
}
