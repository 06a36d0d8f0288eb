//! The board in the REPL: `:board` draws the canvas as text, `:click` clicks a graphic.

use crate::runtime::canvas::View;
use crate::runtime::watch::Clicked;

use super::Repl;
use super::command::Command;

impl Repl {
    /// `:board on|off`: draw the board after every committed move, or stop.
    pub(super) fn board_after_moves(&mut self, on: bool) -> String {
        self.show_board = on;
        if on {
            "the board is shown after every committed move".into()
        } else {
            "the board is no longer shown after each move".into()
        }
    }

    /// `:board [<view>]`: the board in the public view or one player's.
    pub(super) fn board(&self, view: &str) -> String {
        if !self.play.session().has_representations() {
            return "error: the game has no #representation, so there is no board to draw".into();
        }
        let world = match &self.pending {
            Some(p) => &p.machine.world,
            None => self.play.session().world(),
        };
        let text = crate::repr::text::render(&world.canvas, &View::parse(view));
        if text.is_empty() {
            "(nothing is drawn)".into()
        } else {
            text
        }
    }

    /// The board after a committed move, when it is shown after each move.
    pub(super) fn board_after_move(&self) -> Option<String> {
        (self.show_board && !self.play.session().world().canvas.is_empty())
            .then(|| crate::repr::text::render(&self.play.session().world().canvas, &View::Public))
    }

    /// `:click <entity> <graphic>`: what the graphic's click hook says: a message to the
    /// representation (a transaction), or a signal answering the waiting transaction.
    pub(super) fn click(&mut self, owner: &str, id: &str) -> String {
        let click = Command::Click {
            owner: owner.to_string(),
            graphic: id.to_string(),
        };
        match self.session_clicked(owner, id) {
            Err(e) => format!("error: {e}"),
            Ok(Clicked::Emit { signal, tag }) => {
                let Some(p) = self.pending.as_mut() else {
                    return format!(
                        "error: clicking {owner}/{id} emits signal \"{signal}\", but no move waits for it"
                    );
                };
                if p.machine.waiting_for() != Some(signal) {
                    return format!(
                        "error: clicking {owner}/{id} emits signal \"{signal}\", but the move in progress does not wait for it"
                    );
                }
                if let Some(Err(refused)) = p.machine.wait().map(|w| w.check(&tag)) {
                    return format!("error: clicking {owner}/{id}: {refused}; nothing changed");
                }
                p.machine.signal(tag);
                p.commands.push(click);
                let stepping = p.stepping;
                self.advance(stepping)
            }
            Ok(Clicked::Notify { owner, message }) => {
                if self.pending.is_some() {
                    return "error: a move is in progress: answer it (:signal, or a click on what it waits for) or :abort it first".into();
                }
                match self.play.session_mut().begin_click(owner, &message) {
                    Ok(m) => self.run_machine(m, click, false),
                    Err(e) => format!("error: {e}"),
                }
            }
        }
    }

    fn session_clicked(&self, owner: &str, id: &str) -> Result<Clicked, String> {
        let world = match &self.pending {
            Some(p) => &p.machine.world,
            None => self.play.session().world(),
        };
        // Names never interned name no graphic: looking them up adds nothing to the
        // process-wide table of names (a served seat may click with any text).
        let get = crate::symbol::Symbol::get;
        let found = get(owner)
            .zip(get(id))
            .and_then(|(o, i)| Some((o, world.canvas.find(o, i)?)));
        match found.map(|(o, g)| (o, g.click.clone())) {
            None => Err(format!(
                "{owner} has no graphic \"{id}\" (:board shows the board)"
            )),
            Some((_, None)) => Err(format!("clicking {owner}/{id} does nothing")),
            Some((_, Some(crate::runtime::canvas::Click::Emit { signal, tag }))) => {
                Ok(Clicked::Emit { signal, tag })
            }
            Some((o, Some(crate::runtime::canvas::Click::Notify(m)))) => Ok(Clicked::Notify {
                owner: o,
                message: m,
            }),
        }
    }
}
