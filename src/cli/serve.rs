//! `flexrules serve`.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::repl::ReplOptions;
use crate::serve::{EdgeOptions, ServeOptions, Server};

/// Arguments of `flexrules serve`.
#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// The game: a directory holding game.fr, or a .fr file (default: the bundled Awele).
    pub game: Option<PathBuf>,
    /// The port to listen on, on 127.0.0.1 only (0 picks a free one).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// The players' ids, one seat each, separated by commas (default: one seat for each
    /// player the game's function `players` lists at the start, else 0,1).
    #[arg(long, value_delimiter = ',')]
    pub seats: Vec<String>,
    /// A seat the server plays itself, as <player>=<agent>: `mcts[:<iterations>[:<depth>]]`
    /// (Monte Carlo tree search, as `playout --agent`), `ismcts[:<iterations>]` (the search
    /// for games that hide things) or `random` (repeatable). Play against
    /// the computer: --agent 1=mcts:1000. Needs the game's `to-move`.
    #[arg(long = "agent", value_name = "PLAYER=AGENT")]
    pub agents: Vec<String>,
    /// The origin of the page as browsers see it when the server is behind a proxy, as
    /// scheme://host[:port] (https://games.example.org); repeatable. Pages from it may open
    /// WebSockets, and its host is accepted in the Host header, besides the server's own
    /// address (127.0.0.1, localhost or [::1] with the port).
    #[arg(long = "public-origin", value_name = "URL")]
    pub public_origins: Vec<String>,
    /// The most seconds one request's transaction (with the moves of the seats the server
    /// plays) may run; past it, it is interrupted and the game left as it was.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0,
          value_parser = parse_deadline)]
    pub deadline: f64,
    /// How to start it.
    #[command(flatten)]
    pub start: super::game::StartOptions,
    /// Bytes the positions each table keeps for undo may take; past it the oldest are
    /// let go, and a move that alone takes more is refused.
    #[arg(long, default_value_t = crate::repl::history::DEFAULT_BUDGET)]
    pub max_history_memory: u64,
    /// Keep the table in this directory: its setup and every change, synced to disk before
    /// the change is answered. Started again on the same directory, the server resumes the
    /// game with the same seat links (the command line must describe the same table).
    #[arg(long, value_name = "DIR")]
    pub store: Option<PathBuf>,
}

/// A deadline in seconds: a finite number from 0.01 to a day.
fn parse_deadline(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if (0.01..=86_400.0).contains(&s) => Ok(s),
        _ => Err(format!(
            "`{text}` is not a number of seconds from 0.01 to 86400"
        )),
    }
}

/// Run `flexrules serve` until the process is stopped.
pub fn run(args: &ServeArgs) -> ExitCode {
    // Every table's REPL starts with this budget.
    crate::repl::history::set_default_budget(args.max_history_memory);
    let options = ServeOptions {
        repl: ReplOptions {
            tier: args.start.tier,
            game: args.game.clone().unwrap_or_else(super::repl::default_game),
            seed: args.start.seed,
            params: args.start.params.clone(),
            limits: args.start.limits(),
            rules: args.start.rules.clone(),
            color: false,
        },
        port: args.port,
        seats: args.seats.clone(),
        agents: args.agents.clone(),
        edge: EdgeOptions {
            public_origins: args.public_origins.clone(),
            deadline: std::time::Duration::from_secs_f64(args.deadline),
            ..EdgeOptions::default()
        },
        store: args.store.clone(),
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: cannot start the server's runtime: {e}");
            return ExitCode::from(1);
        }
    };
    runtime.block_on(async {
        let server = match Server::start(options).await {
            Ok(s) => s,
            Err(e) => {
                eprintln!("{e}");
                return ExitCode::from(if e.usage { 2 } else { 1 });
            }
        };
        println!(
            "serving {} on http://{} (Ctrl-C stops)",
            args.game
                .clone()
                .unwrap_or_else(super::repl::default_game)
                .display(),
            server.addr
        );
        if let Some(dir) = &args.store {
            println!(
                "table kept in {} (synced at every change), at version {}",
                dir.display(),
                server.version()
            );
        }
        for (n, player) in server.players().iter().enumerate() {
            if let Some(agent) = server.seat_agent(n) {
                println!("player {player}: played by the server ({agent})");
            } else if let Some(link) = server.seat_link(n) {
                println!("player {player}: {link}");
            }
        }
        println!("watchers: {}", server.watcher_link());
        println!("(a seat link is a secret: whoever has it plays that seat)");
        server.run().await;
        ExitCode::SUCCESS
    })
}
