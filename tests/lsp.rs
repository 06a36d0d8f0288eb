//! The language server, driven as an editor drives it (over an in-memory connection):
//! diagnostics published as documents open and change (in the file that has the problem,
//! cleared when it is fixed), rules files checked against their game, hover, go to
//! definition and completion; and over standard input and output, the frames a client
//! may not send (too large, malformed header, a body that is not JSON) refused.

use std::path::{Path, PathBuf};
use std::time::Duration;

use lsp_server::{Connection, Message, Notification, Request, RequestId};
use lsp_types::{Position, PublishDiagnosticsParams, Url};
use serde_json::{Value, json};

struct Client {
    conn: Connection,
    server: Option<std::thread::JoinHandle<()>>,
    next: i32,
}

impl Client {
    fn start() -> Client {
        let (server, client) = Connection::memory();
        let handle = std::thread::spawn(move || {
            flexrules::lsp::serve(server).expect("the server ends cleanly");
        });
        let mut c = Client {
            conn: client,
            server: Some(handle),
            next: 0,
        };
        let init = c.request("initialize", json!({"capabilities": {}}));
        assert!(
            init["capabilities"]["hoverProvider"].as_bool() == Some(true),
            "{init}"
        );
        c.notify("initialized", json!({}));
        c
    }

    fn notify(&self, method: &str, params: Value) {
        self.conn
            .sender
            .send(Message::Notification(Notification::new(
                method.into(),
                params,
            )))
            .expect("send");
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = RequestId::from(self.next);
        self.conn
            .sender
            .send(Message::Request(Request::new(
                id.clone(),
                method.into(),
                params,
            )))
            .expect("send");
        loop {
            match self.receive() {
                Message::Response(r) if r.id == id => {
                    assert!(r.error.is_none(), "{method}: {:?}", r.error);
                    return r.result.unwrap_or(Value::Null);
                }
                _ => {}
            }
        }
    }

    fn receive(&self) -> Message {
        self.conn
            .receiver
            .recv_timeout(Duration::from_secs(30))
            .expect("the server answers")
    }

    /// The diagnostics published next, by file name, until one for `until` arrives.
    fn diagnostics_until(&self, until: &Path) -> Vec<(PathBuf, Vec<lsp_types::Diagnostic>)> {
        let mut out = Vec::new();
        loop {
            if let Message::Notification(n) = self.receive()
                && n.method == "textDocument/publishDiagnostics"
            {
                let p: PublishDiagnosticsParams =
                    serde_json::from_value(n.params).expect("diagnostics");
                let path = p.uri.to_file_path().expect("a file");
                let done = path == until;
                out.push((path, p.diagnostics));
                if done {
                    return out;
                }
            }
        }
    }

    fn open(&self, path: &Path, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri(path), "languageId": "flexrules", "version": 1, "text": text}}),
        );
    }

    fn change(&self, path: &Path, version: i32, text: &str) {
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri(path), "version": version}, "contentChanges": [{"text": text}]}),
        );
    }

    fn at(&mut self, method: &str, path: &Path, line: u32, character: u32) -> Value {
        self.request(
            method,
            json!({"textDocument": {"uri": uri(path)}, "position": Position::new(line, character)}),
        )
    }

    fn stop(mut self) {
        self.request("shutdown", Value::Null);
        self.notify("exit", Value::Null);
        self.server
            .take()
            .expect("running")
            .join()
            .expect("no panic");
    }
}

fn uri(path: &Path) -> String {
    Url::from_file_path(path).expect("absolute").to_string()
}

/// A game in a fresh directory: a `game.fr` binding a law file and a variant beside it.
fn game_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("flexrules-lsp-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("laws")).expect("mkdir");
    std::fs::create_dir_all(dir.join("variants")).expect("mkdir");
    std::fs::write(dir.join("game.fr"), GAME).expect("write");
    std::fs::write(dir.join("laws/only-small.law"), LAW).expect("write");
    std::fs::write(dir.join("variants/big.fr"), VARIANT).expect("write");
    dir
}

const GAME: &str = r#"; A counter.
#entity counter
  #property n 0
  #state default
    #onMessage add
      (update property "n" to (plus-one (property "n")))

; One more than x.
#define plus-one (x) (+ x 1)

#instance c of counter
#law "Only Small" on add to counter in default is "laws/only-small.law"
"#;

const LAW: &str = "(if (> (property \"n\") 9) (return))\n";

const VARIANT: &str = r#"#law "Bigger" on add to counter in default replaces "Only Small" is
  (if (> (property "n") 99) (return))
"#;

#[test]
fn diagnostics_follow_the_text_and_land_in_the_right_file() {
    let dir = game_dir("diagnostics");
    let game = dir.join("game.fr");
    let law = dir.join("laws/only-small.law");
    let c = Client::start();
    c.open(&law, LAW);
    let published = c.diagnostics_until(&law);
    assert!(
        published.iter().all(|(_, d)| d.is_empty()),
        "a clean game: {published:?}"
    );
    // A misspelt function in the law, as typed (not saved): reported in the law's file, at
    // the name, with the checker's code and hint.
    let typo = "(if (> (proprety \"n\") 9) (return))\n";
    c.change(&law, 2, typo);
    let published = c.diagnostics_until(&law);
    let (_, found) = published.iter().find(|(p, _)| *p == law).expect("the law");
    assert_eq!(found.len(), 1, "{found:?}");
    let d = &found[0];
    assert_eq!(d.range.start, Position::new(0, 8));
    assert_eq!(d.range.end, Position::new(0, 16));
    assert_eq!(
        d.code,
        Some(lsp_types::NumberOrString::String("unknown-function".into()))
    );
    assert!(d.message.contains("property"), "{}", d.message);
    assert!(
        published.iter().any(|(p, d)| *p == game && d.is_empty()),
        "the game's own file is published clean: {published:?}"
    );
    // Fixed: cleared.
    c.change(&law, 3, LAW);
    let published = c.diagnostics_until(&law);
    assert!(published.iter().all(|(_, d)| d.is_empty()), "{published:?}");
    // The game file, opened with an error of its own, unsaved.
    c.open(&game, &GAME.replace("(+ x 1)", "(+ x 1"));
    let published = c.diagnostics_until(&game);
    let (_, found) = published.iter().find(|(p, _)| *p == game).expect("game.fr");
    assert!(!found.is_empty(), "an unclosed parenthesis");
    c.stop();
}

#[test]
fn a_rules_file_is_checked_against_its_game() {
    let dir = game_dir("rules");
    let variant = dir.join("variants/big.fr");
    let c = Client::start();
    c.open(&variant, VARIANT);
    let published = c.diagnostics_until(&variant);
    assert!(published.iter().all(|(_, d)| d.is_empty()), "{published:?}");
    // Replacing a law the game does not have is an error of the rules file.
    c.change(&variant, 2, &VARIANT.replace("Only Small", "Only Smal"));
    let published = c.diagnostics_until(&variant);
    let (_, found) = published
        .iter()
        .find(|(p, _)| *p == variant)
        .expect("the variant");
    assert!(
        found
            .iter()
            .any(|d| d.code == Some(lsp_types::NumberOrString::String("unknown-advice".into()))),
        "{found:?}"
    );
    c.stop();
}

#[test]
fn hover_definition_and_completion() {
    let dir = game_dir("navigation");
    let game = dir.join("game.fr");
    let mut c = Client::start();
    c.open(&game, GAME);
    c.diagnostics_until(&game);
    // Line 5: `      (update property "n" to (plus-one (property "n")))`.
    let hover = c.at("textDocument/hover", &game, 5, 38);
    let text = hover["contents"]["value"].as_str().expect("markdown");
    assert!(text.contains("(plus-one x)"), "{text}");
    assert!(text.contains("One more than x."), "{text}");
    // A builtin: its usage.
    let line = GAME.lines().nth(8).expect("the define");
    let plus = line.find("(+").expect("+") as u32 + 1;
    let hover = c.at("textDocument/hover", &game, 8, plus);
    let text = hover["contents"]["value"].as_str().expect("markdown");
    assert!(text.contains("(+ <number> ...)"), "{text}");
    // A label: what handles it and what is bound to it. A property: who declares it.
    let hover = c.at("textDocument/hover", &game, 4, 17);
    let text = hover["contents"]["value"].as_str().expect("markdown");
    assert!(text.contains("`counter` in state `default`"), "{text}");
    assert!(text.contains("law \"Only Small\" on `counter`"), "{text}");
    let line = GAME.lines().nth(5).expect("the behaviour");
    let n = line.find("\"n\"").expect("n") as u32 + 1;
    let hover = c.at("textDocument/hover", &game, 5, n);
    let text = hover["contents"]["value"].as_str().expect("markdown");
    assert!(
        text.contains("property `n` of:\n- `counter`: default `0`"),
        "{text}"
    );
    // Go to the define from its call, and to the law's file from its path.
    let def = c.at("textDocument/definition", &game, 5, 38);
    assert_eq!(def["range"]["start"]["line"], 8);
    assert_eq!(def["uri"], uri(&game));
    let line = GAME.lines().nth(11).expect("the law");
    let col = line.find("laws/").expect("path") as u32 + 3;
    let def = c.at("textDocument/definition", &game, 11, col);
    assert_eq!(def["uri"], uri(&dir.join("laws/only-small.law")));
    // Completion offers builtins, the game's functions and its entity types.
    let items = c.at("textDocument/completion", &game, 5, 10);
    let labels: Vec<&str> = items
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(|i| i["label"].as_str())
        .collect();
    for want in ["plus-one", "counter", "contains"] {
        assert!(labels.contains(&want), "{want} missing");
    }
    // The outline: the entity type with its state and behaviour, the function, the
    // instance and the law, in file order.
    let outline = c.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri(&game)}}),
    );
    let names: Vec<&str> = outline
        .as_array()
        .expect("symbols")
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert_eq!(names, ["counter", "plus-one", "c", "Only Small"]);
    assert_eq!(outline[0]["children"][0]["name"], "default");
    assert_eq!(outline[0]["children"][0]["children"][0]["name"], "add");
    assert_eq!(outline[1]["detail"], "(x)");
    assert_eq!(outline[1]["selectionRange"]["start"]["line"], 8);
    // Nothing to say about a space, past the end of the text, or in a document not open.
    assert_eq!(c.at("textDocument/hover", &game, 6, 0), Value::Null);
    assert_eq!(c.at("textDocument/hover", &game, 9999, 9999), Value::Null);
    assert_eq!(
        c.at("textDocument/definition", &dir.join("nowhere.fr"), 0, 0),
        Value::Null
    );
    // A document that is no file, and a request the server does not know, change nothing.
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": "untitled:Untitled-1", "languageId": "flexrules", "version": 1, "text": "(("}}),
    );
    c.next += 1;
    let id = RequestId::from(c.next);
    c.conn
        .sender
        .send(Message::Request(Request::new(
            id.clone(),
            "flexrules/unknown".into(),
            json!({}),
        )))
        .expect("send");
    loop {
        if let Message::Response(r) = c.receive()
            && r.id == id
        {
            assert!(r.error.is_some(), "an unknown request is an error");
            break;
        }
    }
    let hover = c.at("textDocument/hover", &game, 5, 38);
    assert!(
        hover["contents"]["value"].is_string(),
        "still serving: {hover}"
    );
    c.stop();
}

// ---------------------------------------------------------------------------------------
// `flexrules lsp` over standard input and output, fed frames a client may not send.

/// One frame of `body`.
fn frame(body: &str) -> Vec<u8> {
    format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

/// The frames of a session: initialize, then `middle`, then (when `finish`) a hover
/// request with id 2, shutdown (id 3) and exit.
fn session(middle: &[u8], finish: bool) -> Vec<u8> {
    let mut input =
        frame(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}"#);
    input.extend(frame(
        r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#,
    ));
    input.extend_from_slice(middle);
    if finish {
        input.extend(frame(
            r#"{"jsonrpc":"2.0","id":2,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///nowhere/game.fr"},"position":{"line":0,"character":0}}}"#,
        ));
        input.extend(frame(r#"{"jsonrpc":"2.0","id":3,"method":"shutdown"}"#));
        input.extend(frame(r#"{"jsonrpc":"2.0","method":"exit"}"#));
    }
    input
}

/// Run `flexrules lsp` on `input`: its exit code, the bodies it wrote (JSON) and its
/// standard error.
fn lsp_stdio(input: Vec<u8>) -> (Option<i32>, Vec<Value>, String) {
    use std::io::Write as _;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_flexrules"))
        .arg("lsp")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("flexrules lsp starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().expect("flexrules lsp ends");
    writer.join().expect("the input is written");
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    let mut bodies = Vec::new();
    let mut rest = text.as_str();
    while let Some((header, after)) = rest.split_once("\r\n\r\n") {
        let n: usize = header
            .trim_start_matches("Content-Length: ")
            .parse()
            .unwrap_or_else(|_| panic!("a header: {header:?}"));
        bodies.push(serde_json::from_str(&after[..n]).expect("a JSON body"));
        rest = &after[n..];
    }
    (
        out.status.code(),
        bodies,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The response with `id`, among `bodies`.
fn response(bodies: &[Value], id: Value) -> &Value {
    bodies
        .iter()
        .find(|b| b["id"] == id && (b.get("result").is_some() || b.get("error").is_some()))
        .unwrap_or_else(|| panic!("no response {id} in {bodies:?}"))
}

#[test]
fn a_body_that_is_not_json_gets_a_parse_error_and_serving_goes_on() {
    let (code, bodies, stderr) = lsp_stdio(session(&frame("{\"jsonrpc\": \"2.0\", "), true));
    assert_eq!(code, Some(0), "{stderr}");
    let error = response(&bodies, Value::Null);
    assert_eq!(error["error"]["code"], -32700, "{error}");
    assert!(
        error["error"]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("Parse error")),
        "{error}"
    );
    assert!(
        stderr.contains("refused a message: Parse error"),
        "{stderr}"
    );
    // Still serving: the hover and the shutdown are answered.
    assert_eq!(response(&bodies, json!(2))["result"], Value::Null);
    assert!(response(&bodies, json!(3)).get("error").is_none());
}

#[test]
fn json_that_is_no_message_gets_an_invalid_request_error() {
    // (`{"id": 7}` alone is a response, which the server ignores.)
    let (code, bodies, stderr) = lsp_stdio(session(&frame(r#"{"method": 5}"#), true));
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(response(&bodies, Value::Null)["error"]["code"], -32600);
    assert!(
        stderr.contains("refused a message: Invalid Request"),
        "{stderr}"
    );
    assert!(response(&bodies, json!(3)).get("error").is_none());
}

#[test]
fn a_body_over_64_mb_is_skipped_and_serving_goes_on() {
    let size = flexrules::lsp::frames::MAX_BODY_BYTES as usize + 1;
    let mut middle = format!("Content-Length: {size}\r\n\r\n").into_bytes();
    middle.resize(middle.len() + size, b' ');
    let (code, bodies, stderr) = lsp_stdio(session(&middle, true));
    assert_eq!(code, Some(0), "{stderr}");
    let error = response(&bodies, Value::Null);
    assert_eq!(error["error"]["code"], -32600, "{error}");
    assert!(
        stderr.contains(&format!(
            "a message of {size} bytes, more than the 64 MB a message may have: it was skipped"
        )),
        "{stderr}"
    );
    assert_eq!(response(&bodies, json!(2))["result"], Value::Null);
}

#[test]
fn a_content_length_of_two_to_the_64_minus_one_neither_panics_nor_allocates() {
    let middle = b"Content-Length: 18446744073709551615\r\n\r\n{}".to_vec();
    let (code, bodies, stderr) = lsp_stdio(session(&middle, false));
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        response(&bodies, json!(1))["result"]["capabilities"].is_object(),
        "initialize was answered"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(
        stderr.contains("a message of 18446744073709551615 bytes, more than the 64 MB")
            && stderr.contains("the stream ended inside it"),
        "{stderr}"
    );
}

#[test]
fn a_content_length_of_ten_to_the_eleven_does_not_abort() {
    let middle = b"Content-Length: 100000000000\r\n\r\n{\"jsonrpc\":\"2.0\"}".to_vec();
    let (code, _, stderr) = lsp_stdio(session(&middle, false));
    assert_eq!(code, Some(1), "{stderr}");
    assert!(!stderr.contains("memory allocation"), "{stderr}");
    assert!(
        stderr.contains("a message of 100000000000 bytes"),
        "{stderr}"
    );
}

#[test]
fn a_malformed_header_closes_the_server_with_an_error() {
    for (header, says) in [
        (
            "Content-Length: lots\r\n\r\n",
            "Content-Length `lots` is not a number of bytes",
        ),
        ("Content-Type: x\r\n\r\n{}", "no Content-Length"),
        ("Content-Length 12\r\n\r\n", "expected `Name: value`"),
    ] {
        let (code, bodies, stderr) = lsp_stdio(session(header.as_bytes(), true));
        assert_eq!(code, Some(1), "{header:?}: {stderr}");
        assert!(
            stderr.contains("the client's stream cannot be read on: malformed header")
                && stderr.contains(says),
            "{header:?}: {stderr}"
        );
        // What came before was served.
        assert!(response(&bodies, json!(1))["result"].is_object());
    }
    let long = format!("X-Padding: {}\r\n", "x".repeat(10_000));
    let (code, _, stderr) = lsp_stdio(session(long.as_bytes(), true));
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("a line longer than 8192 bytes"), "{stderr}");
}
