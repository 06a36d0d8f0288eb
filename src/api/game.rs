//! A game loaded for play: read, checked and compiled with its rules files, its parameters
//! parsed, ready to start matches from a seed.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::compile::program;
use crate::compile::{BuildError, build_game_with_rules};
use crate::diagnostic::Diagnostic;
use crate::runtime::outside::parse_literal;
use crate::runtime::session::{Session, SessionOptions};
use crate::runtime::vm::{Limits, Tier};
use crate::source::SourceMap;
use crate::syntax::ast::Program;
use crate::syntax::load::{DiskFs, FileSystem, MemoryFs};

use super::error::{Error, LoadError};
use super::play::Match;

/// A game ready to play. Cloning it is cheap (its parts are shared), and so is starting
/// any number of matches from it; it may be shared between threads, each starting its own
/// matches.
#[derive(Clone, Debug)]
pub struct Game {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    compiled: Arc<program::Game>,
    program: Arc<Program>,
    sources: SourceMap,
    root: PathBuf,
    warnings: Vec<Diagnostic>,
    /// The parameters as `(name, literal text)`, read when a match starts.
    params: Vec<(String, String)>,
    /// The path loaded and the rules files, as the loader was given them.
    path: PathBuf,
    rules: Vec<PathBuf>,
    /// The first parameter given without `=`, refused when a match starts.
    malformed: Option<String>,
    limits: Limits,
    tier: Tier,
}

/// How to load a game: its rules files, parameters and limits ([`Game::loader`]).
#[derive(Clone, Debug)]
pub struct Loader {
    path: PathBuf,
    rules: Vec<PathBuf>,
    params: Vec<(String, String)>,
    limits: Limits,
    tier: Tier,
    source: Option<String>,
    /// Every file of the game, held in memory ([`Loader::files`]): read instead of the
    /// disk.
    files: Option<MemoryFs>,
    /// The first parameter given without `=`.
    malformed: Option<String>,
}

impl Loader {
    /// Put a rules file (a variant, house rules) in force after the game's own advice;
    /// rules files apply in the order given.
    pub fn rules(mut self, path: impl Into<PathBuf>) -> Loader {
        self.rules.push(path.into());
        self
    }

    /// Set the `#param` called `name` to the literal `value` (a number, `true`, `false`,
    /// `nil`, else a string). A name the game does not declare is refused when a match
    /// starts.
    pub fn param(mut self, name: &str, value: &str) -> Loader {
        self.params
            .push((name.trim().to_string(), value.to_string()));
        self
    }

    /// Put each of `paths` in force, in order (see [`Loader::rules`]).
    pub fn rules_files(self, paths: &[PathBuf]) -> Loader {
        paths.iter().fold(self, |l, p| l.rules(p.clone()))
    }

    /// Set each parameter of `texts`, in its command-line form (see
    /// [`Loader::param_text`]).
    pub fn params_text(self, texts: &[String]) -> Loader {
        texts.iter().fold(self, |l, t| l.param_text(t))
    }

    /// Set a parameter from its command-line form, `name=value`. A text without `=` is
    /// refused when a match starts ([`Error::Param`]), as an unknown name is.
    pub fn param_text(mut self, text: &str) -> Loader {
        match text.split_once('=') {
            Some((name, value)) => self.param(name, value),
            None => {
                self.malformed.get_or_insert_with(|| text.to_string());
                self
            }
        }
    }

    /// The limits of each transaction of the matches (steps, depth, nesting, lengths,
    /// memory).
    pub fn limits(mut self, limits: Limits) -> Loader {
        self.limits = limits;
        self
    }

    /// Which tier runs the matches' transactions ([`Tier::Fast`] unless told).
    pub fn tier(mut self, tier: Tier) -> Loader {
        self.tier = tier;
        self
    }

    /// Read the game's files (its sources, rules files and board files, by the paths
    /// the game names them) from `files` instead of the disk: a game sent to another
    /// process or machine as plain data ([`Game::files`] gives them).
    pub fn files(mut self, files: impl IntoIterator<Item = (PathBuf, String)>) -> Loader {
        let mut fs = MemoryFs::new();
        for (path, text) in files {
            fs.insert(path, text);
        }
        self.files = Some(fs);
        self
    }

    /// Read, check and compile the game.
    pub fn load(mut self) -> Result<Game, LoadError> {
        if let Some(fs) = self.files.take() {
            return self.load_from(&fs);
        }
        match &self.source {
            Some(text) => {
                let mut fs = MemoryFs::new();
                fs.insert(self.path.clone(), text.as_str());
                self.load_from(&fs)
            }
            None => self.load_from(&DiskFs),
        }
    }

    fn load_from(self, fs: &dyn FileSystem) -> Result<Game, LoadError> {
        let mut built =
            build_game_with_rules(fs, &self.path, &self.rules).map_err(|e| match e {
                BuildError::Open(e) => LoadError::Open(e.to_string()),
                BuildError::Errors(sources, diagnostics) => LoadError::Invalid {
                    sources,
                    diagnostics,
                },
            })?;
        let files = super::board_files::read(&built.game, &self.params, &mut built.sources, fs)?;
        if !files.is_empty() {
            Arc::make_mut(&mut built.game).board_files = files;
        }
        Ok(Game {
            inner: Arc::new(Inner {
                compiled: built.game,
                program: built.program,
                sources: built.sources,
                root: built.root,
                warnings: built.warnings,
                params: self.params,
                path: self.path,
                rules: self.rules,
                malformed: self.malformed,
                limits: self.limits,
                tier: self.tier,
            }),
        })
    }
}

impl Game {
    /// How to load the game at `path` (a directory holding `game.fr`, or one `.fr` file),
    /// to add rules files, parameters and limits before [`Loader::load`].
    pub fn loader(path: impl AsRef<Path>) -> Loader {
        Loader {
            path: path.as_ref().to_path_buf(),
            rules: Vec::new(),
            params: Vec::new(),
            limits: Limits::default(),
            tier: Tier::default(),
            source: None,
            files: None,
            malformed: None,
        }
    }

    /// Load the game at `path` as it is written.
    pub fn load(path: impl AsRef<Path>) -> Result<Game, LoadError> {
        Game::loader(path).load()
    }

    /// A one-file game from its text (`name` is the file name its diagnostics show).
    pub fn from_source(name: &str, text: &str) -> Result<Game, LoadError> {
        Loader {
            source: Some(text.to_string()),
            ..Game::loader(name)
        }
        .load()
    }

    /// Start a match: the parameters, the instances, then `#setup`, with the random
    /// generator seeded by `seed`. The game's representations draw from the start, so
    /// [`Match::view`] shows every seat what it may see.
    pub fn start(&self, seed: u64) -> Result<Match, Error> {
        let mut m = self.start_headless(seed)?;
        m.session_mut().watch().map_err(Error::Failed)?;
        Ok(m)
    }

    /// Start a match that nobody looks at: its representations do not run (playouts,
    /// searches, referees), and [`Match::view`] starts them from where the match is.
    pub fn start_headless(&self, seed: u64) -> Result<Match, Error> {
        let (session, _setup) = self.start_session(seed, false)?;
        Ok(Match::new(self.clone(), session))
    }

    /// Start a session on the engine directly, for the front ends that step through
    /// transactions (the REPL, traces): the same start as [`Game::start`], with the setup
    /// transaction (traced when `trace` is set).
    pub fn start_session(
        &self,
        seed: u64,
        trace: bool,
    ) -> Result<(Session, Option<crate::runtime::trace::Transaction>), Error> {
        if let Some(text) = &self.inner.malformed {
            return Err(Error::Param(format!(
                "--param takes NAME=VALUE, got `{text}`"
            )));
        }
        // A number too large for a float reads as infinity: refused, as a game cannot use it.
        if let Some((name, value)) = (self.inner.params.iter())
            .find(|(_, v)| matches!(parse_literal(v), crate::runtime::value::Value::Float(f) if !f.is_finite()))
        {
            return Err(Error::Param(format!(
                "--param {name}={value}: the number is too large (it is not finite); give a finite number"
            )));
        }
        let options = SessionOptions {
            seed,
            params: (self.inner.params.iter())
                .map(|(name, value)| (name.clone(), parse_literal(value)))
                .collect(),
            limits: self.inner.limits,
            trace,
            tier: self.inner.tier,
        };
        Session::start(self.inner.compiled.clone(), &options).map_err(Error::Start)
    }

    /// The game a session started on the engine directly is playing (a game compiled from
    /// files in memory, in tests and tools): no sources, no parameters, default limits.
    pub(super) fn of_compiled(compiled: Arc<program::Game>) -> Game {
        Game {
            inner: Arc::new(Inner {
                compiled,
                program: Arc::default(),
                sources: SourceMap::default(),
                root: PathBuf::new(),
                warnings: Vec::new(),
                params: Vec::new(),
                path: PathBuf::new(),
                rules: Vec::new(),
                malformed: None,
                limits: Limits::default(),
                tier: Tier::default(),
            }),
        }
    }

    /// Every file read, for rendering diagnostics and runtime errors.
    pub fn sources(&self) -> &SourceMap {
        &self.inner.sources
    }

    /// The warnings found while loading (the game runs with them).
    pub fn warnings(&self) -> &[Diagnostic] {
        &self.inner.warnings
    }

    /// Every file the game was read from (its sources, rules files and board files), by
    /// the paths it names them: with [`Loader::files`] and the same rules files and
    /// parameters, they load the same game elsewhere.
    pub fn files(&self) -> Vec<(PathBuf, String)> {
        (self.inner.sources.files())
            .map(|(_, f)| (f.path.clone(), f.text.to_string()))
            .collect()
    }

    /// The path loaded (a game's directory or one file), as the loader was given it.
    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// The rules files put in force, in order, as the loader was given them.
    pub fn rules_files(&self) -> &[PathBuf] {
        &self.inner.rules
    }

    /// The parameters set, as (name, value text) pairs in the order given.
    pub fn params(&self) -> &[(String, String)] {
        &self.inner.params
    }

    /// The game's directory.
    pub fn root(&self) -> &Path {
        &self.inner.root
    }

    /// The compiled game the engine runs.
    pub fn compiled(&self) -> &Arc<program::Game> {
        &self.inner.compiled
    }

    /// The checked program (code added while the game runs is checked against it).
    pub fn program(&self) -> &Arc<Program> {
        &self.inner.program
    }

    /// The limits each transaction runs under.
    pub fn limits(&self) -> Limits {
        self.inner.limits
    }
}

#[cfg(test)]
mod tests {
    use super::Game;

    fn shared<T: Send + Sync>() {}

    #[test]
    fn a_game_may_be_shared_between_threads() {
        shared::<Game>();
    }
}
