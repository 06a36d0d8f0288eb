//! The commands that only look: `:entities`, `:show`, `:advice`, `:laws`, `:profile`
//! and `:disasm`.

use std::fmt::Write as _;

use crate::compile::program::AdviceTarget;
use crate::runtime::world::AdviceEntry;
use crate::symbol::Symbol;
use crate::syntax::ast::AdviceKind;

use super::Repl;

impl Repl {
    /// `:entities`: each entity with its type and state.
    pub(super) fn entities(&self) -> String {
        let game = self.game();
        let world = self.world();
        let mut out = String::new();
        for (_, e) in world.iter() {
            let _ = writeln!(out, "{}  {}  ({})", e.name, game.ty(e.ty).name, e.state);
        }
        out.trim_end().to_string()
    }

    /// The world being looked at: the pending transaction's, else the session's.
    pub(super) fn world(&self) -> &crate::runtime::world::World {
        match &self.pending {
            Some(p) => &p.machine.world,
            None => self.play.session().world(),
        }
    }

    /// `:show <entity>`: its type, state, properties and the advice that can reach it.
    pub(super) fn show(&self, name: &str) -> String {
        let game = self.game();
        let world = self.world();
        let Some(id) = world.lookup(Symbol::intern(name.trim_matches('"'))) else {
            return format!("error: no entity named \"{name}\" (:entities lists them)");
        };
        let Some(e) = world.entity(id) else {
            return format!("error: no entity named \"{name}\"");
        };
        let mut out = format!("{}: {}, state {}\n", e.name, game.ty(e.ty).name, e.state);
        for (p, v) in e.properties(game) {
            let _ = writeln!(out, "  {p} = {v}");
        }
        let reaching: Vec<&AdviceEntry> = world
            .advice
            .entries
            .iter()
            .filter(|a| match a.advice.target {
                AdviceTarget::Type(t) => game.is_a(e.ty, t),
                AdviceTarget::Instance(n) => n == e.name,
            })
            .collect();
        if !reaching.is_empty() {
            out.push_str("advice that can reach it:\n");
            for a in reaching {
                out.push_str(&format!("  {}\n", self.advice_line(a)));
            }
        }
        out.trim_end().to_string()
    }

    pub(super) fn advice_line(&self, a: &AdviceEntry) -> String {
        let game = self.game();
        let adv = &a.advice;
        let kind = match adv.kind {
            AdviceKind::Law => "law",
            AdviceKind::SideEffect => "side-effect",
        };
        let target = match adv.target {
            AdviceTarget::Type(t) => game.ty(t).name,
            AdviceTarget::Instance(n) => n,
        };
        let pat = |p: Option<Symbol>| p.map_or("*".to_string(), |s| s.as_str().to_string());
        format!(
            "{kind} \"{}\" on {} to {target} in {} is {}{}",
            adv.name,
            pat(adv.label),
            pat(adv.state),
            adv.source,
            if a.enabled { "" } else { "  (disabled)" }
        )
    }

    /// `:advice <entity> <label> <state>`: the laws and side-effects that run when `label`
    /// reaches `entity` in `state`, with the behaviour between them.
    pub(super) fn advice(&self, entity: &str, label: &str, state: &str) -> String {
        let game = self.game();
        let world = self.world();
        let Some(e) = world
            .lookup(Symbol::intern(entity))
            .and_then(|id| world.entity(id))
        else {
            return format!("error: no entity named \"{entity}\"");
        };
        let (label, state) = (Symbol::intern(label), Symbol::intern(state));
        let chain = world.advice.chain(game, e.ty, e.name, state, label);
        let mut out = format!("{label} to {} in {state}:\n", e.name);
        for (i, law) in chain.laws.iter().enumerate() {
            let _ = writeln!(out, "  {}. law {} ({})", i + 1, law.name, law.source);
        }
        match game.ty(e.ty).behaviours.get(&(state, label)) {
            Some(code) => {
                let _ = writeln!(out, "  -> {}", game.code(*code).name);
            }
            None => {
                let _ = writeln!(out, "  -> no behaviour: the message is ignored");
            }
        }
        for (i, se) in chain.side_effects.iter().enumerate() {
            let _ = writeln!(out, "  {}. side-effect {} ({})", i + 1, se.name, se.source);
        }
        out.trim_end().to_string()
    }

    /// `:laws`: every law and side-effect in force.
    pub(super) fn laws(&self) -> String {
        let entries = &self.world().advice.entries;
        if entries.is_empty() {
            return "no laws or side-effects".into();
        }
        entries
            .iter()
            .enumerate()
            .map(|(i, a)| format!("{:>3}. {}", i + 1, self.advice_line(a)))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// `:profile [on|off]`: start counting the steps of the user's transactions by body
    /// (from zero), stop, or show the counts.
    pub(super) fn profile_command(&mut self, on: Option<bool>) -> String {
        match (on, &self.profile) {
            (Some(true), _) => {
                self.profile = Some(Default::default());
                "profile on: the steps of each transaction from now on are counted by body; :profile shows them".into()
            }
            (Some(false), _) => {
                self.profile = None;
                "profile off".into()
            }
            (None, None) => {
                "profile is off; usage: :profile on|off, and :profile to show the counts".into()
            }
            (None, Some(p)) if p.total() == 0 => {
                "no step counted yet: the counts start with the next transaction".into()
            }
            (None, Some(p)) => format!(
                "{}{}",
                p.table(&self.play.session().game, usize::MAX),
                p.transactions().line()
            )
            .trim_end()
            .to_string(),
        }
    }

    /// `:disasm <name>`: the listing of the bodies whose name contains `name`.
    pub(super) fn disasm(&self, name: &str) -> String {
        let runs = |code| self.profile.as_ref().map_or(&[][..], |p| p.runs(code));
        let counted = self.profile.is_some();
        let listed = crate::compile::listing::listing(
            &self.play.session().game,
            &self.sources,
            &[name.into()],
            counted.then_some(&runs as &dyn Fn(_) -> _),
        );
        match listed {
            Some(text) if counted => format!(
                "(after the steps: how many times each instruction ran since :profile on)\n{}",
                text.trim_end()
            ),
            Some(text) => text.trim_end().to_string(),
            None => format!(
                "no body's name contains \"{name}\" (bodies are named as :profile shows them: law Knight Moves, function add-targets, behaviour game/default/endOfTurn)"
            ),
        }
    }
}
