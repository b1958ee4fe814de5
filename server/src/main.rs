//! The server binary: the web server, and the operators' subcommands.

use clap::Parser;
use server::config::{Cli, Command};

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    server::telemetry::init(&cli.config);
    let result = match cli.command.unwrap_or(Command::Serve) {
        Command::Serve => server::startup::serve(cli.config).await,
        Command::Migrate => server::ops::migrate(&cli.config).await,
        Command::Backup { to } => server::ops::backup(&cli.config, &to).await,
        Command::Hosts(cmd) => server::ops::hosts(&cli.config, cmd).await,
        Command::Latency(cmd) => server::ops::latency(&cli.config, cmd).await,
        Command::Mail(cmd) => server::ops::mail(&cli.config, cmd).await,
        Command::Staff(cmd) => server::ops::staff(&cli.config, cmd).await,
        Command::Stripe(cmd) => server::ops::stripe(&cli.config, cmd).await,
        Command::Clock(cmd) => server::ops::clock(&cli.config, cmd).await,
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
