//! The cngw register map: the one definition of every CSR.
//!
//! The hardware CSR block (`cngw-hdl`), the host driver, the CLI and the exports
//! (SystemRDL, C header, Markdown) all read [`REGISTERS`]. Offsets are byte offsets
//! in BAR0; every register is 32 bits wide.
//!
//! The block is self-describing in the Corundum manner: `ID` at +0x0, `VERSION` at
//! +0x4 and `CAPABILITIES` at +0x8 let a driver discover what the bitstream holds
//! before it touches anything else.

pub mod export;

/// How software may access a register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Read-only: a constant or a status/counter value driven by the hardware.
    ReadOnly,
    /// Read-write storage, reset to [`Register::reset`].
    ReadWrite,
    /// Write-1-to-pulse: each written 1 bit raises a one-cycle strobe; reads return 0.
    WritePulse,
}

impl Access {
    pub fn is_writable(self) -> bool {
        !matches!(self, Access::ReadOnly)
    }
}

/// A named bit field inside a register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    pub name: &'static str,
    pub lsb: u32,
    pub width: u32,
    pub doc: &'static str,
}

impl Field {
    pub fn mask(&self) -> u32 {
        if self.width >= 32 {
            u32::MAX
        } else {
            ((1u32 << self.width) - 1) << self.lsb
        }
    }
}

/// One 32-bit register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Register {
    pub name: &'static str,
    pub offset: u32,
    pub access: Access,
    /// Value after reset (read-only constants hold this value forever).
    pub reset: u32,
    /// True for counters and status values driven by the data path.
    pub volatile: bool,
    pub doc: &'static str,
    pub fields: &'static [Field],
}

impl Register {
    pub fn field(&self, name: &str) -> Option<&'static Field> {
        self.fields
            .iter()
            .find(|f| f.name.eq_ignore_ascii_case(name))
    }
}

/// "CNGW" in ASCII: the value of the `ID` register.
pub const DEVICE_ID: u32 = 0x434E_4757;
/// Register-map version: major in bits 31..16, minor in 15..0.
pub const MAP_VERSION: u32 = 0x0001_0000;
/// Number of WAN egress ports the gateway core has.
pub const NUM_WAN_PORTS: u32 = 1;
/// Size of the CSR window in bytes (the AXI4-Lite address width covers it).
pub const CSR_WINDOW_BYTES: u32 = 0x1000;
/// AXI4-Lite address width of the CSR slave.
pub const CSR_ADDR_BITS: u32 = 12;

/// Bits of the `FEATURE_ENABLE` register. Every feature is off after reset.
pub mod feature {
    /// LH-04: first-level CE marking above K_min.
    pub const LH_ECN_MARK: u32 = 1 << 0;
    /// LH-05..LH-10: Long-haul CNP generation.
    pub const LH_CNP: u32 = 1 << 1;
    /// FCN-01..FCN-06: Fast CNP with flow labels.
    pub const FAST_CNP: u32 = 1 << 2;
    /// PE-01..PE-06: precise (two-level) ECN in the WAN tunnel.
    pub const PRE_ECN: u32 = 1 << 3;
    /// PX-01..PX-04: proxy congestion notification.
    pub const PROXY_CN: u32 = 1 << 4;
    /// RA-01..RA-04: SCONE rate advice.
    pub const RATE_ADVICE: u32 = 1 << 5;
}

/// Bits of the `CAPABILITIES` register: what this bitstream implements.
pub mod capability {
    /// Header parser and counters (always present).
    pub const PARSER: u32 = 1 << 0;
    /// Number of WAN ports in bits 15..8.
    pub const NUM_PORTS_LSB: u32 = 8;
    /// Bits 21..16: the `FEATURE_ENABLE` bits this bitstream implements, in
    /// the same order. A driver refuses to enable a feature that is absent.
    pub const FEATURES_LSB: u32 = 16;
}

/// `FEATURE_ENABLE` bits implemented by this version of the hardware.
pub const IMPLEMENTED_FEATURES: u32 = feature::LH_ECN_MARK;

/// Bits of the `CONTROL` register (write-1-to-pulse).
pub mod control {
    /// Clear every data-path counter.
    pub const CLEAR_COUNTERS: u32 = 1 << 0;
}

const FEATURE_FIELDS: &[Field] = &[
    Field {
        name: "lh_ecn_mark",
        lsb: 0,
        width: 1,
        doc: "LH-04 first-level CE marking above K_min",
    },
    Field {
        name: "lh_cnp",
        lsb: 1,
        width: 1,
        doc: "LH-05..10 Long-haul CNP generation",
    },
    Field {
        name: "fast_cnp",
        lsb: 2,
        width: 1,
        doc: "FCN Fast CNP in WAN",
    },
    Field {
        name: "pre_ecn",
        lsb: 3,
        width: 1,
        doc: "PE precise ECN in WAN",
    },
    Field {
        name: "proxy_cn",
        lsb: 4,
        width: 1,
        doc: "PX proxy congestion notification",
    },
    Field {
        name: "rate_advice",
        lsb: 5,
        width: 1,
        doc: "RA SCONE rate advice",
    },
];

const CAPABILITY_FIELDS: &[Field] = &[
    Field {
        name: "parser",
        lsb: 0,
        width: 1,
        doc: "header parser and counters present",
    },
    Field {
        name: "num_ports",
        lsb: 8,
        width: 8,
        doc: "number of WAN egress ports",
    },
    Field {
        name: "features",
        lsb: 16,
        width: 6,
        doc: "FEATURE_ENABLE bits this bitstream implements (same bit order)",
    },
];

const CONTROL_FIELDS: &[Field] = &[Field {
    name: "clear_counters",
    lsb: 0,
    width: 1,
    doc: "write 1 to clear every data-path counter",
}];

const WHOLE: &[Field] = &[];

macro_rules! register_map {
    ($( $(#[doc = $doc:literal])* $name:ident @ $off:literal : $acc:ident = $reset:expr, volatile = $vol:literal, fields = $fields:expr ;)*) => {
        /// Byte offsets of every register, by name.
        pub mod offset {
            $( $(#[doc = $doc])* pub const $name: u32 = $off; )*
        }
        /// Every register, in offset order.
        pub const REGISTERS: &[Register] = &[
            $( Register {
                name: stringify!($name),
                offset: $off,
                access: Access::$acc,
                reset: $reset,
                volatile: $vol,
                doc: concat!($($doc),*),
                fields: $fields,
            }, )*
        ];
    };
}

register_map! {
    /// Device identifier, "CNGW" in ASCII.
    ID @ 0x000 : ReadOnly = DEVICE_ID, volatile = false, fields = WHOLE;
    /// Register-map version (major 31..16, minor 15..0).
    VERSION @ 0x004 : ReadOnly = MAP_VERSION, volatile = false, fields = WHOLE;
    /// What this bitstream implements.
    CAPABILITIES @ 0x008 : ReadOnly = capability::PARSER | (NUM_WAN_PORTS << capability::NUM_PORTS_LSB) | (IMPLEMENTED_FEATURES << capability::FEATURES_LSB), volatile = false, fields = CAPABILITY_FIELDS;
    /// Scratch register for bus tests; no effect on the device.
    SCRATCH @ 0x00C : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Feature enable bits; every feature is off after reset.
    FEATURE_ENABLE @ 0x010 : ReadWrite = 0, volatile = false, fields = FEATURE_FIELDS;
    /// Control strobes (write 1 to act).
    CONTROL @ 0x014 : WritePulse = 0, volatile = false, fields = CONTROL_FIELDS;
    /// WAN port 0 egress rate R_port in Mb/s (LH-03).
    PORT0_RATE_MBPS @ 0x100 : ReadWrite = 100_000, volatile = false, fields = WHOLE;
    /// WAN port 0 round-trip time estimate RTT_est in microseconds (LH-02).
    PORT0_RTT_EST_US @ 0x104 : ReadWrite = 10_000, volatile = false, fields = WHOLE;
    /// WAN port 0 K_base in bytes: floor of K_max (LH-03).
    PORT0_K_BASE_BYTES @ 0x108 : ReadWrite = 65_536, volatile = false, fields = WHOLE;
    /// WAN port 0 alpha as unsigned 8.8 fixed point (0x0100 = 1.0) (LH-03).
    PORT0_ALPHA_Q8_8 @ 0x10C : ReadWrite = 0x0100, volatile = false, fields = WHOLE;
    /// WAN port 0 K_min in bytes: first-level (CE marking) threshold (LH-04).
    PORT0_K_MIN_BYTES @ 0x110 : ReadWrite = 62_500_000, volatile = false, fields = WHOLE;
    /// WAN port 0 K_max in bytes: second-level (Long-haul CNP) threshold (LH-05).
    PORT0_K_MAX_BYTES @ 0x114 : ReadWrite = 125_000_000, volatile = false, fields = WHOLE;
    /// WAN port 0 queue depth in bytes as the external telemetry input last reported it.
    PORT0_QUEUE_DEPTH_BYTES @ 0x118 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// Frames accepted on dc_rx.
    DC_RX_FRAMES @ 0x200 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// RoCEv2 frames (UDP 4791 with a complete BTH) parsed on dc_rx.
    DC_RX_ROCE_FRAMES @ 0x204 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// Well-formed frames on dc_rx that are not RoCEv2.
    DC_RX_NON_ROCE_FRAMES @ 0x208 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// Malformed or truncated frames on dc_rx (forwarded untouched).
    DC_RX_MALFORMED_FRAMES @ 0x20C : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// Frames sent on wan_tx.
    WAN_TX_FRAMES @ 0x210 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// Frames accepted on wan_rx.
    WAN_RX_FRAMES @ 0x220 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// RoCEv2 frames parsed on wan_rx.
    WAN_RX_ROCE_FRAMES @ 0x224 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// Well-formed frames on wan_rx that are not RoCEv2.
    WAN_RX_NON_ROCE_FRAMES @ 0x228 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// Malformed or truncated frames on wan_rx (forwarded untouched).
    WAN_RX_MALFORMED_FRAMES @ 0x22C : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// Frames sent on dc_tx.
    DC_TX_FRAMES @ 0x230 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// Frames toward the WAN whose ECN field was set to CE (LH-04).
    LH_CE_MARKED_FRAMES @ 0x240 : ReadOnly = 0, volatile = true, fields = WHOLE;
}

/// Looks a register up by name (case-insensitive).
pub fn by_name(name: &str) -> Option<&'static Register> {
    REGISTERS.iter().find(|r| r.name.eq_ignore_ascii_case(name))
}

/// Looks a register up by byte offset.
pub fn by_offset(offset: u32) -> Option<&'static Register> {
    REGISTERS.iter().find(|r| r.offset == offset)
}

/// Position of a register in [`REGISTERS`] (the CSR block's port index).
pub fn index_of(offset: u32) -> usize {
    REGISTERS
        .iter()
        .position(|r| r.offset == offset)
        .unwrap_or_else(|| panic!("no register at offset {offset:#x}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hw_04_offsets_are_unique_aligned_and_sorted() {
        for pair in REGISTERS.windows(2) {
            assert!(
                pair[0].offset < pair[1].offset,
                "{} / {}",
                pair[0].name,
                pair[1].name
            );
        }
        for r in REGISTERS {
            assert_eq!(r.offset % 4, 0, "{} misaligned", r.name);
            assert!(r.offset < CSR_WINDOW_BYTES, "{} outside window", r.name);
        }
    }

    #[test]
    fn hw_04_self_describing_header_at_fixed_offsets() {
        assert_eq!(offset::ID, 0);
        assert_eq!(by_offset(0).unwrap().reset, DEVICE_ID);
        assert_eq!(&DEVICE_ID.to_be_bytes(), b"CNGW");
        assert_eq!(offset::VERSION, 4);
        assert_eq!(offset::CAPABILITIES, 8);
    }

    #[test]
    fn hw_04_every_feature_is_off_after_reset() {
        assert_eq!(by_name("feature_enable").unwrap().reset, 0);
    }

    #[test]
    fn hw_04_fields_fit_and_do_not_overlap() {
        for r in REGISTERS {
            let mut seen = 0u32;
            for f in r.fields {
                assert!(f.lsb + f.width <= 32, "{}.{}", r.name, f.name);
                assert_eq!(seen & f.mask(), 0, "{}.{} overlaps", r.name, f.name);
                seen |= f.mask();
            }
        }
    }
}
