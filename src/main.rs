//! The `flexrules` command.

/// The allocator of the command (not of the library, whose embedders choose their own):
/// see the reason in Cargo.toml.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    flexrules::cli::main()
}
