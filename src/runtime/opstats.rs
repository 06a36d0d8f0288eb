//! Counts of the instructions the machine dispatches: by kind, with the processor cycles
//! from each dispatch to the next (what the instruction cost, the builtins, forms, sends
//! and law switches it ran included), and by pair of consecutive kinds. What the
//! instruction loop spends its time on, and which sequences are worth a fused instruction.
//!
//! Built into the machine only with the `op-stats` feature (`cargo run --release
//! --features op-stats -- perft games/chess 3 --jobs 1`); every command then prints the
//! counts on standard error when it ends. Each thread counts on its own and adds its
//! counts to the report every 65,536 dispatches and when it ends; the cycles spent
//! counting are left out of the instructions' (they are read before the counting and
//! after it), but the counting still disturbs the caches: compare cycles between kinds,
//! not with a build without the feature.

use std::fmt::Write as _;

use rustc_hash::FxHashMap;

use crate::compile::builtins::BUILTINS;
use crate::compile::bytecode::Op;

/// What dispatches are counted by: the variant, the builtin of a builtin call or the form
/// of a form, and the kind of body an instruction that can end one ends.
type Key = (std::mem::Discriminant<Op>, u16, &'static str);

/// Whether `op` can end the body it is in (what it costs depends on the body's kind: a
/// function returns, a law or side-effect hands over to the next, a behaviour to the
/// side-effects).
fn ends_body(op: &Op) -> bool {
    matches!(
        op,
        Op::Return | Op::End | Op::JumpEnd(_) | Op::NilEnd | Op::TestEnd(_)
    )
}

/// The key of `op`, run by a body of kind `body` ("law", "function", ...).
fn key(op: &Op, body: &'static str) -> Key {
    let which = match *op {
        Op::Builtin(i, _) => i,
        Op::Form(form, _) => form as u16,
        _ => 0,
    };
    let body = if ends_body(op) { body } else { "" };
    (std::mem::discriminant(op), which, body)
}

/// An instruction's kind as the report names it: its variant, a builtin call's builtin
/// (`Builtin contains`), a form's form (`Form UpdateProperty`), and for an instruction
/// that may end its body, the kind of that body (`End (law)`).
pub fn kind(op: &Op, body: &str) -> String {
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
            let name = &text[..end];
            if ends_body(other) {
                format!("{name} ({body})")
            } else {
                name.to_string()
            }
        }
    }
}

/// Dispatches and cycles by kind of instruction, dispatches by pair of consecutive kinds.
#[derive(Default, Debug)]
pub struct OpStats {
    names: FxHashMap<Key, String>,
    kinds: FxHashMap<Key, (u64, u64)>,
    pairs: FxHashMap<(Key, Key), u64>,
}

impl OpStats {
    /// Count one dispatch of `op` in a body of kind `body` ("law", "function", ...), which
    /// followed a dispatch of `before` (if any).
    pub fn count(&mut self, before: Option<Key>, op: &Op, body: &'static str) -> Key {
        let k = key(op, body);
        self.names.entry(k).or_insert_with(|| kind(op, body));
        self.kinds.entry(k).or_default().0 += 1;
        if let Some(b) = before {
            *self.pairs.entry((b, k)).or_default() += 1;
        }
        k
    }

    /// Charge `cycles` to the instructions of kind `k`.
    pub fn charge(&mut self, k: Key, cycles: u64) {
        self.kinds.entry(k).or_default().1 += cycles;
    }

    /// Add `other`'s counts to these.
    pub fn merge(&mut self, other: OpStats) {
        for (k, name) in other.names {
            self.names.entry(k).or_insert(name);
        }
        for (k, (n, c)) in other.kinds {
            let e = self.kinds.entry(k).or_default();
            e.0 += n;
            e.1 += c;
        }
        for (p, n) in other.pairs {
            *self.pairs.entry(p).or_default() += n;
        }
    }

    /// The `top` commonest kinds (with their share of the dispatches and of the cycles,
    /// and cycles per dispatch), the `top` costliest, and the `top` commonest pairs;
    /// ties in name order.
    pub fn report(&self, top: usize) -> String {
        let name = |k: &Key| self.names.get(k).map_or("?", String::as_str);
        let total: u64 = self.kinds.values().map(|v| v.0).sum();
        let cycles: u64 = self.kinds.values().map(|v| v.1).sum();
        let pct = |n: u64, of: u64| n as f64 * 100.0 / of.max(1) as f64;
        let mut out =
            format!("instructions dispatched: {total}, cycles from one to the next: {cycles}\n");
        let mut kinds: Vec<_> = self.kinds.iter().collect();
        let row = |out: &mut String, k: &Key, (n, c): (u64, u64)| {
            let _ = writeln!(
                out,
                "  {n:>12} {:5.1}%  {:5.1}% of cycles  {:>7.1} per dispatch  {}",
                pct(n, total),
                pct(c, cycles),
                c as f64 / n.max(1) as f64,
                name(k)
            );
        };
        out.push_str("commonest:\n");
        kinds.sort_by(|a, b| b.1.0.cmp(&a.1.0).then(name(a.0).cmp(name(b.0))));
        for (k, v) in kinds.iter().take(top) {
            row(&mut out, k, **v);
        }
        out.push_str("costliest:\n");
        kinds.sort_by(|a, b| b.1.1.cmp(&a.1.1).then(name(a.0).cmp(name(b.0))));
        for (k, v) in kinds.iter().take(top) {
            row(&mut out, k, **v);
        }
        out.push_str("consecutive pairs:\n");
        let mut pairs: Vec<_> = self.pairs.iter().collect();
        pairs.sort_by(|a, b| {
            b.1.cmp(a.1)
                .then((name(&a.0.0), name(&a.0.1)).cmp(&(name(&b.0.0), name(&b.0.1))))
        });
        for ((a, b), n) in pairs.into_iter().take(top) {
            let _ = writeln!(
                out,
                "  {n:>12} {:5.1}%  {} -> {}",
                pct(*n, total),
                name(a),
                name(b)
            );
        }
        out
    }
}

#[cfg(feature = "op-stats")]
mod collect {
    use std::cell::RefCell;
    use std::sync::Mutex;

    use super::{Key, Op, OpStats};

    /// What the threads that added their counts counted.
    static ALL: Mutex<Option<OpStats>> = Mutex::new(None);

    /// This thread's counts since it last added them to [`ALL`], the kind it dispatched
    /// last and the time counting it ended.
    #[derive(Default)]
    struct Local {
        stats: OpStats,
        last: Option<Key>,
        since: u64,
        pending: u32,
    }

    impl Local {
        fn flush(&mut self) {
            let stats = std::mem::take(&mut self.stats);
            let mut all = ALL.lock().unwrap_or_else(|e| e.into_inner());
            all.get_or_insert_with(OpStats::default).merge(stats);
            self.pending = 0;
        }
    }

    impl Drop for Local {
        fn drop(&mut self) {
            self.flush();
        }
    }

    thread_local! {
        static LOCAL: RefCell<Local> = RefCell::new(Local::default());
    }

    fn now() -> u64 {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: reading the time-stamp counter has no precondition.
        unsafe {
            std::arch::x86_64::_rdtsc()
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            use std::time::Instant;
            static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
            START.get_or_init(Instant::now).elapsed().as_nanos() as u64
        }
    }

    /// Count a dispatch of `op` in a body of kind `body` on this thread, charging the time
    /// since the last one ended to the last one.
    pub fn count(op: &Op, body: &'static str) {
        let start = now();
        LOCAL.with(|local| {
            let mut local = local.borrow_mut();
            let local = &mut *local;
            if let Some(last) = local.last {
                local.stats.charge(last, start.saturating_sub(local.since));
            }
            local.last = Some(local.stats.count(local.last, op, body));
            local.pending += 1;
            if local.pending == 1 << 16 {
                local.flush();
            }
        });
        LOCAL.with(|local| local.borrow_mut().since = now());
    }

    /// The report of every dispatch counted so far (this thread's included).
    pub fn report() -> String {
        LOCAL.with(|local| local.borrow_mut().flush());
        let all = ALL.lock().unwrap_or_else(|e| e.into_inner());
        all.as_ref().map_or_else(String::new, |s| s.report(40))
    }
}

#[cfg(feature = "op-stats")]
pub use collect::{count, report};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symbol::Symbol;

    #[test]
    fn kinds_cycles_and_pairs_are_counted_commonest_first() {
        let contains = BUILTINS
            .iter()
            .position(|b| b.name == "contains")
            .unwrap_or(0) as u16;
        let ops = [
            (Op::Load(0), 10),
            (Op::Builtin(contains, 2), 50),
            (Op::Load(1), 10),
            (Op::Str(Symbol::intern("w")), 5),
            (Op::Load(2), 10),
            (Op::Str(Symbol::intern("b")), 5),
        ];
        let mut stats = OpStats::default();
        let mut last = None;
        for (op, cycles) in &ops {
            let k = stats.count(last, op, "function");
            stats.charge(k, *cycles);
            last = Some(k);
        }
        // Counts of another thread add up.
        let mut other = OpStats::default();
        let k = other.count(None, &Op::Load(7), "function");
        other.charge(k, 10);
        stats.merge(other);
        let report = stats.report(2);
        let lines: Vec<&str> = report.lines().collect();
        assert_eq!(
            lines[0],
            "instructions dispatched: 7, cycles from one to the next: 100"
        );
        assert_eq!(lines[1], "commonest:");
        assert!(lines[2].contains("57.1%   40.0% of cycles"), "{report}");
        assert!(lines[2].ends_with("10.0 per dispatch  Load"), "{report}");
        assert!(lines[3].ends_with("Str"), "{report}");
        assert_eq!(lines[4], "costliest:");
        assert!(
            lines[5].ends_with("50.0 per dispatch  Builtin contains"),
            "{report}"
        );
        assert!(lines[6].ends_with("Load"), "{report}");
        assert_eq!(lines[7], "consecutive pairs:");
        assert!(lines[8].ends_with("Load -> Str"), "{report}");
        assert!(lines[9].ends_with("Builtin contains -> Load"), "{report}");
        assert_eq!(lines.len(), 10, "{report}");
        // An instruction that ends a body is counted by the body's kind.
        let mut ends = OpStats::default();
        ends.count(None, &Op::End, "law");
        ends.count(None, &Op::End, "function");
        ends.count(None, &Op::End, "function");
        let report = ends.report(2);
        assert!(report.contains("66.7%    0.0% of cycles"), "{report}");
        assert!(report.contains("End (function)\n"), "{report}");
        assert!(report.contains("End (law)\n"), "{report}");
    }
}
