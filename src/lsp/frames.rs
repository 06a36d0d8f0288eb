//! The language server's transport over standard input and output: the client's messages
//! read from a byte stream within bounds, and the server's written back.
//!
//! Each message comes as a frame: header lines (`Content-Length: N`, ended by `\r\n`), an
//! empty line, then a body of N bytes of JSON. What a client sends is not trusted:
//!
//! - a body larger than [`MAX_BODY_BYTES`] is never held: it is read and thrown away,
//!   the error is written on standard error and answered with a JSON-RPC error (`-32600`,
//!   id `null`), and serving goes on with the next frame;
//! - a body that is not JSON is answered with a `-32700` Parse error (id `null`), one that
//!   is JSON but not a request, response or notification with `-32600` (Invalid Request);
//!   serving goes on;
//! - a header that cannot be read (a line longer than [`MAX_HEADER_LINE_BYTES`], more than
//!   [`MAX_HEADER_LINES`] lines, a line not ended by `\r\n`, no `Content-Length` or one that
//!   is not a number) leaves no way to find where the next frame starts: the error is
//!   written on standard error and the server closes, as when the stream ends.

use std::io::{BufRead, Read, Write};

use lsp_server::{Connection, Message};
use serde_json::json;

/// The largest message body the server reads (64 MB).
pub const MAX_BODY_BYTES: u64 = 64 << 20;
/// The longest header line the server reads.
pub const MAX_HEADER_LINE_BYTES: u64 = 8 << 10;
/// The most header lines one frame may have.
pub const MAX_HEADER_LINES: usize = 32;

/// One frame read.
pub enum Frame {
    /// A message to serve.
    Message(Message),
    /// A frame refused: what to write on standard error and the error response to send.
    Refused {
        /// The error, for standard error.
        why: String,
        /// The JSON-RPC error response.
        reply: serde_json::Value,
    },
}

/// An error response to a message whose id is not known.
fn error_reply(code: i32, message: String, id: serde_json::Value) -> serde_json::Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// Read the next frame of `input`: `Ok(None)` when the stream ends between frames, an
/// error (the stream cannot be read on) when a header is malformed or the stream ends
/// inside a frame.
pub fn read_frame(input: &mut impl BufRead) -> Result<Option<Frame>, String> {
    let mut length: Option<u64> = None;
    let mut lines = 0;
    loop {
        let mut line = Vec::new();
        input
            .by_ref()
            .take(MAX_HEADER_LINE_BYTES)
            .read_until(b'\n', &mut line)
            .map_err(|e| format!("cannot read the client's stream: {e}"))?;
        if line.is_empty() {
            return if lines == 0 {
                Ok(None)
            } else {
                Err("the stream ended inside a header".into())
            };
        }
        if !line.ends_with(b"\n") {
            return Err(if line.len() as u64 >= MAX_HEADER_LINE_BYTES {
                format!("malformed header: a line longer than {MAX_HEADER_LINE_BYTES} bytes")
            } else {
                "the stream ended inside a header".into()
            });
        }
        let Some(text) = line
            .strip_suffix(b"\r\n")
            .and_then(|l| std::str::from_utf8(l).ok())
        else {
            return Err(format!(
                "malformed header line {:?}: a header line is UTF-8 text ended by \\r\\n",
                String::from_utf8_lossy(&line)
            ));
        };
        if text.is_empty() {
            break;
        }
        lines += 1;
        if lines > MAX_HEADER_LINES {
            return Err(format!(
                "malformed header: more than {MAX_HEADER_LINES} lines"
            ));
        }
        let Some((name, value)) = text.split_once(": ") else {
            return Err(format!(
                "malformed header line {text:?}: expected `Name: value`"
            ));
        };
        if name.eq_ignore_ascii_case("Content-Length") {
            length = Some(value.trim().parse::<u64>().map_err(|_| {
                format!("malformed header: Content-Length `{value}` is not a number of bytes")
            })?);
        }
    }
    let Some(length) = length else {
        return Err("malformed header: no Content-Length".into());
    };
    if length > MAX_BODY_BYTES {
        let skipped = std::io::copy(&mut input.by_ref().take(length), &mut std::io::sink())
            .map_err(|e| format!("cannot read the client's stream: {e}"))?;
        let why = format!(
            "a message of {length} bytes, more than the {} MB a message may have: it was skipped",
            MAX_BODY_BYTES >> 20
        );
        if skipped < length {
            return Err(format!("{why}, and the stream ended inside it"));
        }
        let reply = error_reply(-32600, why.clone(), serde_json::Value::Null);
        return Ok(Some(Frame::Refused { why, reply }));
    }
    let mut body = Vec::new();
    input
        .by_ref()
        .take(length)
        .read_to_end(&mut body)
        .map_err(|e| format!("cannot read the client's stream: {e}"))?;
    if (body.len() as u64) < length {
        return Err(format!(
            "the stream ended inside a message body ({} of {length} bytes)",
            body.len()
        ));
    }
    let value: serde_json::Value = match serde_json::from_slice(&body) {
        Ok(v) => v,
        Err(e) => {
            let why = format!("Parse error: the message is not valid JSON ({e})");
            let reply = error_reply(-32700, why.clone(), serde_json::Value::Null);
            return Ok(Some(Frame::Refused { why, reply }));
        }
    };
    let id = match value.get("id") {
        Some(id @ (serde_json::Value::Number(_) | serde_json::Value::String(_))) => id.clone(),
        _ => serde_json::Value::Null,
    };
    match serde_json::from_value::<Message>(value) {
        Ok(message) => Ok(Some(Frame::Message(message))),
        Err(e) => {
            let why = format!(
                "Invalid Request: the message is not a request, response or notification ({e})"
            );
            let reply = error_reply(-32600, why.clone(), id);
            Ok(Some(Frame::Refused { why, reply }))
        }
    }
}

/// Write `text` as one frame.
fn write_frame(output: &mut impl Write, text: &str) -> std::io::Result<()> {
    write!(output, "Content-Length: {}\r\n\r\n{text}", text.len())?;
    output.flush()
}

/// Read the frames of standard input and `send` each message to the server (false when
/// it no longer listens) until the stream ends, the client says `exit` or a header cannot
/// be read (the error returned). Refused frames are told on standard error and answered
/// on standard output.
fn read_stdin(send: impl Fn(Message) -> bool) -> Result<(), String> {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    loop {
        match read_frame(&mut input)? {
            None => return Ok(()),
            Some(Frame::Message(message)) => {
                let exit = matches!(&message, Message::Notification(n) if n.method == "exit");
                if !send(message) || exit {
                    return Ok(());
                }
            }
            Some(Frame::Refused { why, reply }) => {
                eprintln!("flexrules lsp: refused a message: {why}");
                let mut out = std::io::stdout().lock();
                write_frame(&mut out, &reply.to_string())
                    .map_err(|e| format!("cannot write to the client: {e}"))?;
            }
        }
    }
}

/// Serve on standard input and output with `serve`: the frames read by [`read_frame`],
/// the server's messages written one frame each. An error when a header could not be
/// read, after serving what came before it.
pub fn run(
    serve: impl FnOnce(Connection) -> Result<(), super::ServerError>,
) -> Result<(), super::ServerError> {
    let (server, client) = Connection::memory();
    let Connection {
        sender: to_server,
        receiver: from_server,
    } = client;
    let writer = std::thread::spawn(move || -> std::io::Result<()> {
        for message in from_server {
            let mut out = std::io::stdout().lock();
            message.write(&mut out)?;
        }
        Ok(())
    });
    let reader = std::thread::spawn(move || read_stdin(move |m| to_server.send(m).is_ok()));
    serve(server)?;
    writer
        .join()
        .map_err(|_| "the thread writing to the client panicked")??;
    // The reader has stopped: on `exit`, or at the end of the stream, which ended `serve`.
    match reader.join() {
        Ok(Err(e)) => Err(format!("the client's stream cannot be read on: {e}").into()),
        Ok(Ok(())) => Ok(()),
        Err(_) => Err("the thread reading from the client panicked".into()),
    }
}
