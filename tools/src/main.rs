//! `cngw`: the host tool of the cngw gateway (HW-04).
//!
//! Generates the Verilog, register-map exports and RoCEv2 traffic; configures a
//! device (the in-process simulator or a PCIe FPGA) through its CSRs; replays
//! and benchmarks traffic through the cycle-accurate simulator. Errors end the
//! process with a message on stderr and exit status 1 (2 for bad syntax).

mod adjust;
mod bench;
mod bench_flow;
mod bench_notify;
mod bench_soak;
mod cli;
mod clock;
mod config;
mod counters;
mod demo;
mod device;
mod flows;
mod gen;
mod long_haul;
mod proxy;
mod queue_trace;
mod rate_advice;
mod regs;
mod replay;
mod report;
mod scenario;
mod scenario_plot;
mod scenario_rtl;
mod shaper;
mod sim;
mod summary;
mod synth;
mod synth_log;
mod thresholds;
mod values;

use clap::Parser;
use cli::{Cli, Command, ConfigCommand, GenCommand, RateAdviceCommand, RegsCommand};

fn run(cli: Cli) -> anyhow::Result<()> {
    let (spec, verbose) = (&cli.device, cli.verbose);
    match &cli.command {
        Command::Gen(GenCommand::Verilog { out }) => gen::verilog(out),
        Command::Gen(GenCommand::Regmap { format, out }) => gen::regmap(*format, out.as_deref()),
        Command::Gen(GenCommand::Traffic(args)) => gen::traffic(args),
        Command::Gen(GenCommand::LongHaul(args)) => long_haul::generate(args),
        Command::Thresholds(args) => thresholds::run(spec, verbose, args),
        Command::Adjust(args) => adjust::run(spec, verbose, args),
        Command::Regs(RegsCommand::Dump) => regs::dump(spec, verbose),
        Command::Regs(RegsCommand::Read { register }) => regs::read(spec, verbose, register),
        Command::Regs(RegsCommand::Write {
            register,
            value,
            raw,
        }) => regs::write(spec, verbose, register, *value, *raw),
        Command::Counters(args) => counters::run(spec, verbose, args),
        Command::Config(ConfigCommand::Check { file }) => config::check(spec, verbose, file),
        Command::Config(ConfigCommand::Apply { file }) => config::apply(spec, verbose, file),
        Command::Flows(args) => flows::run(spec, verbose, args),
        Command::Shaper(args) => shaper::run(spec, verbose, args),
        Command::Proxy(args) => proxy::run(spec, verbose, args),
        Command::RateAdvice(RateAdviceCommand::Status(args)) => {
            rate_advice::status(spec, verbose, args)
        }
        Command::Replay(args) => replay::run(spec, verbose, args),
        Command::Bench(args) => bench::run(spec, verbose, args),
        Command::Demo(args) => demo::run(spec, verbose, args),
        Command::Synth(args) => synth::run(args),
        Command::Scenario(args) => scenario::run(args),
    }
}

/// Dies quietly of SIGPIPE when the reader of stdout goes away (`cngw ... | head`),
/// as command-line tools do, instead of panicking on the failed write.
fn restore_sigpipe() {
    #[cfg(unix)]
    // SAFETY: resetting a signal to its default disposition at start-up,
    // before any thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn main() {
    restore_sigpipe();
    let cli = Cli::parse();
    if let Err(e) = run(cli) {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}
