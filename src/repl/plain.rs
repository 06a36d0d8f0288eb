//! The plain front end: lines from any reader, replies to any writer. Used when standard
//! input is not a terminal, so sessions can be piped and tested.

use std::io::{BufRead, Write};

use super::{Repl, input_complete};

/// Run `repl` over `input`, writing each prompt and input line (so transcripts read like a
/// session) and each reply to `output`. Stops at the end of input or `:quit`.
pub fn run(repl: &mut Repl, input: impl BufRead, output: &mut impl Write) -> std::io::Result<()> {
    writeln!(output, "{}", repl.banner())?;
    let mut pending = String::new();
    for line in input.lines() {
        let line = line?;
        if pending.is_empty() {
            writeln!(output, "{}{line}", repl.prompt())?;
        } else {
            writeln!(output, "... {line}")?;
        }
        if !pending.is_empty() {
            pending.push('\n');
        }
        pending.push_str(&line);
        if !input_complete(&pending) {
            continue;
        }
        let reply = repl.handle(&pending);
        pending.clear();
        if !reply.text.is_empty() {
            writeln!(output, "{}", reply.text)?;
        }
        if reply.quit {
            return Ok(());
        }
    }
    if !pending.is_empty() {
        writeln!(
            output,
            "error: the input ended inside an unclosed expression"
        )?;
    }
    Ok(())
}
