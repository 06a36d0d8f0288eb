//! Starting `flexrules serve` on a bundled game for the web-play tests.

use std::path::PathBuf;

use flexrules::repl::ReplOptions;
use flexrules::runtime::vm::Limits;
use flexrules::serve::{EdgeOptions, ServeOptions, Server};

/// A server for `game` (a path from the crate root) on a free loopback port, seed 0, with
/// the seats "0" and "1".
pub async fn serve(game: &str) -> Server {
    serve_with(game, &["0", "1"], &[])
        .await
        .expect("the server starts")
}

/// A server for `game` with these seats and seats played by agents (`--agent`).
#[allow(dead_code)] // not every test binary plays against the server
pub async fn serve_with(
    game: &str,
    seats: &[&str],
    agents: &[&str],
) -> Result<Server, flexrules::repl::OpenError> {
    serve_edge(game, seats, agents, EdgeOptions::default()).await
}

/// A server for `game` with these seats, agents and limits at its edge (origins,
/// timeouts, connection caps).
#[allow(dead_code)] // not every test binary sets the edge's limits
pub async fn serve_edge(
    game: &str,
    seats: &[&str],
    agents: &[&str],
    edge: EdgeOptions,
) -> Result<Server, flexrules::repl::OpenError> {
    serve_limits(game, seats, agents, edge, Limits::default()).await
}

/// [`serve_edge`] with these limits on each transaction.
#[allow(dead_code)] // not every test binary sets the limits
pub async fn serve_limits(
    game: &str,
    seats: &[&str],
    agents: &[&str],
    edge: EdgeOptions,
    limits: Limits,
) -> Result<Server, flexrules::repl::OpenError> {
    Server::start(ServeOptions {
        repl: ReplOptions {
            tier: Default::default(),
            game: PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(game),
            seed: 0,
            params: Vec::new(),
            limits,
            rules: Vec::new(),
            color: false,
        },
        port: 0,
        seats: seats.iter().map(|s| s.to_string()).collect(),
        agents: agents.iter().map(|s| s.to_string()).collect(),
        edge,
        store: None,
    })
    .await
}
