//! Machine code for rule bodies (the `jit` feature): the generator the chains compiled
//! by hand asked for (`docs/machine.md`, "The generator, first version"). Each body the
//! fast tier runs is compiled by Cranelift from its verified bytecode ([`lower`]) and
//! runs in place of its closures, under the fast tier's contract: off while traced,
//! stepped or profiled; anything rare gives up and the transaction is replayed on the
//! interpreter; `--tier both` compares the two.
//!
//! With `FLEXRULES_JIT=off` nothing is compiled (the closures run, for comparison); with
//! `FLEXRULES_JIT=report`, a line on standard error says which bodies were compiled and
//! why the others were not. `FLEXRULES_FAST_ONLY=<text>[,<text>...]` keeps on the fast
//! tier only the bodies whose name contains one of the texts.

mod helpers;
mod lower;
mod raw;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use cranelift_codegen::ir::types::I64;
use cranelift_codegen::ir::{AbiParam, UserFuncName};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::FunctionBuilderContext;
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{Linkage, Module, default_libcall_names};

use crate::compile::program::Game;
use crate::source::Span;
use crate::symbol::Symbol;
use crate::syntax::ast::FormOp;

use super::super::builtins::PureFn;
use super::fast::{Done, Exit, FastCode, Fx, MessageShape};
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
    attrs_at: u64,
    shape: *const MessageShape,
    nest: u64,
    direct: u64,
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
    /// The direct forms of the game's bodies, by body (0 for none), for sends.
    entries: *const [AtomicUsize],
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

/// The compiled code of a game's bodies and the sites it names, freed together.
struct Compiled {
    module: Option<JITModule>,
    _sites: Sites,
    _entries: Arc<[AtomicUsize]>,
}

// SAFETY: the compiled code and the sites are only read once made, and the code runs on
// the thread of the machine that calls it, as every value does.
unsafe impl Send for Compiled {}
unsafe impl Sync for Compiled {}

impl Drop for Compiled {
    fn drop(&mut self) {
        if let Some(module) = self.module.take() {
            // SAFETY: every closure calling the code holds this `Compiled`: none is left.
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

/// Run compiled body `entry` on the fast tier.
#[inline(always)]
fn run(entry: Entry, fx: &mut Fx<'_, '_>) -> Done {
    let steps = &raw mut fx.m.meter.steps;
    let check_at = &raw const fx.m.check_at;
    let mut jx = Jx {
        fx: (fx as *mut Fx<'_, '_>).cast(),
        how: 0,
        steps,
        check_at,
        exit: Exit::GiveUp,
        me: 0,
        attrs_at: 0,
        shape: std::ptr::null(),
        nest: 0,
        direct: 0,
    };
    // SAFETY: the code was generated for this body, and `jx` lives through the call.
    let r = unsafe { entry(&mut jx) };
    match jx.how {
        // SAFETY: the code hands over the value it gives.
        0 => Ok(unsafe { from_raw(r) }),
        1 => fx.return_with(unsafe { from_raw(r) }),
        _ => Err(jx.exit),
    }
}

/// Compile every body of `game` that has a fast form, in place of its closures.
pub(super) fn substitute(game: &Game, codes: &mut [Option<FastCode>]) {
    let setting = std::env::var("FLEXRULES_JIT").unwrap_or_default();
    let report = setting == "report";
    // The code made for the bodies whose name contains this, printed (for work on the
    // generator).
    let dump = std::env::var("FLEXRULES_JIT_DUMP").ok();
    if let Ok(only) = std::env::var("FLEXRULES_FAST_ONLY") {
        for (code, fast) in game.codes.iter().zip(codes.iter_mut()) {
            if !only.split(',').any(|text| code.name.contains(text)) {
                *fast = None;
            }
        }
    }
    if setting == "off" {
        return;
    }
    let module = match new_module() {
        Ok(m) => m,
        Err(e) => {
            if report {
                eprintln!("jit: no code generator on this machine: {e}");
            }
            return;
        }
    };
    let mut module = module;
    let mut sites = Sites::default();
    let mut fctx = FunctionBuilderContext::new();
    let target = module.isa().frontend_config();
    let mut ctx = module.make_context();
    let entries: Arc<[AtomicUsize]> = game.codes.iter().map(|_| AtomicUsize::new(0)).collect();
    let table = Arc::as_ptr(&entries);
    let mut made = Vec::new();
    let (mut compiled, mut refused, mut direct) = (0, 0, 0);
    for (i, code) in game.codes.iter().enumerate() {
        if codes[i].is_none() {
            continue;
        }
        for form in [Form::Joined, Form::Direct] {
            ctx.func.signature.params.clear();
            ctx.func.signature.returns.clear();
            ctx.func.signature.params.push(AbiParam::new(I64));
            ctx.func.signature.returns.push(AbiParam::new(I64));
            ctx.func.signature.returns.push(AbiParam::new(I64));
            ctx.func.name = UserFuncName::user(form as u32, i as u32);
            let mut body_sites = Sites::default();
            let lowered = lower::lower(
                &mut ctx.func,
                &mut fctx,
                code,
                &mut body_sites,
                target,
                form,
                table,
            );
            let dump = dump.as_deref().is_some_and(|d| code.name.contains(d));
            ctx.set_disasm(dump);
            let defined = lowered.and_then(|()| {
                let id = module
                    .declare_function(
                        &format!("body{i}_{}", form as u32),
                        Linkage::Local,
                        &ctx.func.signature,
                    )
                    .map_err(|e| e.to_string())?;
                module
                    .define_function(id, &mut ctx)
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
            module.clear_context(&mut ctx);
            if defined.is_err() {
                // A lowering stopped half way leaves the builder's context as it was.
                fctx = FunctionBuilderContext::new();
            }
            match (defined, form) {
                (Ok(id), _) => {
                    sites.0.extend(body_sites.0);
                    made.push((i, form, id));
                    match form {
                        Form::Joined => compiled += 1,
                        Form::Direct => direct += 1,
                    }
                }
                (Err(e), Form::Joined) => {
                    refused += 1;
                    if report {
                        eprintln!("jit: {} not compiled: {e}", code.name);
                    }
                    break;
                }
                // A body that needs its join point has no direct form.
                (Err(_), Form::Direct) => {}
            }
        }
    }
    if let Err(e) = module.finalize_definitions() {
        if report {
            eprintln!("jit: the code could not be made ready: {e}");
        }
        return;
    }
    let mut joined: Vec<(usize, Entry)> = Vec::new();
    for &(i, form, id) in &made {
        let at = module.get_finalized_function(id);
        match form {
            // SAFETY: the function was generated with this signature.
            Form::Joined => {
                joined.push((i, unsafe { std::mem::transmute::<*const u8, Entry>(at) }))
            }
            Form::Direct => entries[i].store(at as usize, Ordering::Relaxed),
        }
    }
    let holder = Arc::new(Compiled {
        module: Some(module),
        _sites: sites,
        _entries: entries,
    });
    for (i, entry) in joined {
        let Some(fast) = &codes[i] else { continue };
        let keep = Arc::clone(&holder);
        codes[i] = Some(fast.with_run(Box::new(move |fx| {
            let _ = &keep;
            run(entry, fx)
        })));
    }
    if report {
        eprintln!("jit: {compiled} bodies compiled, {refused} not; {direct} with a direct form");
    }
}

fn new_module() -> Result<JITModule, String> {
    let mut flags = settings::builder();
    let opt = std::env::var("FLEXRULES_JIT_OPT").unwrap_or_else(|_| "speed".into());
    flags.set("opt_level", &opt).map_err(|e| e.to_string())?;
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
