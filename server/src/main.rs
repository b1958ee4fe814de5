//! The server binary: the web server, and the operators' subcommands.

use clap::Parser;
use server::config::{Cli, Command};

/// glibc's allocator cost 12% of the CPU on the storefront's hot path
/// (docs/BENCHMARKS.md, "where the time goes").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    server::telemetry::init(&cli.config);
    let result = match cli.command.unwrap_or(Command::Serve) {
        Command::Serve => server::startup::serve(cli.config).await,
        command => server::ops::run(&cli.config, command, &mut std::io::stdout()).await,
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
