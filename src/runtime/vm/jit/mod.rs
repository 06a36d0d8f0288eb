//! Machine code for rule bodies (the `jit` feature, a default one: the fast tier is then
//! the default tier): the generator the chains compiled by hand asked for
//! (`docs/machine.md`, "The generator, first version"). Each body the
//! fast tier runs is compiled by Cranelift from its verified bytecode ([`lower`]) once
//! it has run often enough (on the interpreter until then: [`FastCode::ready`]), and
//! runs in place of its closures, under the fast tier's contract: off while traced,
//! stepped or profiled; anything rare gives up and the transaction is replayed on the
//! interpreter; `--tier both` compares the two. A behaviour, law or side-effect is
//! compiled a second time to run without a join point, once sends have asked for that
//! form as often: a send whose chain has such a form for each of its bodies runs them
//! as calls ([`Form::Direct`], [`helpers::send`]).
//!
//! With `FLEXRULES_JIT=off` nothing is compiled (the closures run, for comparison); with
//! `FLEXRULES_JIT=report`, a line on standard error says which bodies (and chains) were
//! compiled, at which address (to name the machine code in a profile), and why any was
//! not. `FLEXRULES_JIT_AFTER=<n>` sets how often a body runs before it is
//! compiled (1000, or [`compile_after`]'s), `FLEXRULES_JIT_DUMP=<text>` prints the code
//! made for the bodies whose name contains the text, `FLEXRULES_JIT_OPT` Cranelift's
//! optimisation level (`none`, measured best: the code as fast, compiling cheaper;
//! `speed`) and `FLEXRULES_JIT_REGALLOC` its register allocator (`backtracking`,
//! `single_pass`).
//! `FLEXRULES_FAST_ONLY=<text>[,<text>...]` keeps on the fast tier only the bodies whose
//! name contains one of the texts.

mod chain;
mod emit;
mod helpers;
mod lower;
mod outermost;
mod raw;

pub(super) use outermost::outermost;

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use cranelift_codegen::ir::types::I64;
use cranelift_codegen::ir::{AbiParam, UserFuncName};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::FunctionBuilderContext;
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{Linkage, Module, default_libcall_names};

use crate::compile::bytecode::{Code, CodeId};
use crate::compile::program::Game;
use crate::source::Span;
use crate::symbol::Symbol;
use crate::syntax::ast::FormOp;

use super::super::builtins::PureFn;
use super::super::world::Chain;
use super::addresses::View;
use super::fast::{Done, Exit, FastCode, Fx, MessageShape};
use chain::ChainEntry;
use raw::{Raw, from_raw};

/// What a compiled body runs with: the fast tier, where the generated code reads and
/// counts steps, and how the body left (written by the generated code: 0 at its end,
/// 1 at a `return`, 2 when it left early, [`Jx::exit`] saying why).
#[repr(C)]
pub(crate) struct Jx {
    fx: *mut Fx<'static, 'static>,
    how: u64,
    steps: *mut u64,
    check_at: *const u64,
    exit: Exit,
    /// For a body running without a join point (its direct form, called for a send):
    /// the entity it runs for, where the values sent lie on the machine's stack and
    /// their names, how many such calls deep it runs, and 1.
    me: u64,
    /// The entity's name, as a value's payload (what `(self)` gives).
    me_name: u64,
    attrs_at: u64,
    shape: *const MessageShape,
    /// 1 for the outermost join point's bodies run directly ([`outermost`]): the join
    /// point and its first body's frame are the machine's own, so what reads the join
    /// point (the message, the sender, output) is done as a body at its join point
    /// does it.
    outermost: u64,
    nest: u64,
    direct: u64,
    /// The body running without a join point, and the table of direct forms.
    code: u64,
    entries: *const [Direct],
    /// Where the entities the game started with lie, as the machine keeps them
    /// (`vm/addresses.rs`): read in line by the code.
    kept: *const View,
    /// For a function called from compiled code ([`helpers::call`]): its
    /// arguments, two words each, in its caller's spill area, which its code takes
    /// as its first locals (null: they are on the machine's stack, as the instruction
    /// loop and the other tiers leave them).
    params: *const u64,
}

/// How many direct forms were taken away (by any game's generator), which a chain's note
/// that all its bodies have one is checked against ([`Chain::direct`]).
static TAKEN_AWAY: AtomicU32 = AtomicU32::new(0);

/// The number the next generator made takes ([`Jit::number`]).
static GENERATORS: AtomicU32 = AtomicU32::new(0);

/// A body's direct form, in the table sends read: its address (0 for none), how often it
/// has been called, how often it gave up (it is taken away when that is not rare), and
/// whether the body can change the world (a law that can runs only at a join point,
/// whose veto has a copy of the world to restore).
#[derive(Default)]
pub(crate) struct Direct {
    entry: AtomicUsize,
    runs: AtomicU32,
    rare: AtomicU32,
    quiet: bool,
    /// Whether its direct form was compiled (or found not to be possible).
    tried: AtomicBool,
}

/// What an instruction that calls the machine names, kept by the compiled module for
/// the code to pass by address.
pub(crate) struct Site {
    name: Symbol,
    span: Span,
    form: FormOp,
    argc: u8,
    index: usize,
    pure: Option<PureFn>,
    shape: Option<MessageShape>,
    /// The default of a fused `(get c k default)`.
    default: Option<i64>,
    /// Where the attribute an `(attribute "key")` reads was found last, in the message's
    /// attributes (the messages a body handles most often have the same keys), or
    /// `helpers::ABSENT` when it was not there.
    guess: AtomicU32,
    /// For a property read: the type of the entity it read last and the property's place
    /// in that type's layout, as `(type + 1) << 32 | place` (0 for none yet), which the
    /// helpers that read properties try first (one word: the sites are shared by the
    /// threads that run the code, and a torn pair could name a wrong place).
    slot: AtomicU64,
    /// The code generator: its table of direct forms, for sends, and the compiler of a
    /// direct form a send first asks for.
    jit: *const Jit,
    /// For a send: its number among the generator's sends, by which a machine keeps
    /// what the send reached last ([`ChainCache::sends`]).
    send: u32,
}

impl Site {
    /// A site of the generator `jit` for the instruction at `span`, naming nothing yet.
    fn plain(span: Span, jit: *const Jit) -> Site {
        Site {
            name: Symbol::intern(""),
            span,
            form: FormOp::StateOf,
            argc: 0,
            index: 0,
            pure: None,
            shape: None,
            default: None,
            guess: AtomicU32::new(0),
            slot: AtomicU64::new(0),
            jit,
            send: u32::MAX,
        }
    }

    /// The direct forms of the game's bodies, by body.
    fn entries(&self) -> &[Direct] {
        // SAFETY: the code generator outlives the code it made, and so its sites.
        unsafe { &(*self.jit).entries }
    }
}

/// The helpers a chain's guards read their values with (`chain::Guard`), named here: the
/// helpers run chains, so the chains' module does not name them.
struct GuardReads {
    /// A property of the body's entity ([`helpers::property_direct`]).
    property: usize,
    /// An attribute ([`helpers::attribute_direct`]).
    attribute: usize,
    /// A property of an entity by its name ([`helpers::property_of_lent`]).
    property_of: usize,
}

impl GuardReads {
    fn get() -> GuardReads {
        GuardReads {
            property: helpers::property_direct as *const () as usize,
            attribute: helpers::attribute_direct as *const () as usize,
            property_of: helpers::property_of_lent as *const () as usize,
        }
    }
}

/// The sites compiled code names, each boxed: the code holds its address, so it must
/// not move when more are added.
#[derive(Default)]
pub(crate) struct Sites(#[allow(clippy::vec_box)] Vec<Box<Site>>);

impl Sites {
    /// Keep `site`: its address, for the code.
    pub(crate) fn keep(&mut self, site: Site) -> u64 {
        let boxed = Box::new(site);
        let at = &*boxed as *const Site as u64;
        self.0.push(boxed);
        at
    }
}

/// A game's compiled code: each body is compiled the first time it has run
/// [`Jit::after`] times (on the interpreter until then), in both its forms; what is not
/// compiled is never paid for.
pub(crate) struct Jit {
    state: Mutex<State>,
    /// The bodies, as the game has them.
    codes: Vec<Code>,
    /// Each body's compiled form run at its join point: 0 not yet, 1 not compiled
    /// (never will be), else its address.
    joined: Box<[AtomicUsize]>,
    /// Each body's direct form (read by sends, [`helpers::send`]).
    entries: Arc<[Direct]>,
    /// Whether each body is a behaviour, a law or a side-effect (what a send runs, and so
    /// what may be run directly).
    advice: Box<[bool]>,
    /// Whether each body is a function that needs no join point, nor do those it calls
    /// (so that a body running without one may call it).
    free: Box<[bool]>,
    /// How often each body has run before it is compiled.
    calls: Box<[AtomicU32]>,
    after: u32,
    report: bool,
    /// This generator's number in the process, which a chain's note names.
    number: u32,
    /// How many sends its code has (each site's [`Site::send`]).
    sends: AtomicU32,
    /// The code made for the bodies whose name contains this, printed (for work on the
    /// generator).
    dump: Option<String>,
}

/// What compiling needs, one body at a time.
struct State {
    module: Option<JITModule>,
    fctx: FunctionBuilderContext,
    ctx: cranelift_codegen::Context,
    sites: Sites,
    /// How many chains were compiled ([`chain`]), which names the next.
    chains: u32,
}

// SAFETY: the code generator is used under the lock; the compiled code and the sites
// are only read once made, and the code runs on the thread of the machine that calls
// it, as every value does.
unsafe impl Send for Jit {}
unsafe impl Sync for Jit {}

impl Drop for Jit {
    fn drop(&mut self) {
        let state = self.state.get_mut().unwrap_or_else(|e| e.into_inner());
        if let Some(module) = state.module.take() {
            // SAFETY: every closure calling the code holds this `Jit`: none is left.
            unsafe { module.free_memory() };
        }
    }
}

type Entry = unsafe extern "C" fn(*mut Jx) -> Raw;

/// The two forms a body is compiled in: run at its join point, and run without one
/// (called directly for a send to it, reading the values sent and its entity from the
/// [`Jx`]), when it needs nothing else of the join point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Form {
    Joined,
    Direct,
}

impl Jx {
    /// What a body runs with on `fx` at its join point (the fields of a body running
    /// without one empty), sends from it reading the direct forms in `entries`.
    #[inline(always)]
    fn on(fx: &mut Fx<'_, '_>, entries: *const [Direct]) -> Jx {
        // The world is where the machine is, which does not move while code runs.
        fx.m.addresses.view.generation = fx.m.world.entities.generation_at();
        Jx {
            fx: (fx as *mut Fx<'_, '_>).cast(),
            how: 0,
            steps: &raw mut fx.m.meter.steps,
            check_at: &raw const fx.m.check_at,
            exit: Exit::GiveUp,
            me: 0,
            me_name: 0,
            attrs_at: 0,
            shape: std::ptr::null(),
            outermost: 0,
            nest: 0,
            direct: 0,
            code: 0,
            entries,
            kept: &raw const fx.m.addresses.view,
            params: std::ptr::null(),
        }
    }
}

/// Run compiled body `entry` on the fast tier.
#[inline(always)]
fn run(entry: Entry, fx: &mut Fx<'_, '_>) -> Done {
    run_with(entry, fx, std::ptr::null())
}

/// [`run`], the body's arguments at `params` (see [`Jx::params`]) when not null.
#[inline(always)]
fn run_with(entry: Entry, fx: &mut Fx<'_, '_>, params: *const u64) -> Done {
    let mut jx = Jx::on(fx, std::ptr::slice_from_raw_parts(std::ptr::null(), 0));
    jx.params = params;
    // SAFETY: the code was generated for this body, and `jx` lives through the call.
    let r = unsafe { entry(&mut jx) };
    match jx.how {
        // SAFETY: the code hands over the value it gives.
        0 => Ok(unsafe { from_raw(r) }),
        1 => fx.return_with(unsafe { from_raw(r) }),
        _ => Err(jx.exit),
    }
}

/// How often a body runs before it is compiled when `FLEXRULES_JIT_AFTER` does not say
/// ([`compile_after`]).
static AFTER: AtomicU32 = AtomicU32::new(1000);

/// Compile each body of a game built from now on once it has run `n` times (0: when it
/// first runs; 1000 unless said), where `FLEXRULES_JIT_AFTER` does not say otherwise:
/// for tests, whose runs are too short for the default to compile anything.
pub fn compile_after(n: u32) {
    AFTER.store(n, Ordering::Relaxed);
}

/// Put machine code in the places of the closures of every body of `game` that has a
/// fast form: each is compiled once it has run `FLEXRULES_JIT_AFTER` times (or
/// [`compile_after`]'s; 0 compiles a body when it first runs). The generator, for the
/// transactions' outermost join points ([`outermost`]).
pub(super) fn substitute(game: &Game, codes: &mut [Option<FastCode>]) -> Option<Arc<Jit>> {
    let setting = std::env::var("FLEXRULES_JIT").unwrap_or_default();
    let report = setting == "report";
    if let Ok(only) = std::env::var("FLEXRULES_FAST_ONLY") {
        for (code, fast) in game.codes.iter().zip(codes.iter_mut()) {
            if !only.split(',').any(|text| code.name.contains(text)) {
                *fast = None;
            }
        }
    }
    if setting == "off" {
        return None;
    }
    let module = match new_module() {
        Ok(m) => m,
        Err(e) => {
            // Built for machine code and not getting it: said, whatever the setting.
            eprintln!("jit: no code generator ({e}); the fast tier runs its closures");
            return None;
        }
    };
    let after = std::env::var("FLEXRULES_JIT_AFTER")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| AFTER.load(Ordering::Relaxed));
    let n = game.codes.len();
    let ctx = module.make_context();
    let jit = Arc::new(Jit {
        state: Mutex::new(State {
            module: Some(module),
            fctx: FunctionBuilderContext::new(),
            ctx,
            sites: Sites::default(),
            chains: 0,
        }),
        codes: game.codes.clone(),
        joined: (0..n).map(|_| AtomicUsize::new(0)).collect(),
        entries: lower::quiet_bodies(&game.codes)
            .into_iter()
            .map(|quiet| Direct {
                quiet,
                ..Direct::default()
            })
            .collect(),
        calls: (0..n).map(|_| AtomicU32::new(0)).collect(),
        advice: {
            let mut b = vec![false; n];
            let behaviours = game.types.iter().flat_map(|t| t.behaviours.values());
            for code in behaviours.chain(game.advice.iter().map(|a| &a.code)) {
                if let Some(b) = b.get_mut(code.0 as usize) {
                    *b = true;
                }
            }
            b.into()
        },
        free: lower::free_functions(&game.codes).into(),
        after,
        report,
        number: GENERATORS.fetch_add(1, Ordering::Relaxed),
        sends: AtomicU32::new(0),
        dump: std::env::var("FLEXRULES_JIT_DUMP").ok(),
    });
    for (i, slot) in codes.iter_mut().enumerate() {
        let Some(fast) = slot else { continue };
        // Each time the body is about to run on the fast tier: one more run counted,
        // the body compiled when due, and whether its machine code is there (the
        // interpreter runs it until then, and for good when it cannot be compiled).
        let ready = {
            let jit = Arc::clone(&jit);
            Arc::new(move || {
                let mut at = jit.joined[i].load(Ordering::Acquire);
                if at == 0 && jit.calls[i].fetch_add(1, Ordering::Relaxed) >= jit.after {
                    at = jit.compile(i);
                }
                at > 1
            })
        };
        let jit = Arc::clone(&jit);
        let run = Box::new(move |fx: &mut Fx<'_, '_>| {
            let at = jit.joined[i].load(Ordering::Acquire);
            if at > 1 {
                // SAFETY: a compiled body's address, of this signature.
                return run(unsafe { std::mem::transmute::<usize, Entry>(at) }, fx);
            }
            // Not reached: the body runs here only once `ready` said its code is there
            // (and it stays). Were it, the interpreter would run the transaction again.
            Err(Exit::GiveUp)
        });
        *slot = Some(fast.with_run(run, ready));
    }
    Some(jit)
}

impl Jit {
    /// Compile body `i` in both its forms: the address of the one run at its join
    /// point, or 1 when it has none.
    #[cold]
    fn compile(&self, i: usize) -> usize {
        let mut guard = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let done = self.joined[i].load(Ordering::Acquire);
        if done != 0 {
            return done;
        }
        let name = &self.codes[i].name;
        let joined = match self.make(&mut guard, i, Form::Joined) {
            Ok(at) => {
                if self.report {
                    eprintln!("jit: compiled {name} at {at:#x}");
                }
                at
            }
            Err(e) => {
                if self.report {
                    eprintln!("jit: {name} not compiled: {e}");
                }
                1
            }
        };
        self.joined[i].store(joined, Ordering::Release);
        joined
    }

    /// Body `i`'s direct form, compiled the first time its chain asks for it once the
    /// chain is due ([`Jit::bodies_direct`], [`Jit::direct_due`]); `None` when it has
    /// none. A body only ever run directly is compiled once: a chess move's laws, run
    /// directly at the outermost join point ([`outermost`]) once their direct forms are
    /// made, before their joined forms have run often enough to be compiled.
    #[cold]
    fn direct(&self, i: usize) -> Option<Entry> {
        let d = self.entries.get(i)?;
        let mut guard = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if !d.tried.swap(true, Ordering::Relaxed) {
            let name = &self.codes[i].name;
            match self.make(&mut guard, i, Form::Direct) {
                Ok(at) => {
                    d.entry.store(at, Ordering::Release);
                    if self.report {
                        eprintln!("jit: compiled {name}, direct form, at {at:#x}");
                    }
                }
                Err(e) => {
                    if self.report {
                        eprintln!("jit: {name} has no direct form: {e}");
                    }
                }
            }
        }
        helpers::entry_of(&self.entries, CodeId(i as u32))
    }

    /// Whether every body of `chain` (its laws and side-effects) and `behaviour` has a
    /// direct form. Each without one is asked for ([`Jit::direct`]) in the same pass,
    /// so that a chain's bodies are compiled together; none is asked for when one of
    /// them will never have one (it cannot, or it was taken away). When every body has
    /// one, the chain's code ([`chain`]), compiled the first time.
    fn chain_direct(&self, chain: &Chain, behaviour: Option<CodeId>) -> Option<ChainEntry> {
        if !self.bodies_direct(chain, behaviour) {
            return None;
        }
        let (number, mut at) = chain.code.get();
        if number != self.number || at == 0 {
            let mut guard = self.state.lock().unwrap_or_else(|e| e.into_inner());
            at = chain::make(self, &mut guard, chain, behaviour).unwrap_or_else(|e| {
                if self.report {
                    eprintln!("jit: a chain not compiled: {e}");
                }
                1
            });
            if self.report && at > 1 {
                eprintln!("jit: compiled a chain at {at:#x}");
            }
            chain.code.set((self.number, at));
        }
        // SAFETY: an address other than 0 and 1 is a chain's code, of this signature.
        (at > 1).then(|| unsafe { std::mem::transmute::<usize, ChainEntry>(at) })
    }

    /// This generator's number, and how many direct forms have been taken away (plus
    /// one, never 0): what a chain's note ([`Chain::direct`]) and a send's
    /// ([`ChainCache::sends`]) were made at.
    fn stamp(&self) -> u64 {
        let taken = TAKEN_AWAY.load(Ordering::Relaxed).wrapping_add(1).max(1);
        (u64::from(self.number) << 32) | u64::from(taken)
    }

    /// Whether every body of `chain` and `behaviour` has a direct form (see
    /// [`Jit::chain_direct`]).
    fn bodies_direct(&self, chain: &Chain, behaviour: Option<CodeId>) -> bool {
        // Known by this generator since no direct form was taken away. (A session
        // whose game gains a body gets a new generator, and keeps its chains.)
        let stamp = self.stamp();
        if chain.direct.get() == stamp {
            return true;
        }
        let bodies = || {
            let advice = chain.laws.iter().chain(&chain.side_effects);
            advice.map(|a| a.code).chain(behaviour)
        };
        // The chain's missing bodies are compiled together once one of them is due.
        let (mut missing, mut due) = (false, false);
        for code in bodies() {
            if helpers::entry_of(&self.entries, code).is_none() {
                let never = self.entries.get(code.0 as usize).is_none_or(|d| {
                    d.tried.load(Ordering::Relaxed) || !self.advice[code.0 as usize]
                });
                if never {
                    return false;
                }
                missing = true;
                due |= self.direct_due(code.0 as usize);
            }
        }
        if missing && !due {
            return false;
        }
        let mut all = true;
        for code in bodies() {
            if helpers::entry_of(&self.entries, code).is_none() {
                all &= self.direct(code.0 as usize).is_some();
            }
        }
        if all {
            chain.direct.set(stamp);
        }
        all
    }

    /// One more ask for body `i`'s direct form, and whether it is due: asked for, or run
    /// at its join point, half [`Jit::after`] times in all. (A body whose chain could not
    /// yet run directly has run at its join point meanwhile; counting those runs makes
    /// its direct form before its joined form is due, so that it is compiled once.)
    fn direct_due(&self, i: usize) -> bool {
        let asked = self
            .entries
            .get(i)
            .map_or(0, |d| d.runs.fetch_add(1, Ordering::Relaxed));
        let ran = self.calls.get(i).map_or(0, |c| c.load(Ordering::Relaxed));
        asked.saturating_add(ran) >= self.after / 2
    }

    /// Compile body `i` in `form`: its address.
    fn make(&self, state: &mut State, i: usize, form: Form) -> Result<usize, String> {
        let Some(module) = state.module.as_mut() else {
            return Err("no code generator".into());
        };
        let code = &self.codes[i];
        let target = module.isa().frontend_config();
        let ctx = &mut state.ctx;
        ctx.func.signature.params.clear();
        ctx.func.signature.returns.clear();
        ctx.func.signature.params.push(AbiParam::new(I64));
        ctx.func.signature.returns.push(AbiParam::new(I64));
        ctx.func.signature.returns.push(AbiParam::new(I64));
        ctx.func.name = UserFuncName::user(form as u32, i as u32);
        let mut sites = Sites::default();
        let lowered = lower::lower(
            &mut ctx.func,
            &mut state.fctx,
            code,
            &mut sites,
            target,
            form,
            self,
        );
        let dump = self.dump.as_deref().is_some_and(|d| code.name.contains(d));
        ctx.set_disasm(dump);
        let defined = lowered.and_then(|()| {
            let name = format!("body{i}_{}", form as u32);
            let id = module
                .declare_function(&name, Linkage::Local, &ctx.func.signature)
                .map_err(|e| e.to_string())?;
            module
                .define_function(id, ctx)
                .map_err(|e| format!("{e:?}"))?;
            Ok(id)
        });
        if dump && let Some(compiled) = ctx.compiled_code() {
            eprintln!(
                "jit: {} ({form:?})\n{}\n{}",
                code.name,
                ctx.func.display(),
                compiled.vcode.as_deref().unwrap_or("")
            );
        }
        module.clear_context(ctx);
        let id = match defined {
            Ok(id) => id,
            Err(e) => {
                // A lowering stopped half way leaves the builder's context as it was.
                state.fctx = FunctionBuilderContext::new();
                return Err(e);
            }
        };
        state.sites.0.extend(sites.0);
        module
            .finalize_definitions()
            .map_err(|e| format!("could not be made ready: {e}"))?;
        Ok(module.get_finalized_function(id) as usize)
    }
}

fn new_module() -> Result<JITModule, String> {
    let mut flags = settings::builder();
    let opt = std::env::var("FLEXRULES_JIT_OPT").unwrap_or_else(|_| "none".into());
    flags.set("opt_level", &opt).map_err(|e| e.to_string())?;
    if let Ok(alloc) = std::env::var("FLEXRULES_JIT_REGALLOC") {
        flags
            .set("regalloc_algorithm", &alloc)
            .map_err(|e| e.to_string())?;
    }
    flags
        .set("use_colocated_libcalls", "false")
        .map_err(|e| e.to_string())?;
    flags.set("is_pic", "false").map_err(|e| e.to_string())?;
    flags
        .set("enable_verifier", "false")
        .map_err(|e| e.to_string())?;
    let isa = cranelift_native::builder()
        .map_err(str::to_string)?
        .finish(settings::Flags::new(flags))
        .map_err(|e| e.to_string())?;
    Ok(JITModule::new(JITBuilder::with_isa(
        isa,
        default_libcall_names(),
    )))
}
