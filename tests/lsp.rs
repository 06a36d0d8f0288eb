//! The language server, driven as an editor drives it (over an in-memory connection):
//! diagnostics published as documents open and change (in the file that has the problem,
//! cleared when it is fixed), rules files checked against their game, hover, go to
//! definition and completion.

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
