//! Counts of the instructions the machine dispatches, by kind and by pair of consecutive
//! kinds: what the instruction loop spends its dispatches on, and which sequences are worth
//! a fused instruction. Built into the machine only with the `op-stats` feature (`cargo
//! run --release --features op-stats -- perft games/chess 3`); every command then prints
//! the counts on standard error when it ends. Counting takes a lock per instruction: the
//! counts are exact, the timings of such a build mean nothing.

use std::collections::HashMap;
use std::fmt::Write as _;

use crate::compile::builtins::BUILTINS;
use crate::compile::bytecode::Op;

/// Dispatches by kind of instruction and by pair of consecutive kinds.
#[derive(Default, Debug)]
pub struct OpStats {
    kinds: HashMap<String, u64>,
    pairs: HashMap<(String, String), u64>,
}

/// An instruction's kind as counted: its variant, and for a builtin call the builtin
/// (`Builtin contains`), for a form the form (`Form UpdateProperty`).
pub fn kind(op: &Op) -> String {
    match *op {
        Op::Builtin(i, _) => format!(
            "Builtin {}",
            BUILTINS.get(i as usize).map_or("?", |b| b.name)
        ),
        Op::Form(form, _) => format!("Form {form:?}"),
        ref other => {
            let text = format!("{other:?}");
            let end = text
                .find(|c: char| !c.is_ascii_alphanumeric())
                .unwrap_or(text.len());
            text[..end].to_string()
        }
    }
}

impl OpStats {
    /// Count one dispatch of `op`, which followed one of kind `before` (if any).
    pub fn count(&mut self, before: Option<&str>, op: &str) {
        *self.kinds.entry(op.to_string()).or_default() += 1;
        if let Some(b) = before {
            *self
                .pairs
                .entry((b.to_string(), op.to_string()))
                .or_default() += 1;
        }
    }

    /// The `top` commonest kinds and pairs, each with its count and share of all
    /// dispatches, commonest first (ties in name order).
    pub fn report(&self, top: usize) -> String {
        let total: u64 = self.kinds.values().sum();
        let share = |n: u64| n as f64 * 100.0 / total.max(1) as f64;
        let mut out = format!("instructions dispatched: {total}\n");
        let mut kinds: Vec<_> = self.kinds.iter().collect();
        kinds.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        for (k, n) in kinds.into_iter().take(top) {
            let _ = writeln!(out, "  {n:>12} {:5.1}%  {k}", share(*n));
        }
        let mut pairs: Vec<_> = self.pairs.iter().collect();
        pairs.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        out.push_str("consecutive pairs:\n");
        for ((a, b), n) in pairs.into_iter().take(top) {
            let _ = writeln!(out, "  {n:>12} {:5.1}%  {a} -> {b}", share(*n));
        }
        out
    }
}

#[cfg(feature = "op-stats")]
mod collect {
    use std::cell::RefCell;
    use std::sync::Mutex;

    use super::{Op, OpStats, kind};

    static STATS: Mutex<Option<OpStats>> = Mutex::new(None);

    thread_local! {
        /// The kind this thread dispatched last.
        static LAST: RefCell<Option<String>> = const { RefCell::new(None) };
    }

    /// Count a dispatch of `op` on this thread.
    pub fn count(op: &Op) {
        let k = kind(op);
        LAST.with(|last| {
            let mut last = last.borrow_mut();
            let mut stats = STATS.lock().unwrap_or_else(|e| e.into_inner());
            stats
                .get_or_insert_with(OpStats::default)
                .count(last.as_deref(), &k);
            *last = Some(k);
        });
    }

    /// The report of every dispatch counted so far.
    pub fn report() -> String {
        let stats = STATS.lock().unwrap_or_else(|e| e.into_inner());
        stats.as_ref().map_or_else(String::new, |s| s.report(40))
    }
}

#[cfg(feature = "op-stats")]
pub use collect::{count, report};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symbol::Symbol;

    #[test]
    fn kinds_and_pairs_are_counted_commonest_first() {
        let ops = [
            Op::Load(0),
            Op::Builtin(
                BUILTINS
                    .iter()
                    .position(|b| b.name == "contains")
                    .unwrap_or(0) as u16,
                2,
            ),
            Op::Load(1),
            Op::Str(Symbol::intern("w")),
            Op::Load(2),
            Op::Str(Symbol::intern("b")),
        ];
        let mut stats = OpStats::default();
        let mut last: Option<String> = None;
        for op in &ops {
            let k = kind(op);
            stats.count(last.as_deref(), &k);
            last = Some(k);
        }
        let report = stats.report(2);
        assert!(
            report.starts_with("instructions dispatched: 6\n"),
            "{report}"
        );
        let lines: Vec<&str> = report.lines().collect();
        assert!(lines[1].ends_with("50.0%  Load"), "{report}");
        assert!(lines[2].ends_with("33.3%  Str"), "{report}");
        assert_eq!(lines[3], "consecutive pairs:");
        assert!(lines[4].ends_with("Load -> Str"), "{report}");
        assert!(lines[5].ends_with("Builtin contains -> Load"), "{report}");
        assert_eq!(lines.len(), 6, "{report}");
    }
}
