//! HW-04: the register map exports are usable by other tools.
//!
//! - The SystemRDL export compiles with the reference compiler (`systemrdl-compiler`
//!   from PyPI) and places every register at its offset with its reset value. The
//!   test runs when `CNGW_PYTHON` names a Python that has the compiler installed
//!   (`python3 -m venv .venv && .venv/bin/pip install systemrdl-compiler`), and
//!   skips with a message otherwise.
//! - The C header compiles with `cc` (or `$CC`), and a C program built from it
//!   prints the same offsets, reset values and field masks as `REGISTERS`.

use cngw_regmap::{export, Access, DEVICE_ID, MAP_VERSION, REGISTERS};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A scratch directory for one test, removed when dropped.
struct ScratchDir(PathBuf);

impl ScratchDir {
    fn new(test: &str) -> ScratchDir {
        let dir = std::env::temp_dir().join(format!("cngw-regmap-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create scratch dir");
        ScratchDir(dir)
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

// ------------------------------------------------------------- SystemRDL

#[test]
fn hw_04_systemrdl_export_compiles_with_reference_compiler() {
    let Some(python) = std::env::var_os("CNGW_PYTHON") else {
        eprintln!(
            "skipped: set CNGW_PYTHON to a python with systemrdl-compiler installed \
             (e.g. python3 -m venv .venv && .venv/bin/pip install systemrdl-compiler)"
        );
        return;
    };
    let scratch = ScratchDir::new("rdl");
    let rdl_path = scratch.path("cngw.rdl");
    std::fs::write(&rdl_path, export::to_systemrdl()).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("compile_rdl.py");
    let output = Command::new(&python)
        .arg(&script)
        .arg(&rdl_path)
        .output()
        .unwrap_or_else(|e| panic!("cannot run CNGW_PYTHON={python:?}: {e}"));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "systemrdl-compiler rejected the export ({}):\n{stderr}\n--- RDL ---\n{}",
        output.status,
        export::to_systemrdl()
    );
    // The compiler's warnings are as unwelcome as its errors.
    assert!(!stderr.contains("warning"), "compiler warnings:\n{stderr}");

    let doc = Json::parse(&stdout).unwrap_or_else(|e| panic!("bad JSON ({e}):\n{stdout}"));
    assert_eq!(doc.get("addrmap").as_str(), export::MAP_NAME);
    let compiled = doc.get("registers").as_array();
    assert_eq!(compiled.len(), REGISTERS.len(), "register count");
    for (reg, got) in REGISTERS.iter().zip(compiled) {
        assert_eq!(got.get("name").as_str(), reg.name);
        assert_eq!(
            got.get("offset").as_u64(),
            u64::from(reg.offset),
            "{} offset",
            reg.name
        );
        assert_eq!(
            got.get("reset").as_u64(),
            u64::from(reg.reset),
            "{} reset",
            reg.name
        );
        let fields = got.get("fields").as_array();
        let expected = export::effective_fields(reg);
        assert_eq!(fields.len(), expected.len(), "{} field count", reg.name);
        for (field, got) in expected.iter().zip(fields) {
            assert_eq!(got.get("name").as_str(), field.name);
            assert_eq!(
                got.get("lsb").as_u64(),
                u64::from(field.lsb),
                "{}.{}",
                reg.name,
                field.name
            );
            assert_eq!(
                got.get("width").as_u64(),
                u64::from(field.width),
                "{}.{}",
                reg.name,
                field.name
            );
            let (sw, hw, pulse) = match reg.access {
                Access::ReadOnly => ("r", "w", false),
                Access::ReadWrite => ("rw", "r", false),
                Access::WritePulse => ("w", "r", true),
            };
            assert_eq!(got.get("sw").as_str(), sw, "{}.{} sw", reg.name, field.name);
            assert_eq!(got.get("hw").as_str(), hw, "{}.{} hw", reg.name, field.name);
            assert_eq!(
                got.get("singlepulse").as_bool(),
                pulse,
                "{}.{}",
                reg.name,
                field.name
            );
        }
    }
}

// ---------------------------------------------------------------- C header

/// Runs the C compiler; `None` when there is none on this machine.
fn run_cc(args: &[&std::ffi::OsStr]) -> Option<std::process::Output> {
    let cc = std::env::var_os("CC").unwrap_or_else(|| "cc".into());
    match Command::new(&cc).args(args).output() {
        Ok(output) => Some(output),
        Err(e) if e.kind() == ErrorKind::NotFound => {
            eprintln!("skipped: no C compiler ({cc:?} not found)");
            None
        }
        Err(e) => panic!("cannot run {cc:?}: {e}"),
    }
}

#[test]
fn hw_04_c_header_compiles_with_cc() {
    let scratch = ScratchDir::new("header");
    let header = scratch.path("cngw_regs.h");
    std::fs::write(&header, export::to_c_header()).unwrap();
    // Include it twice to prove the guard works.
    let source = scratch.path("check.c");
    std::fs::write(
        &source,
        "#include \"cngw_regs.h\"\n#include \"cngw_regs.h\"\nint cngw_check;\n",
    )
    .unwrap();
    let Some(output) = run_cc(&[
        "-fsyntax-only".as_ref(),
        "-std=c99".as_ref(),
        "-Wall".as_ref(),
        "-Wextra".as_ref(),
        "-pedantic".as_ref(),
        "-Werror".as_ref(),
        source.as_os_str(),
    ]) else {
        return;
    };
    assert!(
        output.status.success(),
        "cc rejected the header:\n{}\n--- header ---\n{}",
        String::from_utf8_lossy(&output.stderr),
        export::to_c_header()
    );
}

#[test]
fn hw_04_c_header_values_match_registers() {
    let scratch = ScratchDir::new("header-values");
    std::fs::write(scratch.path("cngw_regs.h"), export::to_c_header()).unwrap();

    // A program that prints every macro the header defines for REGISTERS.
    let mut program =
        String::from("#include <stdio.h>\n#include \"cngw_regs.h\"\nint main(void) {\n");
    let mut expected = String::new();
    let mut line = |macro_name: String, value: u32| {
        let _ = writeln!(
            program,
            "    printf(\"%s %lu\\n\", \"{macro_name}\", (unsigned long)({macro_name}));"
        );
        let _ = writeln!(expected, "{macro_name} {value}");
    };
    line("CNGW_DEVICE_ID".into(), DEVICE_ID);
    line("CNGW_MAP_VERSION".into(), MAP_VERSION);
    line("CNGW_REG_COUNT".into(), REGISTERS.len() as u32);
    for reg in REGISTERS {
        let name = format!("CNGW_REG_{}", reg.name);
        line(name.clone(), reg.offset);
        line(format!("{name}_RESET"), reg.reset);
        for field in reg.fields {
            let field_name = format!("{name}_{}", field.name.to_ascii_uppercase());
            line(format!("{field_name}_MASK"), field.mask());
            line(format!("{field_name}_SHIFT"), field.lsb);
            line(format!("{field_name}_WIDTH"), field.width);
        }
    }
    program.push_str("    return 0;\n}\n");
    let source = scratch.path("print_regs.c");
    std::fs::write(&source, &program).unwrap();
    let binary = scratch.path("print_regs");
    let Some(output) = run_cc(&[
        "-std=c99".as_ref(),
        "-Wall".as_ref(),
        "-Werror".as_ref(),
        "-o".as_ref(),
        binary.as_os_str(),
        source.as_os_str(),
    ]) else {
        return;
    };
    assert!(
        output.status.success(),
        "cc failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let run = Command::new(&binary)
        .output()
        .expect("run the compiled program");
    assert!(run.status.success());
    assert_eq!(String::from_utf8_lossy(&run.stdout), expected);
}

#[test]
fn hw_04_markdown_lists_every_register_with_reset_and_access() {
    let md = export::to_markdown();
    for reg in REGISTERS {
        let row = md
            .lines()
            .find(|l| l.contains(&format!("| `{}` |", reg.name)))
            .unwrap_or_else(|| panic!("no row for {}", reg.name));
        assert!(
            row.starts_with(&format!("| `{:#05x}` |", reg.offset)),
            "{row}"
        );
        assert!(row.contains(&format!("`{:#010x}`", reg.reset)), "{row}");
        assert!(row.contains(export::access_name(reg.access)), "{row}");
        for field in reg.fields {
            assert!(row.contains(&format!("`{}`", field.name)), "{row}");
        }
    }
}

// ----------------------------------------------- a small JSON reader (tests only)

#[derive(Debug, Clone, PartialEq)]
enum Json {
    Null,
    Bool(bool),
    Number(f64, Option<u64>),
    String(String),
    Array(Vec<Json>),
    Object(BTreeMap<String, Json>),
}

impl Json {
    fn parse(text: &str) -> Result<Json, String> {
        let mut parser = JsonParser {
            bytes: text.as_bytes(),
            pos: 0,
        };
        let value = parser.value()?;
        parser.skip_ws();
        if parser.pos != parser.bytes.len() {
            return Err(format!("trailing data at byte {}", parser.pos));
        }
        Ok(value)
    }

    fn get(&self, key: &str) -> &Json {
        match self {
            Json::Object(map) => map
                .get(key)
                .unwrap_or_else(|| panic!("no key {key:?} in {self:?}")),
            _ => panic!("not an object: {self:?}"),
        }
    }

    fn as_str(&self) -> &str {
        match self {
            Json::String(s) => s,
            _ => panic!("not a string: {self:?}"),
        }
    }

    fn as_u64(&self) -> u64 {
        match self {
            Json::Number(_, Some(n)) => *n,
            _ => panic!("not an unsigned integer: {self:?}"),
        }
    }

    fn as_bool(&self) -> bool {
        match self {
            Json::Bool(b) => *b,
            _ => panic!("not a boolean: {self:?}"),
        }
    }

    fn as_array(&self) -> &[Json] {
        match self {
            Json::Array(items) => items,
            _ => panic!("not an array: {self:?}"),
        }
    }
}

struct JsonParser<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl JsonParser<'_> {
    fn skip_ws(&mut self) {
        while self.pos < self.bytes.len() && self.bytes[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    fn expect(&mut self, byte: u8) -> Result<(), String> {
        self.skip_ws();
        if self.bytes.get(self.pos) == Some(&byte) {
            self.pos += 1;
            Ok(())
        } else {
            Err(format!("expected {:?} at byte {}", byte as char, self.pos))
        }
    }

    fn literal(&mut self, word: &str, value: Json) -> Result<Json, String> {
        if self.bytes[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(value)
        } else {
            Err(format!("bad literal at byte {}", self.pos))
        }
    }

    fn value(&mut self) -> Result<Json, String> {
        self.skip_ws();
        match self.bytes.get(self.pos) {
            Some(b'{') => {
                self.pos += 1;
                let mut map = BTreeMap::new();
                self.skip_ws();
                if self.bytes.get(self.pos) == Some(&b'}') {
                    self.pos += 1;
                    return Ok(Json::Object(map));
                }
                loop {
                    self.skip_ws();
                    let key = self.string()?;
                    self.expect(b':')?;
                    map.insert(key, self.value()?);
                    self.skip_ws();
                    match self.bytes.get(self.pos) {
                        Some(b',') => self.pos += 1,
                        Some(b'}') => {
                            self.pos += 1;
                            return Ok(Json::Object(map));
                        }
                        _ => return Err(format!("bad object at byte {}", self.pos)),
                    }
                }
            }
            Some(b'[') => {
                self.pos += 1;
                let mut items = Vec::new();
                self.skip_ws();
                if self.bytes.get(self.pos) == Some(&b']') {
                    self.pos += 1;
                    return Ok(Json::Array(items));
                }
                loop {
                    items.push(self.value()?);
                    self.skip_ws();
                    match self.bytes.get(self.pos) {
                        Some(b',') => self.pos += 1,
                        Some(b']') => {
                            self.pos += 1;
                            return Ok(Json::Array(items));
                        }
                        _ => return Err(format!("bad array at byte {}", self.pos)),
                    }
                }
            }
            Some(b'"') => Ok(Json::String(self.string()?)),
            Some(b't') => self.literal("true", Json::Bool(true)),
            Some(b'f') => self.literal("false", Json::Bool(false)),
            Some(b'n') => self.literal("null", Json::Null),
            Some(_) => {
                let start = self.pos;
                while self.pos < self.bytes.len()
                    && matches!(
                        self.bytes[self.pos],
                        b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'
                    )
                {
                    self.pos += 1;
                }
                let text = std::str::from_utf8(&self.bytes[start..self.pos]).unwrap();
                let number: f64 = text.parse().map_err(|_| format!("bad number {text:?}"))?;
                Ok(Json::Number(number, text.parse().ok()))
            }
            None => Err("unexpected end of input".into()),
        }
    }

    fn string(&mut self) -> Result<String, String> {
        self.expect(b'"')?;
        let mut out = String::new();
        loop {
            let Some(&byte) = self.bytes.get(self.pos) else {
                return Err("unterminated string".into());
            };
            self.pos += 1;
            match byte {
                b'"' => return Ok(out),
                b'\\' => {
                    let escaped = *self.bytes.get(self.pos).ok_or("bad escape")?;
                    self.pos += 1;
                    match escaped {
                        b'n' => out.push('\n'),
                        b't' => out.push('\t'),
                        b'r' => out.push('\r'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'u' => {
                            let hex = std::str::from_utf8(&self.bytes[self.pos..self.pos + 4])
                                .map_err(|_| "bad \\u escape")?;
                            let code =
                                u32::from_str_radix(hex, 16).map_err(|_| "bad \\u escape")?;
                            out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
                            self.pos += 4;
                        }
                        other => out.push(other as char),
                    }
                }
                _ => {
                    // Copy one UTF-8 sequence whole.
                    let start = self.pos - 1;
                    let len = match byte {
                        0xf0..=0xff => 4,
                        0xe0..=0xef => 3,
                        0xc0..=0xdf => 2,
                        _ => 1,
                    };
                    self.pos = start + len;
                    out.push_str(
                        std::str::from_utf8(&self.bytes[start..self.pos])
                            .map_err(|e| e.to_string())?,
                    );
                }
            }
        }
    }
}

#[test]
fn hw_04_test_json_reader_reads_what_the_script_prints() {
    let doc = Json::parse(r#"{"a": [1, 2.5, "x\"y", true, null], "b": {}}"#).unwrap();
    assert_eq!(doc.get("a").as_array()[0].as_u64(), 1);
    assert_eq!(doc.get("a").as_array()[2].as_str(), "x\"y");
    assert!(doc.get("a").as_array()[3].as_bool());
}
