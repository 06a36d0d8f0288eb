//! Moves in a game with `#actions`: `:moves`, `:play`, `:why`, `:random`, the players the
//! REPL plays (`:agent`), the search's advice (`:hint`) and what a bidding system the
//! REPL follows says of a call (`:why`).

use std::sync::Arc;

use crate::play::agent::{Agent, RESAMPLE, TO_MOVE};
use crate::play::mcts::analyse;
use crate::play::playout::Chooser;
use crate::play::system::{self, Choice, Memory, Qualities, System};
use crate::runtime::moves::Verdict;

use super::Repl;
use super::command::{Command, Seats, Why};

/// The most moves the players the REPL plays make in a row.
pub(super) const MAX_AGENT_MOVES: usize = 10_000;

/// The moves a random playout of `:hint` plays at most before it counts as a draw.
pub(super) const HINT_MAX_PLIES: usize = 10_000;

impl Repl {
    /// `:moves`: the legal moves.
    pub(super) fn moves(&mut self) -> String {
        if self.play.session().game.actions.is_none() {
            return "this game has no #actions".into();
        }
        let tried = match self.play.session_mut().try_moves() {
            Ok(t) => t,
            Err(e) => {
                return format!(
                    "error: #actions failed:\n{}",
                    e.render(&self.sources, self.options.color).trim_end()
                );
            }
        };
        let mut out = if tried.legal.is_empty() {
            "no legal move".to_string()
        } else {
            tried
                .legal
                .iter()
                .map(|a| a.name.as_str())
                .collect::<Vec<_>>()
                .join(" ")
        };
        if !tried.failed.is_empty() {
            out.push('\n');
            out.push_str(
                tried
                    .render_failures(&self.sources, self.options.color)
                    .trim_end(),
            );
        }
        out
    }

    /// Moves played up to the current change (rule changes and sends are not moves).
    pub(super) fn moves_played(&self) -> usize {
        self.history.entries()[..self.history.cursor()]
            .iter()
            .filter(|e| matches!(e.commands.first(), Some(Command::Play { .. })))
            .count()
    }

    pub(super) fn play(&mut self, name: &str, stepping: bool) -> String {
        if self.play.session().game.actions.is_none() {
            return "this game has no #actions: send messages instead".into();
        }
        if name.is_empty() {
            return "usage: :play <name> (:moves lists them)".into();
        }
        let ply = self.moves_played() + 1;
        match self.play.session_mut().playable(name) {
            Ok(a) => {
                let m = self.play.session_mut().begin_deliver(
                    a.recipient,
                    (*a.message).clone(),
                    stepping,
                );
                let command = Command::Play {
                    name: name.to_string(),
                };
                self.run_machine(m, command, stepping)
            }
            Err(e) => format!(
                "error: {}",
                e.render(&self.sources, self.options.color, ply)
            ),
        }
    }

    /// `:why <move>`: why a move is legal or not, without playing it.
    pub(super) fn why(&mut self, why: Why) -> String {
        let name = match why {
            Why::Send { text } => return self.why_send(&text),
            Why::Move { name } => name,
        };
        let name = name.as_str();
        if self.play.session().game.actions.is_none() {
            return "this game has no #actions (`:why send <label> to <entity> ...` tries any message)".into();
        }
        if name.is_empty() {
            return "usage: :why <move> (:moves lists the legal ones)".into();
        }
        let explained = match self.play.session_mut().explain_candidates() {
            Ok(e) => e,
            Err(e) => {
                return format!(
                    "error: #actions failed:\n{}",
                    e.render(&self.sources, self.options.color).trim_end()
                );
            }
        };
        match explained.iter().find(|(a, _)| a.name == name) {
            Some((_, Verdict::Legal)) => format!("`{name}` is legal{}", self.system_says(name)),
            Some((_, v @ Verdict::Failed(_))) => {
                format!("`{name}` {}", v.render(&self.sources, self.options.color))
            }
            Some((_, v)) => format!("`{name}` is not legal: {}", v.summary()),
            None => {
                let names: Vec<&str> = explained.iter().map(|(a, _)| a.name.as_str()).collect();
                match crate::diagnostic::closest(name, names.iter().copied()) {
                    Some(c) => format!("`{name}` is not an action here; did you mean `{c}`?"),
                    None if names.is_empty() => {
                        format!("`{name}` is not an action here: #actions gives none")
                    }
                    None => format!(
                        "`{name}` is not an action here; the candidates: {}\n(#actions does not propose it; `:why send <label> to <entity> with ...` tries any message and names the law that refuses it)",
                        names.join(" ")
                    ),
                }
            }
        }
    }

    /// `:why send <label> to <entity> [with ...]`: what delivering that message would do
    /// now (a message `#actions` need not propose), without doing it.
    fn why_send(&mut self, text: &str) -> String {
        let (to, message) = match crate::runtime::outside::parse_send(text) {
            Ok(m) => m,
            Err(e) => return format!("error: {e}"),
        };
        if self.play.session().world().lookup(to).is_none() {
            return format!("error: no entity named \"{to}\" (:entities lists them)");
        }
        let action = crate::runtime::session::Action {
            name: format!("send {text}"),
            recipient: to,
            message: std::rc::Rc::new(message),
        };
        match self.play.session_mut().verdict(&action) {
            Verdict::Legal => format!("`send {text}` would commit"),
            v @ Verdict::Failed(_) => {
                format!(
                    "`send {text}` {}",
                    v.render(&self.sources, self.options.color)
                )
            }
            v => format!("`send {text}` would not commit: {}", v.summary()),
        }
    }

    /// `:agent [<player>=<agent> | <player>=off | off]`: the players the REPL plays.
    pub(super) fn agent(&mut self, seats: Seats) -> String {
        let list = |seats: &[(String, Agent)]| {
            if seats.is_empty() {
                "the REPL plays no player (:agent <player>=mcts lets it play one)".to_string()
            } else {
                let who: Vec<String> = seats.iter().map(|(p, a)| format!("{p} ({a})")).collect();
                format!("the REPL plays: {}", who.join(", "))
            }
        };
        let (player, agent) = match seats {
            Seats::List => return list(&self.seats),
            Seats::AllOff => {
                self.seats.clear();
                return list(&self.seats);
            }
            Seats::Set { player, agent } => (player, agent),
        };
        let player = crate::runtime::outside::parse_literal(&player).to_text();
        self.seats.retain(|(p, _)| *p != player);
        if let Some(agent) = agent {
            let agent = match Agent::parse(&agent) {
                Ok(a) => a,
                Err(e) => return format!("error: {e}"),
            };
            if let Err(e) = crate::play::agent::check_agent(&self.play, &agent) {
                return format!("error: {e}");
            }
            if let Err(e) = self.agents() {
                return format!("error: {e}");
            }
            if let Agent::System(s) = &agent {
                let names = Qualities::of(&mut self.play).names();
                if let Err(e) = s.system.check_qualities(&names) {
                    return format!("error: {e}");
                }
            }
            self.seats.push((player, agent));
        }
        // The player may be to move already.
        let answers = self.play_seats();
        if answers.is_empty() {
            list(&self.seats)
        } else {
            format!("{}\n{answers}", list(&self.seats))
        }
    }

    /// The agents a `:hint` searches with; why there is nothing to search (no `#actions`,
    /// the game over, no `to-move`), as the reply says it.
    fn hint_agents(&mut self) -> Result<crate::play::agent::Agents, String> {
        if self.play.session().game.actions.is_none() {
            return Err("this game has no #actions".into());
        }
        if self.play.finished() {
            return Err("the game is over".into());
        }
        self.agents().map_err(|e| format!("error: {e}"))
    }

    /// `:hint [<iterations>]`: the legal moves as Monte Carlo tree search sees them for
    /// the player to move, most visited (its choice) first. The search's random choices
    /// are seeded by the world's generator, so the same position gives the same answer.
    pub(super) fn hint(&mut self, iterations: u32) -> String {
        let agents = match self.hint_agents() {
            Ok(a) => a,
            Err(e) => return e,
        };
        if self.play.function_params(RESAMPLE).is_some() {
            return format!(
                "error: :hint searches with `mcts`, which sees the whole world, and this game hides things from its players (it defines `{RESAMPLE}`): the search would see them\n  hint: `:hint ismcts[:<iterations>] [<player>]` searches from what the player has seen"
            );
        }
        let player = match self.play.players_by(agents.to_move) {
            Ok(several) if several.len() > 1 => {
                return format!(
                    "players {} are to move at once: :hint searches for one player to move",
                    several.join(", ")
                );
            }
            Ok(p) => p.into_iter().next(),
            Err(e) => {
                return format!(
                    "error: ({TO_MOVE}) failed:\n{}",
                    e.render(&self.sources, self.options.color).trim_end()
                );
            }
        };
        let mut chooser = Chooser::new(self.play.random_state(), 0);
        let budget = (iterations, None);
        let scores = match analyse(
            &mut self.play,
            &agents,
            &mut chooser,
            budget,
            HINT_MAX_PLIES,
        ) {
            Ok(s) => s,
            Err((action, e)) => {
                let what = action.map_or("#actions".to_string(), |a| format!("`{a}`"));
                return format!(
                    "error: searching, {what} failed:\n{}",
                    e.render(&self.sources, self.options.color).trim_end()
                );
            }
        };
        if scores.is_empty() {
            return "no legal move".into();
        }
        let who = player.map_or("nobody in particular".to_string(), |p| format!("`{p}`"));
        score_table(
            format!("{who} to move; {iterations} iterations of Monte Carlo tree search"),
            &scores,
        )
    }

    /// `:hint ismcts[:<iterations>] [<player>]`: the legal moves of the player to move (or
    /// of `named`, one of several to move at once) as information-set Monte Carlo tree
    /// search sees them from what that player has seen, most visited (its choice) first.
    /// Seeded by the world's generator, as `:hint` is.
    pub(super) fn hint_ismcts(&mut self, iterations: u32, named: Option<String>) -> String {
        let agents = match self.hint_agents() {
            Ok(a) => a,
            Err(e) => return e,
        };
        let ismcts = Agent::Ismcts { iterations };
        if let Err(e) = crate::play::agent::check_agent(&self.play, &ismcts) {
            return format!("error: {e}");
        }
        let to_move = match self.play.players_by(agents.to_move) {
            Ok(p) => p,
            Err(e) => {
                return format!(
                    "error: ({TO_MOVE}) failed:\n{}",
                    e.render(&self.sources, self.options.color).trim_end()
                );
            }
        };
        let named = named.map(|p| crate::runtime::outside::parse_literal(&p).to_text());
        let player = match (named, to_move.as_slice()) {
            (None, []) => {
                return "nobody in particular is to move: ismcts searches for a player".into();
            }
            (None, [one]) => one.clone(),
            (None, several) => {
                return format!(
                    "players {} are to move at once: name the one to search for (:hint ismcts {})",
                    several.join(", "),
                    several[0]
                );
            }
            (Some(p), _) if to_move.contains(&p) => p,
            (Some(p), _) => {
                let who = if to_move.is_empty() {
                    "nobody in particular".to_string()
                } else {
                    to_move.join(", ")
                };
                return format!("error: player {p} is not to move (to move: {who})");
            }
        };
        let mut chooser = Chooser::new(self.play.random_state(), 0);
        let search = crate::play::ismcts::Search {
            iterations,
            determinize: true,
        };
        let scores = match crate::play::ismcts::analyse(
            &mut self.play,
            &agents,
            &player,
            &mut chooser,
            search,
            HINT_MAX_PLIES,
        ) {
            Ok(s) => s,
            Err((action, e)) => {
                let what = action.map_or(String::new(), |a| format!(", `{a}` failed"));
                return format!(
                    "error: searching{what}:\n{}",
                    e.render(&self.sources, self.options.color).trim_end()
                );
            }
        };
        if scores.is_empty() {
            return format!("no legal move for `{player}`");
        }
        score_table(
            format!(
                "`{player}` to move; {iterations} iterations of information-set Monte Carlo tree search, from what `{player}` has seen"
            ),
            &scores,
        )
    }

    pub(super) fn random(&mut self, n: usize) -> String {
        if self.play.session().game.actions.is_none() {
            return "this game has no #actions: send messages instead".into();
        }
        let mut out = Vec::new();
        for _ in 0..n {
            let tried = match self.play.session_mut().try_moves() {
                Ok(t) => t,
                Err(e) => {
                    out.push(format!(
                        "error: #actions failed:\n{}",
                        e.render(&self.sources, self.options.color).trim_end()
                    ));
                    break;
                }
            };
            if !tried.failed.is_empty() {
                out.push(
                    tried
                        .render_failures(&self.sources, self.options.color)
                        .trim_end()
                        .to_string(),
                );
                break;
            }
            let actions = tried.legal;
            if actions.is_empty() {
                out.push("no legal move".into());
                break;
            }
            self.random_state = self.random_state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.random_state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            let pick = ((z ^ (z >> 31)) % actions.len() as u64) as usize;
            let name = actions[pick].name.clone();
            let result = self.play(&name, false);
            out.push(format!("{name}: {result}"));
            if self.play.session().outcome().is_some() {
                break;
            }
        }
        out.join("\n")
    }
}

impl Repl {
    /// The bidding system of `player` among the players the REPL plays, else the first
    /// one any of them follows.
    fn system_for(&self, player: Option<&str>) -> Option<(String, Arc<System>)> {
        let systems = || {
            self.seats.iter().filter_map(|(p, a)| match a {
                Agent::System(s) => Some((p, s)),
                _ => None,
            })
        };
        let (_, s) = systems()
            .find(|(p, _)| Some(p.as_str()) == player)
            .or_else(|| systems().next())?;
        Some((s.path.clone(), s.system.clone()))
    }

    /// What the `set`s of `system` gave `player` on the way here: the system followed
    /// again at every earlier position of the history where `player` was to call (an
    /// auction on), as an agent following it all along would have. A position whose
    /// world the history let go is skipped.
    fn system_memory(&mut self, system: &System, qualities: &Qualities, player: &str) -> Memory {
        let mut memory = Memory::new();
        let Ok(agents) = self.agents() else {
            return memory;
        };
        let mut m = self.play.fork();
        for n in 0..self.history().cursor() {
            let Some(world) = self.history().world_after(n) else {
                continue;
            };
            m.set_position(world.clone());
            if m.player_by(agents.to_move).ok().flatten().as_deref() != Some(player) {
                continue;
            }
            let legal: Vec<String> = match m.legal_moves() {
                Ok(moves) => moves.into_iter().map(|mv| mv.name).collect(),
                Err(_) => continue,
            };
            if !legal.iter().any(|l| l == "Pass") {
                continue;
            }
            let mut legal_call =
                |_: &mut crate::api::Match, call: &str| legal.iter().any(|l| l == call);
            // A failing quality there fails here too, where it is reported.
            let _ = system::choose(
                &mut m,
                system,
                qualities,
                player,
                &mut memory,
                &mut legal_call,
            );
        }
        memory
    }

    /// The call `system` makes now for `player`, or with `only`, the first rule giving
    /// that call whose tests all hold; `None` when none does. What `set`s gave `player`
    /// earlier in the auction counts ([`Repl::system_memory`]).
    fn system_choice(
        &mut self,
        system: &System,
        player: &str,
        only: Option<&str>,
    ) -> Result<Option<Choice>, String> {
        let legal: Vec<String> = match self.legal_moves_with_players() {
            None => Vec::new(),
            Some(found) => found?.into_iter().map(|(name, _)| name).collect(),
        };
        let qualities = Qualities::of(&mut self.play);
        let mut memory = self.system_memory(system, &qualities, player);
        system::choose(
            &mut self.play,
            system,
            &qualities,
            player,
            &mut memory,
            &mut |_, call| only.is_none_or(|o| o == call) && legal.iter().any(|l| l == call),
        )
        .map_err(|e| e.render(&self.sources, false))
    }

    /// Whether a pass is among the legal moves (an auction is on).
    fn auction_on(&mut self) -> Result<bool, String> {
        Ok(match self.legal_moves_with_players() {
            None => false,
            Some(found) => found?.iter().any(|(name, _)| name == "Pass"),
        })
    }

    /// The call the bidding system of `player` makes now, by name (`Pass` when it gives
    /// none); a legal move at random when no call is to be made.
    pub fn system_move_of(
        &mut self,
        system: &System,
        player: &str,
    ) -> Result<Option<String>, String> {
        if !self.auction_on()? {
            return self.random_move_of(player);
        }
        let chosen = self.system_choice(system, player, None)?;
        Ok(Some(chosen.map_or("Pass".to_string(), |c| c.call)))
    }

    /// For `:why <call>` of a legal call, when the REPL follows a bidding system: the rule
    /// that gives it for the player to move (its tests and comments), or the call the
    /// system makes instead. Empty when no system is followed.
    fn system_says(&mut self, call: &str) -> String {
        let Ok(agents) = self.agents() else {
            return String::new();
        };
        let Ok(Some(player)) = self.play.player_by(agents.to_move) else {
            return String::new();
        };
        let Some((path, system)) = self.system_for(Some(&player)) else {
            return String::new();
        };
        if !self.auction_on().unwrap_or(false) {
            return String::new();
        }
        let shown = |c: &Choice| {
            let mut lines = vec![format!("  because: {}", c.path.join(" / "))];
            lines.extend(c.comments.iter().map(|t| format!("  comment: {t}")));
            lines.join("\n")
        };
        let chosen = match self.system_choice(&system, &player, None) {
            Ok(c) => c,
            Err(e) => return format!("\nthe bidding system {path} cannot say: {e}"),
        };
        match chosen {
            Some(c) if c.call == call => format!(
                "\nthe bidding system {path} makes it for {player}:\n{}",
                shown(&c)
            ),
            None if call == "Pass" => format!(
                "\nthe bidding system {path} passes for {player}: no rule whose tests hold gives a legal bid"
            ),
            other => {
                let instead = other.map_or("Pass (no rule holds)".to_string(), |c| c.call);
                match self.system_choice(&system, &player, Some(call)) {
                    Ok(Some(c)) => format!(
                        "\nthe bidding system {path} makes {instead} for {player} first; a later rule gives `{call}`:\n{}",
                        shown(&c)
                    ),
                    _ => format!(
                        "\nthe bidding system {path} makes {instead} for {player}; no rule whose tests hold gives `{call}`"
                    ),
                }
            }
        }
    }
}

/// A search's moves as `:hint` shows them: `heading`, then each move with its visits and
/// score.
fn score_table(heading: String, scores: &[crate::play::mcts::MoveScore]) -> String {
    let width = scores.iter().map(|s| s.name.len()).max().unwrap_or(0);
    let mut out = vec![format!("{heading} (score: 1 a win, 0.5 a draw, 0 a loss):")];
    for s in scores {
        out.push(format!(
            "  {:<width$}  visits {:>6}  score {:.2}",
            s.name, s.visits, s.score
        ));
    }
    out.join("\n")
}
