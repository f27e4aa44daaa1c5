//! Register map exports: SystemRDL, a C header and Markdown.
//!
//! Every export is generated from [`REGISTERS`] and the constants next to it, so
//! nothing is typed twice (STYLE.md, "Register single source of truth"). The
//! SystemRDL output compiles with the reference compiler (`systemrdl-compiler`);
//! `regmap/tests/export_rdl.rs` checks that, and compiles the C header with `cc`.

use crate::{
    Access, Field, Register, CSR_ADDR_BITS, CSR_WINDOW_BYTES, DEVICE_ID, MAP_VERSION,
    NUM_WAN_PORTS, REGISTERS,
};
use std::fmt::Write as _;

/// Name of the SystemRDL `addrmap` and prefix of every C macro.
pub const MAP_NAME: &str = "cngw";

/// Name of the single field a register without fields gets in SystemRDL.
pub const WHOLE_FIELD_NAME: &str = "value";

const MAP_DESC: &str =
    "cngw RoCEv2 congestion-notification gateway CSR block (PCIe BAR0, AXI4-Lite). \
Generated from the cngw-regmap crate; do not edit.";

/// The fields of `reg` as the exports show them: its own fields, or one 32-bit
/// field named [`WHOLE_FIELD_NAME`] when it has none.
pub fn effective_fields(reg: &Register) -> Vec<Field> {
    if reg.fields.is_empty() {
        vec![Field {
            name: WHOLE_FIELD_NAME,
            lsb: 0,
            width: 32,
            doc: reg.doc,
        }]
    } else {
        reg.fields.to_vec()
    }
}

/// The reset value of `field` inside `reg`, shifted down to bit 0.
pub fn field_reset(reg: &Register, field: &Field) -> u32 {
    (reg.reset & field.mask()) >> field.lsb
}

/// Short access name used by the C header and the Markdown table.
pub fn access_name(access: Access) -> &'static str {
    match access {
        Access::ReadOnly => "RO",
        Access::ReadWrite => "RW",
        Access::WritePulse => "W1P",
    }
}

/// Bit range as hardware people write it: `[7]` or `[15:8]`.
fn bit_range(field: &Field) -> String {
    if field.width == 1 {
        format!("[{}]", field.lsb)
    } else {
        format!("[{}:{}]", field.lsb + field.width - 1, field.lsb)
    }
}

// ---------------------------------------------------------------- SystemRDL

/// SystemRDL 2.0 keywords; an identifier equal to one is escaped with `\`.
#[rustfmt::skip]
const RDL_KEYWORDS: &[&str] = &[
    "abstract", "accesstype", "addressingtype", "addrmap", "alias", "all", "bit", "boolean",
    "bothedge", "compact", "component", "componentwidth", "constraint", "default", "encode",
    "enum", "external", "false", "field", "fullalign", "hw", "inside", "internal", "level",
    "longint", "mem", "na", "negedge", "nonsticky", "number", "onreadtype", "onwritetype",
    "posedge", "property", "r", "rclr", "ref", "reg", "regalign", "regfile", "rset", "ruser",
    "rw", "rw1", "signal", "string", "sw", "this", "true", "type", "unsigned", "w", "w1", "wclr",
    "woclr", "woset", "wot", "wr", "wset", "wuser", "wzc", "wzs", "wzt",
];

fn rdl_ident(name: &str) -> String {
    if RDL_KEYWORDS.contains(&name) {
        format!("\\{name}")
    } else {
        name.to_string()
    }
}

fn rdl_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.trim().chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            _ => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `sw`/`hw` properties (and `singlepulse`) of a field of a register with `access`.
fn rdl_access_properties(access: Access) -> &'static [&'static str] {
    match access {
        // Constants and status/counter values: the hardware drives them.
        Access::ReadOnly => &["sw = r", "hw = w"],
        Access::ReadWrite => &["sw = rw", "hw = r"],
        Access::WritePulse => &["sw = w", "hw = r", "singlepulse = true"],
    }
}

/// The register map as a SystemRDL 2.0 `addrmap` named `cngw`.
pub fn to_systemrdl() -> String {
    let mut out = String::new();
    let _ = writeln!(out, "// Generated from cngw-regmap; do not edit.");
    let _ = writeln!(out, "addrmap {MAP_NAME} {{");
    let _ = writeln!(out, "    name = {};", rdl_string(MAP_NAME));
    let _ = writeln!(out, "    desc = {};", rdl_string(MAP_DESC));
    let _ = writeln!(out, "    default regwidth = 32;");
    let _ = writeln!(out, "    default accesswidth = 32;");
    for reg in REGISTERS {
        let _ = writeln!(out);
        let _ = writeln!(out, "    reg {{");
        let _ = writeln!(out, "        name = {};", rdl_string(reg.name));
        let _ = writeln!(out, "        desc = {};", rdl_string(reg.doc));
        let _ = writeln!(out, "        regwidth = 32;");
        for field in effective_fields(reg) {
            let _ = writeln!(out, "        field {{");
            let _ = writeln!(out, "            desc = {};", rdl_string(field.doc));
            for property in rdl_access_properties(reg.access) {
                let _ = writeln!(out, "            {property};");
            }
            let _ = writeln!(
                out,
                "        }} {}[{}:{}] = {:#x};",
                rdl_ident(field.name),
                field.lsb + field.width - 1,
                field.lsb,
                field_reset(reg, &field)
            );
        }
        let _ = writeln!(out, "    }} {} @ {:#05x};", rdl_ident(reg.name), reg.offset);
    }
    let _ = writeln!(out, "}};");
    out
}

// ------------------------------------------------------------------ C header

fn c_comment(text: &str) -> String {
    text.trim().replace("*/", "* /")
}

fn c_name(name: &str) -> String {
    name.to_ascii_uppercase()
}

/// The register map as a C header: offsets, field masks and shifts, reset values.
pub fn to_c_header() -> String {
    let prefix = c_name(MAP_NAME);
    let guard = format!("{prefix}_REGS_H");
    let mut out = String::new();
    let _ = writeln!(out, "/* {} */", c_comment(MAP_DESC));
    let _ = writeln!(out, "#ifndef {guard}");
    let _ = writeln!(out, "#define {guard}");
    let _ = writeln!(out);
    let _ = writeln!(out, "/* Value of the ID register (\"CNGW\" in ASCII). */");
    let _ = writeln!(out, "#define {prefix}_DEVICE_ID {DEVICE_ID:#010x}u");
    let _ = writeln!(
        out,
        "/* Register-map version: major in bits 31..16, minor in 15..0. */"
    );
    let _ = writeln!(out, "#define {prefix}_MAP_VERSION {MAP_VERSION:#010x}u");
    let _ = writeln!(
        out,
        "#define {prefix}_MAP_VERSION_MAJOR {}u",
        MAP_VERSION >> 16
    );
    let _ = writeln!(
        out,
        "#define {prefix}_MAP_VERSION_MINOR {}u",
        MAP_VERSION & 0xffff
    );
    let _ = writeln!(out, "#define {prefix}_NUM_WAN_PORTS {NUM_WAN_PORTS}u");
    let _ = writeln!(
        out,
        "#define {prefix}_CSR_WINDOW_BYTES {CSR_WINDOW_BYTES:#x}u"
    );
    let _ = writeln!(out, "#define {prefix}_CSR_ADDR_BITS {CSR_ADDR_BITS}u");
    let _ = writeln!(out, "#define {prefix}_REG_COUNT {}u", REGISTERS.len());
    for reg in REGISTERS {
        let name = format!("{prefix}_REG_{}", c_name(reg.name));
        let _ = writeln!(out);
        let volatile = if reg.volatile { ", volatile" } else { "" };
        let _ = writeln!(
            out,
            "/* {} ({}{volatile}): {} */",
            reg.name,
            access_name(reg.access),
            c_comment(reg.doc)
        );
        let _ = writeln!(out, "#define {name} {:#05x}u", reg.offset);
        let _ = writeln!(out, "#define {name}_RESET {:#010x}u", reg.reset);
        for field in reg.fields {
            let field_name = format!("{name}_{}", c_name(field.name));
            let _ = writeln!(
                out,
                "/* {}.{} {}: {} */",
                reg.name,
                field.name,
                bit_range(field),
                c_comment(field.doc)
            );
            let _ = writeln!(out, "#define {field_name}_SHIFT {}u", field.lsb);
            let _ = writeln!(out, "#define {field_name}_WIDTH {}u", field.width);
            let _ = writeln!(out, "#define {field_name}_MASK {:#010x}u", field.mask());
        }
    }
    let _ = writeln!(out);
    let _ = writeln!(out, "#endif /* {guard} */");
    out
}

// ------------------------------------------------------------------ Markdown

fn md_cell(text: &str) -> String {
    text.trim().replace('|', "\\|").replace('\n', " ")
}

/// The register map as a Markdown document with one table row per register.
pub fn to_markdown() -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# {MAP_NAME} register map");
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "<!-- Generated from the cngw-regmap crate; do not edit. -->"
    );
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "Byte offsets in BAR0; every register is 32 bits wide. ID reads `{DEVICE_ID:#010x}` \
         (\"CNGW\"), the map version is {}.{} (`{MAP_VERSION:#010x}`), the CSR window is \
         {CSR_WINDOW_BYTES:#x} bytes.",
        MAP_VERSION >> 16,
        MAP_VERSION & 0xffff
    );
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "Access: RO read-only, RW read-write, W1P write 1 to pulse (reads return 0). \
         Volatile registers are counters or status driven by the data path."
    );
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "| Offset | Name | Access | Reset | Description | Fields |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|");
    for reg in REGISTERS {
        let access = if reg.volatile {
            format!("{} (volatile)", access_name(reg.access))
        } else {
            access_name(reg.access).to_string()
        };
        let fields = if reg.fields.is_empty() {
            String::new()
        } else {
            reg.fields
                .iter()
                .map(|f| format!("`{}` {}: {}", f.name, bit_range(f), md_cell(f.doc)))
                .collect::<Vec<_>>()
                .join("<br>")
        };
        let _ = writeln!(
            out,
            "| `{:#05x}` | `{}` | {} | `{:#010x}` | {} | {} |",
            reg.offset,
            reg.name,
            access,
            reg.reset,
            md_cell(reg.doc),
            fields
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hw_04_systemrdl_has_every_register_at_its_offset() {
        let rdl = to_systemrdl();
        assert!(rdl.starts_with("// Generated"));
        assert!(rdl.contains("addrmap cngw {"));
        for reg in REGISTERS {
            let placed = format!("}} {} @ {:#05x};", reg.name, reg.offset);
            assert!(rdl.contains(&placed), "missing {placed}");
        }
        assert!(rdl.contains("singlepulse = true;"));
        assert!(rdl.contains(&format!("value[31:0] = {DEVICE_ID:#x};")));
    }

    #[test]
    fn hw_04_rdl_identifiers_that_are_keywords_are_escaped() {
        assert_eq!(rdl_ident("value"), "value");
        assert_eq!(rdl_ident("sw"), "\\sw");
        assert_eq!(rdl_string("a \"b\" \\"), "\"a \\\"b\\\" \\\\\"");
    }

    #[test]
    fn hw_04_c_header_has_offsets_masks_and_guard() {
        let header = to_c_header();
        assert!(header.contains("#ifndef CNGW_REGS_H"));
        assert!(header.trim_end().ends_with("#endif /* CNGW_REGS_H */"));
        assert!(header.contains("#define CNGW_DEVICE_ID 0x434e4757u"));
        for reg in REGISTERS {
            assert!(header.contains(&format!(
                "#define CNGW_REG_{} {:#05x}u\n",
                reg.name, reg.offset
            )));
        }
        assert!(header.contains("#define CNGW_REG_CAPABILITIES_NUM_PORTS_MASK 0x0000ff00u"));
        assert!(header.contains("#define CNGW_REG_CAPABILITIES_NUM_PORTS_SHIFT 8u"));
    }

    #[test]
    fn hw_04_markdown_has_a_row_per_register() {
        let md = to_markdown();
        let rows = md.lines().filter(|l| l.starts_with("| `0x")).count();
        assert_eq!(rows, REGISTERS.len());
        assert!(md.contains("`num_ports` [15:8]"));
        assert_eq!(md_cell("a|b"), "a\\|b");
    }
}
