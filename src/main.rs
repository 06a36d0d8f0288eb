//! The `flexrules` command.

fn main() -> std::process::ExitCode {
    flexrules::cli::main()
}
