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
pub const IMPLEMENTED_FEATURES: u32 = feature::LH_ECN_MARK
    | feature::LH_CNP
    | feature::FAST_CNP
    | feature::PRE_ECN
    | feature::PROXY_CN
    | feature::RATE_ADVICE;

/// Bits of the `CONTROL` register (write-1-to-pulse).
pub mod control {
    /// Clear every data-path counter.
    pub const CLEAR_COUNTERS: u32 = 1 << 0;
}

/// Bits of `LH_OPTIONS`.
pub mod lh_option {
    pub const HIDE_METRIC: u32 = 1 << 0;
    pub const IPV4_LONGHAUL: u32 = 1 << 1;
    pub const IPV6_LONGHAUL: u32 = 1 << 2;
    pub const DEFER: u32 = 1 << 3;
}

/// Bits of `PORT0_METER_CONTROL` (LH-02).
pub mod meter_control {
    pub const INTERNAL_QUEUE: u32 = 1 << 0;
}

/// Fields of `LH_FORMATn_CONTROL` (LH-15).
pub mod format_control {
    pub const VALID: u32 = 1 << 0;
    pub const FORMAT_LSB: u32 = 1;
    pub const PREFIX_LEN_LSB: u32 = 8;
    /// Entries of the format table.
    pub const ENTRIES: usize = 8;
    /// Distance between two entries' registers.
    pub const STRIDE: u32 = 0x20;
}

/// Fields of `LH_EXT_CONTROL`: the optional extension objects of Long-haul
/// CNPs (LH-12, LH-13). With no object enabled (the state after reset) the
/// extension structure is omitted, as the draft requires.
pub mod ext_control {
    /// Timestamp object (C-Type 1): the 8-byte NTP time of the decision.
    pub const TIMESTAMP: u32 = 1 << 0;
    /// Device identifier object (C-Type 2): `LH_EXT_DEVICE_ID_*`.
    pub const DEVICE_ID: u32 = 1 << 1;
    /// Path identifier object (C-Type 3): `LH_EXT_PATH_ID_*`.
    pub const PATH_ID: u32 = 1 << 2;
    pub const CLASS_NUM_LSB: u32 = 8;
    /// Reset Class-Num: 247, the first private-use value (the packet
    /// crate's `LONGHAUL_CLASS_NUM`; IANA has not assigned one).
    pub const DEFAULT_CLASS_NUM: u32 = 247;
    pub const DEVICE_ID_LEN_LSB: u32 = 16;
    pub const PATH_ID_LEN_LSB: u32 = 24;
    /// Longest device identifier (bytes of `LH_EXT_DEVICE_ID_0..3`).
    pub const DEVICE_ID_MAX: usize = 16;
    /// Longest path identifier (bytes of `LH_EXT_PATH_ID_0..1`).
    pub const PATH_ID_MAX: usize = 8;
}

/// The gateway's time of day (the timestamp object's clock): an uptime
/// counter advanced by `LH_TOD_INCREMENT` every clock, plus a base the host
/// sets. Bits of `LH_TOD_CONTROL` (write-1-to-pulse).
pub mod tod_control {
    /// Latch the uptime (NTP format) into `LH_TOD_UPTIME_*`.
    pub const CAPTURE: u32 = 1 << 0;
    /// The time of day becomes uptime + `LH_TOD_BASE_*` (as written).
    pub const SET: u32 = 1 << 1;
    /// Fraction bits of `LH_TOD_INCREMENT` below the NTP fraction: the
    /// increment is in units of 2^-56 s.
    pub const INCREMENT_EXTRA_BITS: u32 = 24;
    /// `LH_TOD_INCREMENT` for a core clock of `hz` hertz: round(2^56 / hz).
    pub const fn increment_for(hz: u64) -> u64 {
        ((1u128 << 56) + hz as u128 / 2).wrapping_div(hz as u128) as u64
    }
    /// The reset value: the 100GbE MAC clock, 322.265625 MHz.
    pub const DEFAULT_INCREMENT: u32 = increment_for(322_265_625) as u32;
}

/// Bits of `LEARN_CONTROL`: source-QP learning methods (LH-01), each off
/// after reset.
pub mod learn_control {
    /// Learn source QPs from RDMA CM REQ/REP MADs on QP1.
    pub const CM_ENABLE: u32 = 1 << 0;
    /// Learn source QPs by pairing dc_rx request PSNs with wan_rx
    /// acknowledgement PSNs.
    pub const PSN_ENABLE: u32 = 1 << 1;
}

/// Bits of `PE_CONTROL`: the roles of precise ECN in the WAN
/// (draft-hu-rtgwg-pre-ecn-wan), each off after reset and active only with
/// `FEATURE_ENABLE.pre_ecn`.
pub mod pe_control {
    /// PE-03: congested WAN node: two-threshold marking toward the WAN
    /// (ECT(1) above T1, CE above T2) on the average queue.
    pub const WAN_MARKING: u32 = 1 << 0;
}

/// Bits of `FCN_CONTROL`: the roles of Fast CNP (draft-he-fcn-in-wan), each
/// off after reset and active only with `FEATURE_ENABLE.fast_cnp`.
pub mod fcn_control {
    /// FCN-03/PE-04: congested WAN node: a Fast CNP to the outer source of
    /// each ECN-capable IPv6 frame the two-threshold draw marks (light:
    /// levels 1..3, severe: 4..7), within the `FCN_BUCKET_*` rate.
    pub const WAN_NODE: u32 = 1 << 0;
    /// FCN-03: also copy the flow label into the Fast CNP's own IPv6 header.
    pub const COPY_LABEL: u32 = 1 << 1;
    /// FCN-05: ingress PE: Fast CNPs to `GW_IPV6` on wan_rx are taken off
    /// the path to dc_tx and, from an `FCN_RX_DOMn` prefix and within the
    /// `FCN_RX_BUCKET_*` rate, turned into a standard CNP to the sender of
    /// the flow their label names.
    pub const INGRESS_PE: u32 = 1 << 2;
}

/// Bits of `TUNNEL_CONTROL`: the tunnel roles of a PE (draft-he-fcn-in-wan,
/// draft-hu-rtgwg-pre-ecn-wan), off after reset. Change them while the
/// WAN input is idle.
pub mod tunnel_control {
    /// PE-02: egress PE: VXLAN and SRv6 frames to `GW_IPV6` on wan_rx are
    /// decapsulated toward dc_tx, ECN per the decapsulation table.
    pub const EGRESS_PE: u32 = 1 << 0;
    /// PE-06: this egress PE's output leaves the pre-ECN domain: RFC 6040's
    /// table (outer ECT(1) copied inward) instead of the draft's.
    pub const OUTSIDE_DOMAIN: u32 = 1 << 1;
    /// FCN-02/PE-01: ingress PE: every frame from dc_rx is encapsulated
    /// toward wan_tx (store and forward), its outer IPv6 flow label the
    /// label of its flow (FCN-01), outer ECN per RFC 6040.
    pub const INGRESS_PE: u32 = 1 << 2;
    /// The ingress PE's tunnel is SRv6 (`TUNNEL_SID*`); 0: VXLAN to
    /// `TUNNEL_REMOTE_*`.
    pub const SRV6: u32 = 1 << 3;
    /// SRv6 path of two SIDs (`TUNNEL_SID0_*`, then `TUNNEL_SID1_*`); 0: one.
    pub const TWO_SIDS: u32 = 1 << 4;
    /// RFC 6040 compatibility mode: outer ECN Not-ECT; 0: normal mode (the
    /// inner ECN copied).
    pub const COMPAT: u32 = 1 << 5;
}

/// Bits and fields of `PE_SHAPER_CONTROL` and the packed `PE_SHAPER_*`
/// registers: the ingress PE's per-flow shaper and alternate path (PE-05).
pub mod proxy {
    /// This gateway is a proxy (PX-02): CN messages to GW_IPV4/GW_IPV6 and
    /// PROXY_UDP_PORT on wan_rx are taken off the path and translated
    /// into standard CNPs (with FEATURE_ENABLE.proxy_cn).
    pub const ENABLE: u32 = 1 << 0;
    /// PX-04 border filtering on receipt: CN messages whose outer source
    /// lies outside every valid FCN_RX_DOMn prefix are dropped.
    pub const FILTER: u32 = 1 << 1;
    /// PX-01: this gateway is a congested node that tells proxies: a
    /// notification the Long-haul controller decides for a sender the
    /// prefix -> proxy table covers leaves as a CN message to that proxy
    /// (with FEATURE_ENABLE.proxy_cn). With `FILTER`, messages to a proxy
    /// outside every valid FCN_RX_DOMn prefix are dropped (PX-04).
    pub const GENERATE: u32 = 1 << 2;
    /// Default CN message UDP port (draft TBD1): 49792.
    pub const DEFAULT_UDP_PORT: u32 = 49792;
    /// Entries of the prefix -> proxy table (PX-03).
    pub const ENTRIES: u32 = 16;
    /// `PROXY_ENTRY_CONTROL` / `PROXY_ENTRY_READ_STATE`: the entry is valid.
    pub const ENTRY_VALID: u32 = 1 << 0;
    /// Prefix length in bits 15..8 (IPv4 prefixes as 96 + length).
    pub const ENTRY_LEN_SHIFT: u32 = 8;
    /// `PROXY_ENTRY_COMMAND`: copy the staging registers into entry `PROXY_ENTRY_INDEX`.
    pub const COMMIT: u32 = 1 << 0;
    /// `PROXY_LOOKUP_RESULT`: an entry matched.
    pub const LOOKUP_HIT: u32 = 1 << 0;
    /// `PROXY_LOOKUP_RESULT`: the matching entry's index, bits 11..8.
    pub const LOOKUP_INDEX_SHIFT: u32 = 8;
}

pub mod pe_shaper {
    /// Light notifications (Fast CNP levels 1..3) slow their flow at the
    /// tunnel entrance instead of becoming standard CNPs.
    pub const ENABLE: u32 = 1 << 0;
    /// A shaped flow whose rate falls to `ALT_BELOW` moves to the alternate
    /// SRv6 path (`TUNNEL_ALT_SID*`) until it recovers to `ALT_ABOVE`.
    pub const ALT_ENABLE: u32 = 1 << 1;
    /// The alternate path has two SIDs (`TUNNEL_ALT_SID0_*`, then `_SID1_*`).
    pub const ALT_TWO_SIDS: u32 = 1 << 2;
    /// `rate -= rate >> cut_shift` per light notification, bits 11..8.
    pub const CUT_SHIFT_LSB: u32 = 8;
    /// Default cut: 1/8 of the rate per notification.
    pub const DEFAULT_CUT_SHIFT: u32 = 3;
    /// `PE_SHAPER_RATE`: maximum (15..0) and minimum (31..16) rate, bytes per
    /// microsecond. Default 12,500 (100 Gb/s) and 1,250 (10 Gb/s).
    pub const DEFAULT_RATE: u32 = 12_500 | (1_250 << 16);
    /// `PE_SHAPER_RECOVER`: quiet microseconds per step (15..0) and the step
    /// in bytes per microsecond (31..16). Default 55 us (DCQCN's rate
    /// increase timer) and 1,250.
    pub const DEFAULT_RECOVER: u32 = 55 | (1_250 << 16);
    /// `PE_SHAPER_BURST` default: 64 KiB.
    pub const DEFAULT_BURST: u32 = 65_536;
    /// `PE_SHAPER_ALT` default: below 6,250 (50 Gb/s), back at 10,000 (80 Gb/s).
    pub const DEFAULT_ALT: u32 = 6_250 | (10_000 << 16);
    /// `PE_SHAPER_PROBE_STATE`: the slot is in use (bit 0), its flow takes
    /// the alternate path (bit 1), its frames in the block (12..4), its rate
    /// (31..16).
    pub const PROBE_USED: u32 = 1 << 0;
    pub const PROBE_ALT: u32 = 1 << 1;
    pub const PROBE_WAITING_LSB: u32 = 4;
    pub const PROBE_RATE_LSB: u32 = 16;
}

/// Bits of `RA_CONTROL`.
pub mod ra_control {
    /// RA-02: the port's advice follows the law (else it is 8 C).
    pub const LAW: u32 = 1 << 0;
    /// RA-01: BTH byte 4 bit [`CAPABLE_BIT`] marks a frame's sender capable.
    pub const HEADER_BIT: u32 = 1 << 1;
    /// The capability bit's mask in BTH byte 4.
    pub const CAPABLE_BIT: u8 = 1 << 4;
}

/// Bits of `RA_REMOTE_CONTROL`.
pub mod ra_remote_control {
    /// RA-04: send the data-centre port's advice to the peers.
    pub const SEND: u32 = 1 << 0;
    /// RA-04: accept the peers' advice.
    pub const ACCEPT: u32 = 1 << 1;
}

/// Bits of `FCN_RX_DOM0_CONTROL` / `FCN_RX_DOM1_CONTROL` (and of the
/// `RA_CAPn_CONTROL` / `RA_POLICYn_CONTROL` prefix entries).
pub mod fcn_rx_dom_control {
    /// The prefix is in use.
    pub const VALID: u32 = 1 << 0;
    /// Prefix length in bits (0..128), bits 15..8.
    pub const LEN_SHIFT: u32 = 8;
}

/// Bits of `FLOW_COMMAND`.
pub mod flow_command {
    pub const LOOKUP: u32 = 1 << 0;
    pub const INSERT_STATIC: u32 = 1 << 1;
    pub const DELETE: u32 = 1 << 2;
    pub const READ_LOCATION: u32 = 1 << 3;
}

/// Bits of `FLOW_STATUS`.
pub mod flow_status {
    pub const DONE: u32 = 1 << 0;
    pub const HIT: u32 = 1 << 1;
    pub const FAILED: u32 = 1 << 2;
    pub const SQP_VALID: u32 = 1 << 3;
    pub const PINNED: u32 = 1 << 4;
}

/// Volatile registers that `CONTROL.clear_counters` leaves alone: status
/// and gauges, as opposed to event counters.
pub const NOT_CLEARED: &[u32] = &[
    offset::PORT0_QUEUE_DEPTH_BYTES,
    offset::RA_PORT_RATE_MBPS,
    offset::RA_DC_PORT_RATE_MBPS,
    offset::RA_PEER0_MBPS,
    offset::RA_PEER1_MBPS,
    offset::FLOW_STATUS,
    offset::FLOW_RESULT_SQP,
    offset::FLOW_OCCUPANCY,
    offset::FLOW_LEARNED,
    offset::FLOW_RESULT_SIP_0,
    offset::FLOW_RESULT_SIP_1,
    offset::FLOW_RESULT_SIP_2,
    offset::FLOW_RESULT_SIP_3,
    offset::FLOW_RESULT_DIP_0,
    offset::FLOW_RESULT_DIP_1,
    offset::FLOW_RESULT_DIP_2,
    offset::FLOW_RESULT_DIP_3,
    offset::FLOW_RESULT_DQP,
    offset::PORT0_QUEUE_GROWTH_BYTES,
    offset::PORT0_VQ_DEPTH_BYTES,
    offset::PORT0_QUEUE_AVG_BYTES,
    offset::PORT0_EMR_Q16,
    offset::LH_PORT_WINDOW_BYTES,
    offset::LH_TOD_UPTIME_SECONDS,
    offset::LH_TOD_UPTIME_FRACTION,
    offset::PE_P_ECT1,
    offset::PE_P_CE,
    offset::PROXY_ENTRY_READ_PREFIX_0,
    offset::PROXY_ENTRY_READ_PREFIX_1,
    offset::PROXY_ENTRY_READ_PREFIX_2,
    offset::PROXY_ENTRY_READ_PREFIX_3,
    offset::PROXY_ENTRY_READ_ADDR_0,
    offset::PROXY_ENTRY_READ_ADDR_1,
    offset::PROXY_ENTRY_READ_ADDR_2,
    offset::PROXY_ENTRY_READ_ADDR_3,
    offset::PROXY_ENTRY_READ_STATE,
    offset::PROXY_LOOKUP_RESULT,
];

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

const LH_OPTION_FIELDS: &[Field] = &[
    Field {
        name: "hide_metric",
        lsb: 0,
        width: 1,
        doc: "LH-14: send Metric Type and Value as zero",
    },
    Field {
        name: "ipv4_longhaul",
        lsb: 1,
        width: 1,
        doc: "LH-15: IPv4 senders accept the Long-haul CNP RoCEv2 format (else a standard CNP)",
    },
    Field {
        name: "ipv6_longhaul",
        lsb: 2,
        width: 1,
        doc: "LH-15: IPv6 senders accept the Long-haul CNP RoCEv2 format (else the ICMPv6 format)",
    },
    Field {
        name: "defer",
        lsb: 3,
        width: 1,
        doc: "LH-10 downstream deferral: no Long-haul CNP to a flow whose bytes in its last complete observation window fell below 7/8 of the window before",
    },
];

const ACTION_FIELDS: &[Field] = &[
    Field {
        name: "parameter",
        lsb: 0,
        width: 16,
        doc: "percent (Rate Reduce, Resume) or microseconds (Pause)",
    },
    Field {
        name: "action",
        lsb: 22,
        width: 2,
        doc: "0 Notify, 1 Pause, 2 Rate Reduce, 3 Resume",
    },
    Field {
        name: "level",
        lsb: 24,
        width: 8,
        doc: "Congestion Level",
    },
];

const METER_CONTROL_FIELDS: &[Field] = &[Field {
    name: "internal_queue",
    lsb: 0,
    width: 1,
    doc: "LH-02: the queue depth is the internal virtual egress queue's (PORT0_VQ_DRAIN_Q16), not the telemetry input's",
}];

const FORMAT_CONTROL_FIELDS: &[Field] = &[
    Field {
        name: "valid",
        lsb: 0,
        width: 1,
        doc: "the entry takes part in the longest-prefix match",
    },
    Field {
        name: "format",
        lsb: 1,
        width: 2,
        doc: "0 standard CNP, 1 Long-haul CNP RoCEv2 format, 2 Long-haul CNP ICMPv6 format (IPv6 senders only), 3 reserved",
    },
    Field {
        name: "prefix_len",
        lsb: 8,
        width: 8,
        doc: "prefix length in bits, 0..128 (IPv4 prefixes: 96 + length)",
    },
];

const EXT_CONTROL_FIELDS: &[Field] = &[
    Field {
        name: "timestamp",
        lsb: 0,
        width: 1,
        doc: "LH-12/LH-13: timestamp object (C-Type 1, 8-byte NTP time of the decision, LH_TOD_*)",
    },
    Field {
        name: "device_id",
        lsb: 1,
        width: 1,
        doc: "device identifier object (C-Type 2, LH_EXT_DEVICE_ID_*)",
    },
    Field {
        name: "path_id",
        lsb: 2,
        width: 1,
        doc: "path identifier object (C-Type 3, LH_EXT_PATH_ID_*)",
    },
    Field {
        name: "class_num",
        lsb: 8,
        width: 8,
        doc: "Class-Num of the objects (draft TBD2; 247: private use)",
    },
    Field {
        name: "device_id_len",
        lsb: 16,
        width: 5,
        doc: "device identifier length in bytes, 0..16 (larger values send 16)",
    },
    Field {
        name: "path_id_len",
        lsb: 24,
        width: 4,
        doc: "path identifier length in bytes, 0..8 (larger values send 8)",
    },
];

const TOD_CONTROL_FIELDS: &[Field] = &[
    Field {
        name: "capture",
        lsb: 0,
        width: 1,
        doc: "write 1 to latch the uptime into LH_TOD_UPTIME_SECONDS/FRACTION",
    },
    Field {
        name: "set",
        lsb: 1,
        width: 1,
        doc: "write 1: the time of day becomes uptime + LH_TOD_BASE_SECONDS/FRACTION",
    },
];

const LEARN_CONTROL_FIELDS: &[Field] = &[
    Field {
        name: "cm_enable",
        lsb: 0,
        width: 1,
        doc: "LH-01: learn source QPs from RDMA CM REQ/REP MADs on QP1 (both inputs)",
    },
    Field {
        name: "psn_enable",
        lsb: 1,
        width: 1,
        doc:
            "LH-01: learn source QPs by pairing dc_rx request PSNs with wan_rx acknowledgement PSNs",
    },
];

const PE_CONTROL_FIELDS: &[Field] = &[Field {
    name: "wan_marking",
    lsb: 0,
    width: 1,
    doc: "PE-03: two-threshold marking toward the WAN on the average queue (ECT(1) above PE_T1, CE above PE_T2)",
}];

const FCN_CONTROL_FIELDS: &[Field] = &[
    Field {
        name: "wan_node",
        lsb: 0,
        width: 1,
        doc: "FCN-03/PE-04: congested WAN node: Fast CNPs to the outer source of frames the two-threshold draw marks",
    },
    Field {
        name: "copy_label",
        lsb: 1,
        width: 1,
        doc: "FCN-03: copy the flow label into the Fast CNP's IPv6 header too",
    },
    Field {
        name: "ingress_pe",
        lsb: 2,
        width: 1,
        doc: "FCN-05: ingress PE: received Fast CNPs to GW_IPV6 become standard CNPs to the flow's sender",
    },
];

const TUNNEL_CONTROL_FIELDS: &[Field] = &[
    Field {
        name: "egress_pe",
        lsb: 0,
        width: 1,
        doc: "PE-02: decapsulate VXLAN and SRv6 frames to GW_IPV6 on wan_rx",
    },
    Field {
        name: "outside_domain",
        lsb: 1,
        width: 1,
        doc: "PE-06: the output leaves the pre-ECN domain: RFC 6040's decapsulation table",
    },
    Field {
        name: "ingress_pe",
        lsb: 2,
        width: 1,
        doc: "FCN-02/PE-01: encapsulate every frame from dc_rx toward wan_tx, outer flow label = the flow's label",
    },
    Field {
        name: "srv6",
        lsb: 3,
        width: 1,
        doc: "The ingress tunnel is SRv6 (TUNNEL_SID*); 0: VXLAN to TUNNEL_REMOTE_*",
    },
    Field {
        name: "two_sids",
        lsb: 4,
        width: 1,
        doc: "SRv6 path of two SIDs (SID0 then SID1); 0: SID0 only",
    },
    Field {
        name: "compat",
        lsb: 5,
        width: 1,
        doc: "RFC 6040 compatibility mode (outer Not-ECT); 0: normal mode",
    },
];

const PROXY_CONTROL_FIELDS: &[Field] = &[
    Field {
        name: "enable",
        lsb: 0,
        width: 1,
        doc: "PX-02: act as proxy: CN messages to this gateway become standard CNPs to the flows' senders",
    },
    Field {
        name: "filter",
        lsb: 1,
        width: 1,
        doc: "PX-04: drop CN messages whose outer source is outside every valid FCN_RX_DOMn prefix, and (with generate) CN messages to a proxy outside them",
    },
    Field {
        name: "generate",
        lsb: 2,
        width: 1,
        doc: "PX-01: notifications for senders the prefix -> proxy table covers leave as CN messages to their proxy",
    },
];

const PROXY_ENTRY_COMMAND_FIELDS: &[Field] = &[Field {
    name: "commit",
    lsb: 0,
    width: 1,
    doc: "PX-03: copy the staging registers into entry PROXY_ENTRY_INDEX in one clock",
}];

const PROXY_ENTRY_CONTROL_FIELDS: &[Field] = &[
    Field {
        name: "valid",
        lsb: 0,
        width: 1,
        doc: "PX-03: the entry takes part in look-ups",
    },
    Field {
        name: "len",
        lsb: 8,
        width: 8,
        doc: "prefix length in bits of the 128-bit address (IPv4: 96 + length)",
    },
];

const PROXY_ENTRY_READ_STATE_FIELDS: &[Field] = &[
    Field {
        name: "valid",
        lsb: 0,
        width: 1,
        doc: "PX-03: entry PROXY_ENTRY_INDEX is valid",
    },
    Field {
        name: "len",
        lsb: 8,
        width: 8,
        doc: "its prefix length",
    },
];

const PROXY_LOOKUP_RESULT_FIELDS: &[Field] = &[
    Field {
        name: "hit",
        lsb: 0,
        width: 1,
        doc: "PX-03: an entry's prefix holds PROXY_LOOKUP_ADDR",
    },
    Field {
        name: "index",
        lsb: 8,
        width: 4,
        doc: "the longest such entry (lowest index among equals)",
    },
];

const PE_SHAPER_CONTROL_FIELDS: &[Field] = &[
    Field {
        name: "enable",
        lsb: 0,
        width: 1,
        doc: "PE-05: light Fast CNPs (levels 1..3) slow their flow at the tunnel entrance instead of becoming CNPs",
    },
    Field {
        name: "alt_enable",
        lsb: 1,
        width: 1,
        doc: "PE-05: shaped flows at or below PE_SHAPER_ALT.below take the alternate SRv6 path until back at .above",
    },
    Field {
        name: "alt_two_sids",
        lsb: 2,
        width: 1,
        doc: "the alternate path has two SIDs (ALT_SID0 then ALT_SID1); 0: ALT_SID0 only",
    },
    Field {
        name: "cut_shift",
        lsb: 8,
        width: 4,
        doc: "each light notification cuts rate >> cut_shift",
    },
];

const PE_SHAPER_RATE_FIELDS: &[Field] = &[
    Field {
        name: "max",
        lsb: 0,
        width: 16,
        doc: "full rate, bytes per microsecond: a slot recovered to it is freed",
    },
    Field {
        name: "min",
        lsb: 16,
        width: 16,
        doc: "floor of the cuts, bytes per microsecond",
    },
];

const PE_SHAPER_RECOVER_FIELDS: &[Field] = &[
    Field {
        name: "quiet_us",
        lsb: 0,
        width: 16,
        doc: "microseconds without a notification per recovery step (0 acts as 1)",
    },
    Field {
        name: "step",
        lsb: 16,
        width: 16,
        doc: "rate added per step, bytes per microsecond",
    },
];

const PE_SHAPER_ALT_FIELDS: &[Field] = &[
    Field {
        name: "below",
        lsb: 0,
        width: 16,
        doc: "a shaped flow at or below this rate moves to the alternate path",
    },
    Field {
        name: "above",
        lsb: 16,
        width: 16,
        doc: "and returns at or above this one (above > below)",
    },
];

const PE_SHAPER_PROBE_STATE_FIELDS: &[Field] = &[
    Field {
        name: "used",
        lsb: 0,
        width: 1,
        doc: "the probed slot shapes a flow",
    },
    Field {
        name: "alt",
        lsb: 1,
        width: 1,
        doc: "its flow takes the alternate path",
    },
    Field {
        name: "waiting",
        lsb: 4,
        width: 9,
        doc: "its frames in the shaper",
    },
    Field {
        name: "rate",
        lsb: 16,
        width: 16,
        doc: "its rate, bytes per microsecond",
    },
];

const FCN_RX_DOM_CONTROL_FIELDS: &[Field] = &[
    Field {
        name: "valid",
        lsb: 0,
        width: 1,
        doc: "the prefix is in use",
    },
    Field {
        name: "len",
        lsb: 8,
        width: 8,
        doc: "prefix length in bits (0..128; above 128 acts as 128)",
    },
];

const RA_CONTROL_FIELDS: &[Field] = &[
    Field {
        name: "law",
        lsb: 0,
        width: 1,
        doc: "RA-02: compute the port's advice from its arrivals and queue every RA_INTERVAL_US (RCP's law); 0: the advice is the capacity, capped by the policy entries",
    },
    Field {
        name: "header_bit",
        lsb: 1,
        width: 1,
        doc: "RA-01: a RoCEv2 frame with bit 4 of BTH byte 4 (a reserved bit; bit 5 is the Long-haul CNP's E bit) set marks its sender capable too",
    },
];

const RA_REMOTE_CONTROL_FIELDS: &[Field] = &[
    Field {
        name: "send",
        lsb: 0,
        width: 1,
        doc: "RA-04: as WAN egress gateway, send the data-centre port's advice (RA_DC_PORT_RATE_MBPS) to every valid peer after each control interval, on wan_tx",
    },
    Field {
        name: "accept",
        lsb: 1,
        width: 1,
        doc: "RA-04: as source gateway, take RoCEv2 frames to the gateway's address from wan_rx; a peer's Rate Advice caps the advice of flows toward the prefix behind it",
    },
];

const RA_GAINS_FIELDS: &[Field] = &[
    Field {
        name: "alpha",
        lsb: 0,
        width: 9,
        doc: "spare-capacity gain, 1/256",
    },
    Field {
        name: "beta",
        lsb: 16,
        width: 9,
        doc: "queue gain, 1/256",
    },
];

const FLOW_COMMAND_FIELDS: &[Field] = &[
    Field {
        name: "lookup",
        lsb: 0,
        width: 1,
        doc: "look the key up",
    },
    Field {
        name: "insert_static",
        lsb: 1,
        width: 1,
        doc: "insert or update a pinned entry with FLOW_SQP",
    },
    Field {
        name: "delete",
        lsb: 2,
        width: 1,
        doc: "remove the key",
    },
    Field {
        name: "read_location",
        lsb: 3,
        width: 1,
        doc: "read the entry at FLOW_LOCATION (iteration)",
    },
];

const FLOW_LOCATION_FIELDS: &[Field] = &[
    Field {
        name: "slot",
        lsb: 0,
        width: 4,
        doc: "way 0..3 of the bucket, or stash slot 0..7",
    },
    Field {
        name: "bucket",
        lsb: 4,
        width: 12,
        doc: "bucket 0..4095",
    },
    Field {
        name: "stash",
        lsb: 16,
        width: 1,
        doc: "the slot is in the stash",
    },
];

const FLOW_STATUS_FIELDS: &[Field] = &[
    Field {
        name: "done",
        lsb: 0,
        width: 1,
        doc: "the last command has completed (cleared by a new command)",
    },
    Field {
        name: "hit",
        lsb: 1,
        width: 1,
        doc: "the key was in the table (read_location: the slot holds an entry)",
    },
    Field {
        name: "failed",
        lsb: 2,
        width: 1,
        doc: "insert failed: bucket and stash full",
    },
    Field {
        name: "sqp_valid",
        lsb: 3,
        width: 1,
        doc: "FLOW_RESULT_SQP holds a source QP",
    },
    Field {
        name: "pinned",
        lsb: 4,
        width: 1,
        doc: "the entry is static",
    },
];

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
    /// WAN port 0 minimum interval between Long-haul CNPs to one flow, in microseconds; 0 means RTT_est (LH-08).
    PORT0_FLOW_INTERVAL_US @ 0x11C : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Clocks per microsecond of the core clock: the time base of every microsecond register (322 at 322.265625 MHz).
    CLOCKS_PER_US @ 0x120 : ReadWrite = 322, volatile = false, fields = WHOLE;
    /// Long-haul CNP token bucket of WAN port 0: one token every this many clocks (LH-08).
    LH_BUCKET_REFILL_CLOCKS @ 0x124 : ReadWrite = 3_222, volatile = false, fields = WHOLE;
    /// Long-haul CNP token bucket depth (burst), 1..8 (LH-08).
    LH_BUCKET_DEPTH @ 0x128 : ReadWrite = 8, volatile = false, fields = WHOLE;
    /// Long-haul CNP options (LH-10, LH-14, LH-15).
    LH_OPTIONS @ 0x12C : ReadWrite = 0, volatile = false, fields = LH_OPTION_FIELDS;
    /// Severity row 0 (QD > K_max): Congestion Level [31:24], action [23:22], parameter [15:0] (LH-07).
    LH_SEV0_ACTION @ 0x130 : ReadWrite = 0xB480_001E, volatile = false, fields = ACTION_FIELDS;
    /// Severity row 1 applies when QD > K_max and QD > this many bytes (LH-07).
    LH_SEV1_THRESHOLD_BYTES @ 0x134 : ReadWrite = 0xFFFF_FFFF, volatile = false, fields = WHOLE;
    /// Severity row 1 action, as row 0 (LH-07).
    LH_SEV1_ACTION @ 0x138 : ReadWrite = 0xDC40_0064, volatile = false, fields = ACTION_FIELDS;
    /// Severity row 2 applies when QD > K_max and QD > this many bytes (LH-07).
    LH_SEV2_THRESHOLD_BYTES @ 0x13C : ReadWrite = 0xFFFF_FFFF, volatile = false, fields = WHOLE;
    /// Severity row 2 action, as row 0 (LH-07).
    LH_SEV2_ACTION @ 0x140 : ReadWrite = 0xFA40_03E8, volatile = false, fields = ACTION_FIELDS;
    /// Resume (QD below K_min for RTT_est): Congestion Level [31:24], action [23:22], parameter [15:0] (LH-09).
    LH_RESUME_ACTION @ 0x144 : ReadWrite = 0x14C0_0032, volatile = false, fields = ACTION_FIELDS;
    /// DSCP of generated notifications.
    NOTIFY_DSCP @ 0x148 : ReadWrite = 48, volatile = false, fields = WHOLE;
    /// The gateway's MAC address, bytes 0..1 (the first on the wire in bits 15..8): source MAC of notifications.
    GW_MAC_HI @ 0x14C : ReadWrite = 0x0200, volatile = false, fields = WHOLE;
    /// The gateway's MAC address, bytes 2..5 (byte 2 in bits 31..24).
    GW_MAC_LO @ 0x150 : ReadWrite = 0x0000_0001, volatile = false, fields = WHOLE;
    /// The gateway's IPv4 address (network order: the first byte in bits 31..24): source of notifications to IPv4 senders.
    GW_IPV4 @ 0x154 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// The gateway's IPv6 address, bytes 0..3 (network order): source of notifications to IPv6 senders.
    GW_IPV6_0 @ 0x158 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// The gateway's IPv6 address, bytes 4..7.
    GW_IPV6_1 @ 0x15C : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// The gateway's IPv6 address, bytes 8..11.
    GW_IPV6_2 @ 0x160 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// The gateway's IPv6 address, bytes 12..15.
    GW_IPV6_3 @ 0x164 : ReadWrite = 0, volatile = false, fields = WHOLE;
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
    /// Long-haul CNPs (severity actions) sent (LH-05).
    LH_CNP_SENT @ 0x244 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// Long-haul CNP Resumes sent (LH-09).
    LH_RESUME_SENT @ 0x248 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// Congested packets of flows notified within the minimum interval (no CNP; LH-08).
    LH_CNP_SUPPRESSED @ 0x24C : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// Long-haul CNPs not sent for want of a token (LH-08).
    LH_CNP_RATE_LIMITED @ 0x250 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// Long-haul CNPs not sent because the notified-flow table (8 flows) was full (LH-06).
    LH_CNP_TRACKER_FULL @ 0x254 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// Congested packets of flows without a learned source QP (no CNP possible; LH-01).
    LH_CNP_NO_SQP @ 0x258 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// Notification frames sent on dc_tx (also counted in DC_TX_FRAMES).
    NOTIFY_TX_FRAMES @ 0x25C : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// Flow-table command key: source IP bytes 0..3 (network order; IPv4 as ::ffff:a.b.c.d).
    FLOW_SIP_0 @ 0x300 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Source IP bytes 4..7.
    FLOW_SIP_1 @ 0x304 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Source IP bytes 8..11.
    FLOW_SIP_2 @ 0x308 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Source IP bytes 12..15.
    FLOW_SIP_3 @ 0x30C : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Flow-table command key: destination IP bytes 0..3.
    FLOW_DIP_0 @ 0x310 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Destination IP bytes 4..7.
    FLOW_DIP_1 @ 0x314 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Destination IP bytes 8..11.
    FLOW_DIP_2 @ 0x318 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Destination IP bytes 12..15.
    FLOW_DIP_3 @ 0x31C : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Flow-table command key: destination QP (BTH DestQP of the flow's data packets).
    FLOW_DQP @ 0x320 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Flow-table command value: the flow's source QP (for insert).
    FLOW_SQP @ 0x324 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Flow-table command: write one bit to run it on the key above (LH-01).
    FLOW_COMMAND @ 0x328 : WritePulse = 0, volatile = false, fields = FLOW_COMMAND_FIELDS;
    /// Result of the last flow-table command.
    FLOW_STATUS @ 0x32C : ReadOnly = 0, volatile = true, fields = FLOW_STATUS_FIELDS;
    /// Source QP the last flow-table command found.
    FLOW_RESULT_SQP @ 0x330 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// Flows in the table (gauge).
    FLOW_OCCUPANCY @ 0x334 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// Flows in the table with a source QP (gauge).
    FLOW_LEARNED @ 0x338 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// New flows not inserted because their bucket and the stash were full.
    FLOW_INSERT_FAILURES @ 0x33C : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// RoCEv2 packets toward the WAN whose flow has no source QP.
    FLOW_LOOKUPS_WITHOUT_SQP @ 0x340 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// Flow-table location for `FLOW_COMMAND.read_location`: slot [3:0] (way 0..3, or stash slot), bucket [15:4], stash [16].
    FLOW_LOCATION @ 0x344 : ReadWrite = 0, volatile = false, fields = FLOW_LOCATION_FIELDS;
    /// Idle time after which a flow that is not static leaves the table, in microseconds; 0 turns aging off (LH-01).
    FLOW_AGE_TIMEOUT_US @ 0x348 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Flows removed by aging.
    FLOW_AGED @ 0x34C : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// Key of the entry the last flow-table command found: source IP bytes 0..3 (network order).
    FLOW_RESULT_SIP_0 @ 0x350 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// Source IP bytes 4..7.
    FLOW_RESULT_SIP_1 @ 0x354 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// Source IP bytes 8..11.
    FLOW_RESULT_SIP_2 @ 0x358 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// Source IP bytes 12..15.
    FLOW_RESULT_SIP_3 @ 0x35C : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// Destination IP bytes 0..3.
    FLOW_RESULT_DIP_0 @ 0x360 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// Destination IP bytes 4..7.
    FLOW_RESULT_DIP_1 @ 0x364 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// Destination IP bytes 8..11.
    FLOW_RESULT_DIP_2 @ 0x368 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// Destination IP bytes 12..15.
    FLOW_RESULT_DIP_3 @ 0x36C : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// Destination QP of the entry the last flow-table command found.
    FLOW_RESULT_DQP @ 0x370 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// ICMPv6 type of Long-haul CNPs in ICMPv6 format (LH-13; 200 is private experimentation until IANA assigns one).
    LH_ICMPV6_TYPE @ 0x380 : ReadWrite = 200, volatile = false, fields = WHOLE;
    /// WAN port 0 queue-growth interval in microseconds: the depth is sampled at its end (LH-02).
    PORT0_QGR_INTERVAL_US @ 0x384 : ReadWrite = 100, volatile = false, fields = WHOLE;
    /// V_growth: growth over one interval, in bytes, above which the second level triggers (LH-05; reset: never).
    PORT0_V_GROWTH_BYTES @ 0x388 : ReadWrite = 0xFFFF_FFFF, volatile = false, fields = WHOLE;
    /// Queue growth over the last complete interval, in bytes (0 when the queue shrank) (LH-02).
    PORT0_QUEUE_GROWTH_BYTES @ 0x38C : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// Source-QP learning methods (LH-01); every method is off after reset.
    LEARN_CONTROL @ 0x390 : ReadWrite = 0, volatile = false, fields = LEARN_CONTROL_FIELDS;
    /// Source QPs learned from CM REQ/REP: two per REP that paired with its pending REQ (LH-01).
    LEARN_CM_BINDINGS @ 0x394 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// Pending CM REQs replaced before their REP came (the least recently used of 8 slots; LH-01).
    LEARN_CM_REQ_EVICTIONS @ 0x398 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// CM REPs with no pending REQ from the other input: nothing learned (LH-01).
    LEARN_CM_REP_UNMATCHED @ 0x39C : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// CM pairings not written to the flow table because the learning queue (4 pairings) was full: data look-ups took every flow-table slot (LH-01).
    LEARN_QUEUE_DROPS @ 0x3A0 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// WAN port 0 queue meter (LH-02): where the queue depth comes from.
    PORT0_METER_CONTROL @ 0x3A4 : ReadWrite = 0, volatile = false, fields = METER_CONTROL_FIELDS;
    /// Drain rate of WAN port 0's internal virtual egress queue: bytes per clock, unsigned 16.16 fixed point (reset: 100 Gb/s at 322.265625 MHz) (LH-02).
    PORT0_VQ_DRAIN_Q16 @ 0x3A8 : ReadWrite = 2_542_002, volatile = false, fields = WHOLE;
    /// Depth of WAN port 0's internal virtual egress queue in bytes (gauge; LH-02).
    PORT0_VQ_DEPTH_BYTES @ 0x3AC : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// Weight of WAN port 0's average queue: every microsecond avg += (QD - avg) / 2^n, n = 0..31 (LH-02).
    PORT0_AVG_WEIGHT_SHIFT @ 0x3B0 : ReadWrite = 4, volatile = false, fields = WHOLE;
    /// Average queue depth of WAN port 0 in bytes (gauge; LH-02).
    PORT0_QUEUE_AVG_BYTES @ 0x3B4 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// ECN marking-rate window of WAN port 0 in microseconds (LH-02).
    PORT0_EMR_WINDOW_US @ 0x3B8 : ReadWrite = 100, volatile = false, fields = WHOLE;
    /// V_ecn: marking rate (CE share of ECN-capable frames toward the WAN, 0.16 fixed point) above which the second level triggers (LH-05; reset: never).
    PORT0_V_ECN_Q16 @ 0x3BC : ReadWrite = 0xFFFF_FFFF, volatile = false, fields = WHOLE;
    /// ECN marking rate of WAN port 0 over the last complete window, 0.16 fixed point (gauge; LH-02).
    PORT0_EMR_Q16 @ 0x3C0 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// Long-haul CNP format table entry 0 (LH-15): prefix bytes 0..3 (network order; IPv4 as ::ffff:a.b.c.d).
    LH_FORMAT0_PREFIX_0 @ 0x400 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Entry 0 prefix bytes 4..7.
    LH_FORMAT0_PREFIX_1 @ 0x404 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Entry 0 prefix bytes 8..11.
    LH_FORMAT0_PREFIX_2 @ 0x408 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Entry 0 prefix bytes 12..15.
    LH_FORMAT0_PREFIX_3 @ 0x40C : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Entry 0: valid, the format senders in the prefix accept, prefix length (write it last) (LH-15).
    LH_FORMAT0_CONTROL @ 0x410 : ReadWrite = 0, volatile = false, fields = FORMAT_CONTROL_FIELDS;
    /// Long-haul CNP format table entry 1, as entry 0: prefix bytes 0..3.
    LH_FORMAT1_PREFIX_0 @ 0x420 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Entry 1 prefix bytes 4..7.
    LH_FORMAT1_PREFIX_1 @ 0x424 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Entry 1 prefix bytes 8..11.
    LH_FORMAT1_PREFIX_2 @ 0x428 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Entry 1 prefix bytes 12..15.
    LH_FORMAT1_PREFIX_3 @ 0x42C : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Entry 1 valid, format and prefix length, as entry 0.
    LH_FORMAT1_CONTROL @ 0x430 : ReadWrite = 0, volatile = false, fields = FORMAT_CONTROL_FIELDS;
    /// Long-haul CNP format table entry 2, as entry 0: prefix bytes 0..3.
    LH_FORMAT2_PREFIX_0 @ 0x440 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Entry 2 prefix bytes 4..7.
    LH_FORMAT2_PREFIX_1 @ 0x444 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Entry 2 prefix bytes 8..11.
    LH_FORMAT2_PREFIX_2 @ 0x448 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Entry 2 prefix bytes 12..15.
    LH_FORMAT2_PREFIX_3 @ 0x44C : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Entry 2 valid, format and prefix length, as entry 0.
    LH_FORMAT2_CONTROL @ 0x450 : ReadWrite = 0, volatile = false, fields = FORMAT_CONTROL_FIELDS;
    /// Long-haul CNP format table entry 3, as entry 0: prefix bytes 0..3.
    LH_FORMAT3_PREFIX_0 @ 0x460 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Entry 3 prefix bytes 4..7.
    LH_FORMAT3_PREFIX_1 @ 0x464 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Entry 3 prefix bytes 8..11.
    LH_FORMAT3_PREFIX_2 @ 0x468 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Entry 3 prefix bytes 12..15.
    LH_FORMAT3_PREFIX_3 @ 0x46C : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Entry 3 valid, format and prefix length, as entry 0.
    LH_FORMAT3_CONTROL @ 0x470 : ReadWrite = 0, volatile = false, fields = FORMAT_CONTROL_FIELDS;
    /// Long-haul CNP format table entry 4, as entry 0: prefix bytes 0..3.
    LH_FORMAT4_PREFIX_0 @ 0x480 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Entry 4 prefix bytes 4..7.
    LH_FORMAT4_PREFIX_1 @ 0x484 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Entry 4 prefix bytes 8..11.
    LH_FORMAT4_PREFIX_2 @ 0x488 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Entry 4 prefix bytes 12..15.
    LH_FORMAT4_PREFIX_3 @ 0x48C : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Entry 4 valid, format and prefix length, as entry 0.
    LH_FORMAT4_CONTROL @ 0x490 : ReadWrite = 0, volatile = false, fields = FORMAT_CONTROL_FIELDS;
    /// Long-haul CNP format table entry 5, as entry 0: prefix bytes 0..3.
    LH_FORMAT5_PREFIX_0 @ 0x4A0 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Entry 5 prefix bytes 4..7.
    LH_FORMAT5_PREFIX_1 @ 0x4A4 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Entry 5 prefix bytes 8..11.
    LH_FORMAT5_PREFIX_2 @ 0x4A8 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Entry 5 prefix bytes 12..15.
    LH_FORMAT5_PREFIX_3 @ 0x4AC : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Entry 5 valid, format and prefix length, as entry 0.
    LH_FORMAT5_CONTROL @ 0x4B0 : ReadWrite = 0, volatile = false, fields = FORMAT_CONTROL_FIELDS;
    /// Long-haul CNP format table entry 6, as entry 0: prefix bytes 0..3.
    LH_FORMAT6_PREFIX_0 @ 0x4C0 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Entry 6 prefix bytes 4..7.
    LH_FORMAT6_PREFIX_1 @ 0x4C4 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Entry 6 prefix bytes 8..11.
    LH_FORMAT6_PREFIX_2 @ 0x4C8 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Entry 6 prefix bytes 12..15.
    LH_FORMAT6_PREFIX_3 @ 0x4CC : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Entry 6 valid, format and prefix length, as entry 0.
    LH_FORMAT6_CONTROL @ 0x4D0 : ReadWrite = 0, volatile = false, fields = FORMAT_CONTROL_FIELDS;
    /// Long-haul CNP format table entry 7, as entry 0: prefix bytes 0..3.
    LH_FORMAT7_PREFIX_0 @ 0x4E0 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Entry 7 prefix bytes 4..7.
    LH_FORMAT7_PREFIX_1 @ 0x4E4 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Entry 7 prefix bytes 8..11.
    LH_FORMAT7_PREFIX_2 @ 0x4E8 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Entry 7 prefix bytes 12..15.
    LH_FORMAT7_PREFIX_3 @ 0x4EC : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Entry 7 valid, format and prefix length, as entry 0.
    LH_FORMAT7_CONTROL @ 0x4F0 : ReadWrite = 0, volatile = false, fields = FORMAT_CONTROL_FIELDS;
    /// Optional extension objects of Long-haul CNPs (LH-12, LH-13): which objects, their Class-Num and the identifier lengths; none after reset (no extension structure).
    LH_EXT_CONTROL @ 0x500 : ReadWrite = ext_control::DEFAULT_CLASS_NUM << ext_control::CLASS_NUM_LSB, volatile = false, fields = EXT_CONTROL_FIELDS;
    /// Device identifier bytes 0..3 (UTF-8; first byte in bits 31..24).
    LH_EXT_DEVICE_ID_0 @ 0x504 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Device identifier bytes 4..7.
    LH_EXT_DEVICE_ID_1 @ 0x508 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Device identifier bytes 8..11.
    LH_EXT_DEVICE_ID_2 @ 0x50C : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Device identifier bytes 12..15.
    LH_EXT_DEVICE_ID_3 @ 0x510 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Path identifier bytes 0..3 (opaque; first byte in bits 31..24).
    LH_EXT_PATH_ID_0 @ 0x514 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Path identifier bytes 4..7.
    LH_EXT_PATH_ID_1 @ 0x518 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Time of day: uptime advance per core clock in units of 2^-56 s, round(2^56 / f_clk) (reset: 322.265625 MHz).
    LH_TOD_INCREMENT @ 0x51C : ReadWrite = tod_control::DEFAULT_INCREMENT, volatile = false, fields = WHOLE;
    /// Time of day = uptime + this base: seconds (NTP, since 1900), taken on LH_TOD_CONTROL.set.
    LH_TOD_BASE_SECONDS @ 0x520 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Base fraction of a second (units of 2^-32 s), taken on LH_TOD_CONTROL.set.
    LH_TOD_BASE_FRACTION @ 0x524 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Time-of-day strobes: capture the uptime, set the base.
    LH_TOD_CONTROL @ 0x528 : WritePulse = 0, volatile = false, fields = TOD_CONTROL_FIELDS;
    /// Uptime at the last LH_TOD_CONTROL.capture: whole seconds.
    LH_TOD_UPTIME_SECONDS @ 0x52C : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// Uptime at the last LH_TOD_CONTROL.capture: fraction of a second (units of 2^-32 s).
    LH_TOD_UPTIME_FRACTION @ 0x530 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// Observation window of the per-flow and per-port byte counts, in microseconds, counted from reset (LH-06).
    LH_OBS_WINDOW_US @ 0x600 : ReadWrite = 100, volatile = false, fields = WHOLE;
    /// Top-contributor share (LH-06), in 1/256: a congested packet's flow is told only once its bytes in the current window reach this share of the port's bytes in the last complete window; 0 tells every flow.
    LH_TOP_SHARE_Q8 @ 0x604 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Congested packets of flows below the top-contributor share (no CNP; LH-06).
    LH_CNP_NOT_TOP @ 0x608 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// RoCEv2 bytes toward the WAN in the last complete observation window (gauge; LH-06).
    LH_PORT_WINDOW_BYTES @ 0x60C : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// Congested packets of flows whose rate already fell (downstream deferral: no CNP; LH-10).
    LH_CNP_DEFERRED @ 0x610 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// PSNs a PSN-pairing tracker remembers: the last N request PSNs of its flow (24 bits; 0 acts as 1; LH-01).
    LEARN_PSN_WINDOW @ 0x614 : ReadWrite = 0x1_0000, volatile = false, fields = WHOLE;
    /// Acknowledgements on wan_rx that matched exactly one tracked dc_rx flow: one binding each, which fills the flow only if it has no source QP (LH-01).
    LEARN_PSN_BINDINGS @ 0x618 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// Acknowledgements whose PSN lay in the windows of two or more tracked flows: nothing learned (LH-01).
    LEARN_PSN_AMBIGUOUS @ 0x61C : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// PSN trackers replaced before an acknowledgement matched them (the least recently used of 16; LH-01).
    LEARN_PSN_EVICTIONS @ 0x620 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// PSN bindings not written to the flow table because the PSN learning queue (4 bindings) was full (LH-01).
    LEARN_PSN_QUEUE_DROPS @ 0x624 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// Precise ECN roles (PE-01..PE-06), with FEATURE_ENABLE.pre_ecn.
    PE_CONTROL @ 0x628 : ReadWrite = 0, volatile = false, fields = PE_CONTROL_FIELDS;
    /// PE-03 T1: average queue in bytes above which ECT(0)/ECT(1) frames are remarked ECT(1), with a probability rising linearly to 1 at T2.
    PE_T1_BYTES @ 0x62C : ReadWrite = 0xFFFF_FFFF, volatile = false, fields = WHOLE;
    /// PE-03 T2: average queue in bytes above which frames are marked CE, with a probability rising linearly to 1 at PE_TMAX_BYTES.
    PE_T2_BYTES @ 0x630 : ReadWrite = 0xFFFF_FFFF, volatile = false, fields = WHOLE;
    /// PE-03: average queue in bytes from which every ECN-capable frame is marked CE.
    PE_TMAX_BYTES @ 0x634 : ReadWrite = 0xFFFF_FFFF, volatile = false, fields = WHOLE;
    /// PE-03: seed of the 16-bit marking LFSR, loaded when marking is switched on (0 acts as 1).
    PE_LFSR_SEED @ 0x638 : ReadWrite = 0xACE1, volatile = false, fields = WHOLE;
    /// PE-03: ECN-capable frames the draw remarked ECT(1) (not CE).
    PE_ECT1_MARKED @ 0x63C : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// PE-03: ECN-capable frames the draw marked CE.
    PE_CE_MARKED @ 0x640 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// PE-03: probability of an ECT(1) remark, in 1/65536 (65536 = always; gauge).
    PE_P_ECT1 @ 0x644 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// PE-03: probability of a CE mark, in 1/65536 (65536 = always; gauge).
    PE_P_CE @ 0x648 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// Fast CNP roles (FCN-03..FCN-06), all off after reset.
    FCN_CONTROL @ 0x64C : ReadWrite = 0, volatile = false, fields = FCN_CONTROL_FIELDS;
    /// FCN-03: UDP destination (and source) port of Fast CNPs (the draft's TBD1; default 49791).
    FCN_UDP_PORT @ 0x650 : ReadWrite = 49_791, volatile = false, fields = WHOLE;
    /// FCN-06: Fast CNP token bucket: one token every this many clocks (>= 1).
    FCN_BUCKET_REFILL_CLOCKS @ 0x654 : ReadWrite = 3_222, volatile = false, fields = WHOLE;
    /// FCN-06: Fast CNP token bucket depth (burst), 1..8.
    FCN_BUCKET_DEPTH @ 0x658 : ReadWrite = 8, volatile = false, fields = WHOLE;
    /// FCN-03: Fast CNPs queued for sending by the congested WAN node.
    FCN_SENT @ 0x65C : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// FCN-06: Fast CNPs not sent for want of a token.
    FCN_RATE_LIMITED @ 0x660 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// FCN-03: marked frames without an outer IPv6 flow label (IPv4, or label 0): no Fast CNP.
    FCN_NO_LABEL @ 0x664 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// FCN-03: Fast CNPs dropped because their 8-entry queue to the frame builder was full.
    FCN_QUEUE_DROPS @ 0x668 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// FCN-06: first in-domain source prefix of received Fast CNPs, bytes 0..3 (first byte in bits 31..24).
    FCN_RX_DOM0_PREFIX_0 @ 0x66C : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Prefix bytes 4..7.
    FCN_RX_DOM0_PREFIX_1 @ 0x670 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Prefix bytes 8..11.
    FCN_RX_DOM0_PREFIX_2 @ 0x674 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Prefix bytes 12..15.
    FCN_RX_DOM0_PREFIX_3 @ 0x678 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// FCN-06: first in-domain prefix: valid, length.
    FCN_RX_DOM0_CONTROL @ 0x67C : ReadWrite = 0, volatile = false, fields = FCN_RX_DOM_CONTROL_FIELDS;
    /// FCN-06: second in-domain source prefix, bytes 0..3.
    FCN_RX_DOM1_PREFIX_0 @ 0x680 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Prefix bytes 4..7.
    FCN_RX_DOM1_PREFIX_1 @ 0x684 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Prefix bytes 8..11.
    FCN_RX_DOM1_PREFIX_2 @ 0x688 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Prefix bytes 12..15.
    FCN_RX_DOM1_PREFIX_3 @ 0x68C : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// FCN-06: second in-domain prefix: valid, length.
    FCN_RX_DOM1_CONTROL @ 0x690 : ReadWrite = 0, volatile = false, fields = FCN_RX_DOM_CONTROL_FIELDS;
    /// FCN-06: receive-side token bucket of the ingress PE: one token every this many clocks (>= 1).
    FCN_RX_BUCKET_REFILL_CLOCKS @ 0x694 : ReadWrite = 3_222, volatile = false, fields = WHOLE;
    /// FCN-06: receive-side bucket depth (burst), 1..8.
    FCN_RX_BUCKET_DEPTH @ 0x698 : ReadWrite = 8, volatile = false, fields = WHOLE;
    /// FCN-05: destination MAC of the standard CNPs the ingress PE sends (its data-centre next hop), bytes 0..1 in bits 15..0.
    FCN_CNP_MAC_HI @ 0x69C : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Destination MAC bytes 2..5.
    FCN_CNP_MAC_LO @ 0x6A0 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// FCN-05: Fast CNPs to GW_IPV6 taken off wan_rx (not forwarded to dc_tx).
    FCN_RX_RECEIVED @ 0x6A4 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// FCN-05: standard CNPs queued for the senders of flows named by received Fast CNPs.
    FCN_RX_CNP_SENT @ 0x6A8 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// FCN-05: received Fast CNPs with a bad length or UDP checksum (dropped).
    FCN_RX_MALFORMED @ 0x6AC : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// FCN-06: received Fast CNPs from outside every FCN_RX_DOMn prefix (dropped).
    FCN_RX_OUT_OF_DOMAIN @ 0x6B0 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// FCN-05: received Fast CNPs whose label names no flow (dropped).
    FCN_RX_UNKNOWN_LABEL @ 0x6B4 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// FCN-06: received Fast CNPs dropped for want of a receive-side token.
    FCN_RX_RATE_LIMITED @ 0x6B8 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// FCN-05: received Fast CNPs dropped because the translation's 4 slots were in use.
    FCN_RX_QUEUE_DROPS @ 0x6BC : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// FCN-05: received Fast CNPs whose flow has no learned source QP (no CNP).
    FCN_RX_NO_SQP @ 0x6C0 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// Tunnel roles of a PE (PE-02, PE-06), all off after reset.
    TUNNEL_CONTROL @ 0x6C4 : ReadWrite = 0, volatile = false, fields = TUNNEL_CONTROL_FIELDS;
    /// PE-02: destination MAC of the Ethernet header put in front of an SRv6 tunnel's inner packet (the data-centre next hop), bytes 0..1 in bits 15..0.
    TUNNEL_DC_MAC_HI @ 0x6C8 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Destination MAC bytes 2..5.
    TUNNEL_DC_MAC_LO @ 0x6CC : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// PE-02: VXLAN frames decapsulated (runts included, ECN drops not).
    TUNNEL_DECAP_VXLAN @ 0x6D0 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// PE-02: SRv6 frames decapsulated (runts included, ECN drops not).
    TUNNEL_DECAP_SRV6 @ 0x6D4 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// PE-02: tunnelled frames dropped: Not-ECT inside, CE outside.
    TUNNEL_ECN_DROPS @ 0x6D8 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// PE-02: light congestion marks (outer ECT(1) inside the pre-ECN domain, not copied inward).
    TUNNEL_LIGHT_MARKS @ 0x6DC : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// PE-02/PE-06: ECN combinations RFC 6040 says to log (the drops included).
    TUNNEL_ECN_ALARMS @ 0x6E0 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// PE-02: tunnelled frames no longer than their outer headers (nothing sent).
    TUNNEL_RUNT_DROPS @ 0x6E4 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// FCN-02: destination MAC of the encapsulated frames (the PE's WAN next hop), bytes 0..1 in bits 15..0.
    TUNNEL_NEXT_HOP_MAC_HI @ 0x6E8 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Next-hop MAC bytes 2..5.
    TUNNEL_NEXT_HOP_MAC_LO @ 0x6EC : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// FCN-02: VXLAN: the remote (egress) PE's IPv6 address, the outer destination, bytes 0..3 (first byte in bits 31..24).
    TUNNEL_REMOTE_0 @ 0x6F0 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Remote PE bytes 4..7.
    TUNNEL_REMOTE_1 @ 0x6F4 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Remote PE bytes 8..11.
    TUNNEL_REMOTE_2 @ 0x6F8 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Remote PE bytes 12..15.
    TUNNEL_REMOTE_3 @ 0x6FC : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// FCN-02: VXLAN network identifier (bits 23..0).
    TUNNEL_VNI @ 0x700 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// FCN-02: VXLAN UDP source port: base in bits 15..0, mask in bits 31..16 (port = base & !mask | label & mask).
    TUNNEL_UDP_SPORT @ 0x704 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// FCN-02: hop limit of the outer IPv6 header (bits 7..0).
    TUNNEL_HOP_LIMIT @ 0x708 : ReadWrite = 64, volatile = false, fields = WHOLE;
    /// FCN-02: the WAN MTU: the largest outer IPv6 packet in bytes (bits 15..0); larger frames are dropped and counted.
    TUNNEL_WAN_MTU @ 0x70C : ReadWrite = 9000, volatile = false, fields = WHOLE;
    /// FCN-02: SRv6: the first SID (the outer destination), bytes 0..3 (first byte in bits 31..24).
    TUNNEL_SID0_0 @ 0x710 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// First SID bytes 4..7.
    TUNNEL_SID0_1 @ 0x714 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// First SID bytes 8..11.
    TUNNEL_SID0_2 @ 0x718 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// First SID bytes 12..15.
    TUNNEL_SID0_3 @ 0x71C : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// FCN-02: SRv6: the second SID (with TUNNEL_CONTROL.two_sids), bytes 0..3.
    TUNNEL_SID1_0 @ 0x720 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Second SID bytes 4..7.
    TUNNEL_SID1_1 @ 0x724 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Second SID bytes 8..11.
    TUNNEL_SID1_2 @ 0x728 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Second SID bytes 12..15.
    TUNNEL_SID1_3 @ 0x72C : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// FCN-02: frames encapsulated toward wan_tx.
    TUNNEL_ENCAPSULATED @ 0x730 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// FCN-02: frames from dc_rx dropped at the ingress PE: not an IP frame the PE can size (ARP, QinQ, runts).
    TUNNEL_NOT_IP_DROPS @ 0x734 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// FCN-02: frames dropped because the outer packet would exceed TUNNEL_WAN_MTU.
    TUNNEL_MTU_DROPS @ 0x738 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// FCN-02: frames cut to their IP length (Ethernet padding or trailers removed).
    TUNNEL_TRIMMED @ 0x73C : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// FCN-02: frames shorter than their IP length, sent with tuser (error) set.
    TUNNEL_TRUNCATED @ 0x740 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// FCN-02: frames longer than the ingress queue takes (10,240 bytes), cut there and ended with tuser set.
    TUNNEL_OVERSIZE_CUTS @ 0x744 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// PE-05: the alternate SRv6 path's first SID, bytes 0..3 (lane order as TUNNEL_SID0_*).
    TUNNEL_ALT_SID0_0 @ 0x748 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Alternate first SID bytes 4..7.
    TUNNEL_ALT_SID0_1 @ 0x74C : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Alternate first SID bytes 8..11.
    TUNNEL_ALT_SID0_2 @ 0x750 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Alternate first SID bytes 12..15.
    TUNNEL_ALT_SID0_3 @ 0x754 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// PE-05: the alternate path's second SID (with PE_SHAPER_CONTROL.alt_two_sids), bytes 0..3.
    TUNNEL_ALT_SID1_0 @ 0x758 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Alternate second SID bytes 4..7.
    TUNNEL_ALT_SID1_1 @ 0x75C : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Alternate second SID bytes 8..11.
    TUNNEL_ALT_SID1_2 @ 0x760 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Alternate second SID bytes 12..15.
    TUNNEL_ALT_SID1_3 @ 0x764 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// PE-05: the ingress PE's per-flow shaper (8 slots) and alternate path; off after reset.
    PE_SHAPER_CONTROL @ 0x768 : ReadWrite = pe_shaper::DEFAULT_CUT_SHIFT << pe_shaper::CUT_SHIFT_LSB, volatile = false, fields = PE_SHAPER_CONTROL_FIELDS;
    /// PE-05: a shaped flow's rate range, bytes per microsecond.
    PE_SHAPER_RATE @ 0x76C : ReadWrite = pe_shaper::DEFAULT_RATE, volatile = false, fields = PE_SHAPER_RATE_FIELDS;
    /// PE-05: recovery when the notifications stop.
    PE_SHAPER_RECOVER @ 0x770 : ReadWrite = pe_shaper::DEFAULT_RECOVER, volatile = false, fields = PE_SHAPER_RECOVER_FIELDS;
    /// PE-05: token bucket depth per shaped flow, bytes (24 bits).
    PE_SHAPER_BURST @ 0x774 : ReadWrite = pe_shaper::DEFAULT_BURST, volatile = false, fields = WHOLE;
    /// PE-05: the alternate path's hysteresis, bytes per microsecond.
    PE_SHAPER_ALT @ 0x778 : ReadWrite = pe_shaper::DEFAULT_ALT, volatile = false, fields = PE_SHAPER_ALT_FIELDS;
    /// PE-05: the shaper slot (0..7) the PE_SHAPER_PROBE_* registers show.
    PE_SHAPER_PROBE_SLOT @ 0x77C : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// PE-05: the probed slot's state (0 while the slot is free, as the label and tokens).
    PE_SHAPER_PROBE_STATE @ 0x780 : ReadOnly = 0, volatile = true, fields = PE_SHAPER_PROBE_STATE_FIELDS;
    /// PE-05: the probed slot's flow label.
    PE_SHAPER_PROBE_LABEL @ 0x784 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// PE-05: the probed slot's tokens, bytes, two's complement (a deficit is negative).
    PE_SHAPER_PROBE_TOKENS @ 0x788 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// PE-05: frames that left the shaper through its slow lane (shaped).
    PE_SHAPER_SHAPED_FRAMES @ 0x78C : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// PE-05: light notifications that cut a shaped flow's rate or took a slot.
    PE_SHAPER_NOTES_TAKEN @ 0x790 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// PE-05: light notifications ignored because all 8 slots were in use.
    PE_SHAPER_NOTES_DROPPED @ 0x794 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// PE-05: shaped flows moved to the alternate path.
    PE_SHAPER_REROUTES @ 0x798 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// PE-05: flows moved back to the primary path.
    PE_SHAPER_RETURNS @ 0x79C : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// PX-02/PX-04: proxy reception (off after reset).
    PROXY_CONTROL @ 0x7A0 : ReadWrite = 0, volatile = false, fields = PROXY_CONTROL_FIELDS;
    /// PX-02: UDP destination port of CN messages (draft TBD1; default 49792).
    PROXY_UDP_PORT @ 0x7A4 : ReadWrite = proxy::DEFAULT_UDP_PORT, volatile = false, fields = WHOLE;
    /// PX-04: receive-side token bucket: one token every this many clocks; 0: no limit.
    PROXY_RX_BUCKET_REFILL_CLOCKS @ 0x7A8 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// PX-04: receive-side bucket depth (burst), 1..8.
    PROXY_RX_BUCKET_DEPTH @ 0x7AC : ReadWrite = 8, volatile = false, fields = WHOLE;
    /// PX-02: CN messages to this gateway taken off wan_rx (not forwarded to dc_tx).
    PROXY_RX_RECEIVED @ 0x7B0 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// PX-02: CN messages lost because the walker held the previous one (32 clocks each).
    PROXY_RX_BUSY @ 0x7B4 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// PX-02: standard CNPs queued for the senders of flows named by CN messages.
    PROXY_RX_CNP_SENT @ 0x7B8 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// PX-02: CN messages with a bad UDP length, version or family, or cut short (dropped).
    PROXY_RX_MALFORMED @ 0x7BC : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// PX-04: CN messages from outside the domain prefixes (dropped).
    PROXY_RX_OUT_OF_DOMAIN @ 0x7C0 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// PX-02: CN messages whose five-tuple is not RoCEv2's (UDP to 4791).
    PROXY_RX_NOT_ROCE @ 0x7C4 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// PX-02: CN messages whose invoking packet shows no BTH in the first 256 bytes.
    PROXY_RX_NO_BTH @ 0x7C8 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// PX-02: CN messages whose invoking packet's addresses are not the five-tuple's.
    PROXY_RX_MISMATCH @ 0x7CC : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// PX-04: CN messages over the receive-side rate (dropped).
    PROXY_RX_RATE_LIMITED @ 0x7D0 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// PX-02: CN messages dropped because a look-up and two jobs were pending.
    PROXY_RX_QUEUE_DROPS @ 0x7D4 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// PX-02: CN messages naming a flow not in the flow table.
    PROXY_RX_UNKNOWN_FLOW @ 0x7D8 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// PX-02: CN messages naming a flow without a learned source QP (no CNP possible).
    PROXY_RX_NO_SQP @ 0x7DC : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// PX-03: prefix -> proxy table, staging: the prefix, bytes 0..3 (first byte in bits 31..24; IPv4 as ::ffff:a.b.c.d).
    PROXY_ENTRY_PREFIX_0 @ 0x7E0 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Prefix bytes 4..7.
    PROXY_ENTRY_PREFIX_1 @ 0x7E4 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Prefix bytes 8..11.
    PROXY_ENTRY_PREFIX_2 @ 0x7E8 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Prefix bytes 12..15.
    PROXY_ENTRY_PREFIX_3 @ 0x7EC : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// PX-03 staging: the proxy's address, bytes 0..3 (IPv4 as ::ffff:a.b.c.d).
    PROXY_ENTRY_ADDR_0 @ 0x7F0 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Address bytes 4..7.
    PROXY_ENTRY_ADDR_1 @ 0x7F4 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Address bytes 8..11.
    PROXY_ENTRY_ADDR_2 @ 0x7F8 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Address bytes 12..15.
    PROXY_ENTRY_ADDR_3 @ 0x7FC : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// PX-03 staging: valid, prefix length.
    PROXY_ENTRY_CONTROL @ 0x800 : ReadWrite = 0, volatile = false, fields = PROXY_ENTRY_CONTROL_FIELDS;
    /// PX-03: the entry (0..15) a commit writes and the PROXY_ENTRY_READ_* registers show.
    PROXY_ENTRY_INDEX @ 0x804 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// PX-03: write 1 (commit) to copy the staging registers into entry PROXY_ENTRY_INDEX in one clock.
    PROXY_ENTRY_COMMAND @ 0x808 : WritePulse = 0, volatile = false, fields = PROXY_ENTRY_COMMAND_FIELDS;
    /// PX-03: entry PROXY_ENTRY_INDEX's prefix, bytes 0..3 (bits past its length cleared).
    PROXY_ENTRY_READ_PREFIX_0 @ 0x80C : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// Prefix bytes 4..7.
    PROXY_ENTRY_READ_PREFIX_1 @ 0x810 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// Prefix bytes 8..11.
    PROXY_ENTRY_READ_PREFIX_2 @ 0x814 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// Prefix bytes 12..15.
    PROXY_ENTRY_READ_PREFIX_3 @ 0x818 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// PX-03: entry PROXY_ENTRY_INDEX's proxy address, bytes 0..3.
    PROXY_ENTRY_READ_ADDR_0 @ 0x81C : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// Address bytes 4..7.
    PROXY_ENTRY_READ_ADDR_1 @ 0x820 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// Address bytes 8..11.
    PROXY_ENTRY_READ_ADDR_2 @ 0x824 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// Address bytes 12..15.
    PROXY_ENTRY_READ_ADDR_3 @ 0x828 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// PX-03: entry PROXY_ENTRY_INDEX's valid bit and length.
    PROXY_ENTRY_READ_STATE @ 0x82C : ReadOnly = 0, volatile = true, fields = PROXY_ENTRY_READ_STATE_FIELDS;
    /// PX-03: an address to look up in the table, bytes 0..3 (IPv4 as ::ffff:a.b.c.d).
    PROXY_LOOKUP_ADDR_0 @ 0x830 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Address bytes 4..7.
    PROXY_LOOKUP_ADDR_1 @ 0x834 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Address bytes 8..11.
    PROXY_LOOKUP_ADDR_2 @ 0x838 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// Address bytes 12..15.
    PROXY_LOOKUP_ADDR_3 @ 0x83C : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// PX-03: the table's answer for PROXY_LOOKUP_ADDR, three clocks after its last write (read something else in between).
    PROXY_LOOKUP_RESULT @ 0x840 : ReadOnly = 0, volatile = true, fields = PROXY_LOOKUP_RESULT_FIELDS;
    /// PX-04: generating-side token bucket: one token every this many clocks; 0: no limit.
    PROXY_TX_BUCKET_REFILL_CLOCKS @ 0x844 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// PX-04: generating-side bucket depth (burst), 1..8.
    PROXY_TX_BUCKET_DEPTH @ 0x848 : ReadWrite = 8, volatile = false, fields = WHOLE;
    /// PX-01: CN messages to proxies queued for dc_tx.
    PROXY_TX_SENT @ 0x84C : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// PX-04: CN messages to a proxy outside the domain prefixes (dropped).
    PROXY_TX_OUT_OF_DOMAIN @ 0x850 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// PX-01: CN messages lost because the generator was copying the previous one (64 clocks each).
    PROXY_TX_BUSY @ 0x854 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// PX-04: CN messages refused by the generating-side bucket.
    PROXY_TX_RATE_LIMITED @ 0x858 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// PX-01: CN messages lost because the output queue had no room for them.
    PROXY_TX_QUEUE_DROPS @ 0x85C : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// RA-02: how the advised rate is made (fields).
    RA_CONTROL @ 0x860 : ReadWrite = 0, volatile = false, fields = RA_CONTROL_FIELDS;
    /// RA-03: BTH opcode of Rate Advice messages (draft example 0x1D).
    RA_OPCODE @ 0x864 : ReadWrite = 0x1D, volatile = false, fields = WHOLE;
    /// RA-02: the WAN port's capacity C, bytes per microsecond (12,500 = 100 Gb/s; bits 19..0). The advice never exceeds 8 C Mb/s.
    RA_CAPACITY_BYTES_PER_US @ 0x868 : ReadWrite = 12_500, volatile = false, fields = WHOLE;
    /// RA-02: the law's control interval T, microseconds (bits 23..0; at least 1 us, and T x CLOCKS_PER_US >= 124).
    RA_INTERVAL_US @ 0x86C : ReadWrite = 1_000, volatile = false, fields = WHOLE;
    /// RA-02: the law's gains in 1/256 (alpha 8..0, beta 24..16; RCP's 0.4 and 0.226).
    RA_GAINS_Q8 @ 0x870 : ReadWrite = 102 | (58 << 16), volatile = false, fields = RA_GAINS_FIELDS;
    /// RA-02: T / d in 1/65536 (d the senders' reaction time; the host computes it).
    RA_T_OVER_D_Q16 @ 0x874 : ReadWrite = 6_554, volatile = false, fields = WHOLE;
    /// RA-02: 1 / (d C) in 2^-32 per (us x bytes/us) (the host computes it).
    RA_INV_DC_Q32 @ 0x878 : ReadWrite = 34, volatile = false, fields = WHOLE;
    /// RA-02: the floor of the computed advice, Mb/s.
    RA_MIN_MBPS @ 0x87C : ReadWrite = 100, volatile = false, fields = WHOLE;
    /// RA-03: a flow is sent a changed advice at most once per this many microseconds.
    RA_FLOW_SPACING_US @ 0x880 : ReadWrite = 1_000, volatile = false, fields = WHOLE;
    /// RA-02: the port's advised rate now, Mb/s (the law's, or 8 C while the law is off).
    RA_PORT_RATE_MBPS @ 0x884 : ReadOnly = 100_000, volatile = true, fields = WHOLE;
    /// RA-03: Rate Advice messages queued for dc_tx.
    RA_SENT @ 0x888 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// RA-03: frames of capable flows whose changed advice waited for RA_FLOW_SPACING_US.
    RA_HELD @ 0x88C : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// RA-03: frames of capable flows without a learned source QP (no message possible).
    RA_NO_SQP @ 0x890 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// RA-03: messages lost because the queue toward the builder was full.
    RA_QUEUE_DROPS @ 0x894 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// RA-01: capable senders, prefix 0: prefix bytes 0..3 (IPv4 as ::ffff:a.b.c.d).
    RA_CAP0_PREFIX_0 @ 0x898 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// RA-01: capable senders, prefix 0: prefix bytes 4..7 (IPv4 as ::ffff:a.b.c.d).
    RA_CAP0_PREFIX_1 @ 0x89C : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// RA-01: capable senders, prefix 0: prefix bytes 8..11 (IPv4 as ::ffff:a.b.c.d).
    RA_CAP0_PREFIX_2 @ 0x8A0 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// RA-01: capable senders, prefix 0: prefix bytes 12..15 (IPv4 as ::ffff:a.b.c.d).
    RA_CAP0_PREFIX_3 @ 0x8A4 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// RA-01: capable senders, prefix 0: valid and prefix length.
    RA_CAP0_CONTROL @ 0x8A8 : ReadWrite = 0, volatile = false, fields = FCN_RX_DOM_CONTROL_FIELDS;
    /// RA-01: capable senders, prefix 1: prefix bytes 0..3 (IPv4 as ::ffff:a.b.c.d).
    RA_CAP1_PREFIX_0 @ 0x8AC : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// RA-01: capable senders, prefix 1: prefix bytes 4..7 (IPv4 as ::ffff:a.b.c.d).
    RA_CAP1_PREFIX_1 @ 0x8B0 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// RA-01: capable senders, prefix 1: prefix bytes 8..11 (IPv4 as ::ffff:a.b.c.d).
    RA_CAP1_PREFIX_2 @ 0x8B4 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// RA-01: capable senders, prefix 1: prefix bytes 12..15 (IPv4 as ::ffff:a.b.c.d).
    RA_CAP1_PREFIX_3 @ 0x8B8 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// RA-01: capable senders, prefix 1: valid and prefix length.
    RA_CAP1_CONTROL @ 0x8BC : ReadWrite = 0, volatile = false, fields = FCN_RX_DOM_CONTROL_FIELDS;
    /// RA-02: policy entry 0 (the senders it caps): prefix bytes 0..3 (IPv4 as ::ffff:a.b.c.d).
    RA_POLICY0_PREFIX_0 @ 0x8C0 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// RA-02: policy entry 0 (the senders it caps): prefix bytes 4..7 (IPv4 as ::ffff:a.b.c.d).
    RA_POLICY0_PREFIX_1 @ 0x8C4 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// RA-02: policy entry 0 (the senders it caps): prefix bytes 8..11 (IPv4 as ::ffff:a.b.c.d).
    RA_POLICY0_PREFIX_2 @ 0x8C8 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// RA-02: policy entry 0 (the senders it caps): prefix bytes 12..15 (IPv4 as ::ffff:a.b.c.d).
    RA_POLICY0_PREFIX_3 @ 0x8CC : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// RA-02: policy entry 0 (the senders it caps): valid and prefix length.
    RA_POLICY0_CONTROL @ 0x8D0 : ReadWrite = 0, volatile = false, fields = FCN_RX_DOM_CONTROL_FIELDS;
    /// RA-02: policy entry 0: the cap of its senders advice, Mb/s.
    RA_POLICY0_MBPS @ 0x8D4 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// RA-02: policy entry 1 (the senders it caps): prefix bytes 0..3 (IPv4 as ::ffff:a.b.c.d).
    RA_POLICY1_PREFIX_0 @ 0x8D8 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// RA-02: policy entry 1 (the senders it caps): prefix bytes 4..7 (IPv4 as ::ffff:a.b.c.d).
    RA_POLICY1_PREFIX_1 @ 0x8DC : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// RA-02: policy entry 1 (the senders it caps): prefix bytes 8..11 (IPv4 as ::ffff:a.b.c.d).
    RA_POLICY1_PREFIX_2 @ 0x8E0 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// RA-02: policy entry 1 (the senders it caps): prefix bytes 12..15 (IPv4 as ::ffff:a.b.c.d).
    RA_POLICY1_PREFIX_3 @ 0x8E4 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// RA-02: policy entry 1 (the senders it caps): valid and prefix length.
    RA_POLICY1_CONTROL @ 0x8E8 : ReadWrite = 0, volatile = false, fields = FCN_RX_DOM_CONTROL_FIELDS;
    /// RA-02: policy entry 1: the cap of its senders advice, Mb/s.
    RA_POLICY1_MBPS @ 0x8EC : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// RA-04 remote mode: send (this gateway as WAN egress gateway) and accept (as source gateway).
    RA_REMOTE_CONTROL @ 0x8F0 : ReadWrite = 0, volatile = false, fields = RA_REMOTE_CONTROL_FIELDS;
    /// RA-04: the data-centre port's capacity C, bytes per microsecond (bits 19..0), for the egress law (the advice sent to the peers).
    RA_DC_CAPACITY_BYTES_PER_US @ 0x8F4 : ReadWrite = 12_500, volatile = false, fields = WHOLE;
    /// RA-04: the egress law's 1/(d C) in Q32 (d = RTT, C = RA_DC_CAPACITY_BYTES_PER_US), as RA_INV_DC_Q32 is the WAN port's.
    RA_DC_INV_DC_Q32 @ 0x8F8 : ReadWrite = 34, volatile = false, fields = WHOLE;
    /// RA-04: the data-centre port's advised rate now, Mb/s (the egress law's, or 8 C while the law is off): what the peers are sent.
    RA_DC_PORT_RATE_MBPS @ 0x8FC : ReadOnly = 100_000, volatile = true, fields = WHOLE;
    /// RA-04: a peer's advice lapses this many microseconds after its last message (0: never).
    RA_REMOTE_TIMEOUT_US @ 0x900 : ReadWrite = 10_000, volatile = false, fields = WHOLE;
    /// RA-04: remote advice messages sent to the peers (wan_tx).
    RA_REMOTE_SENT @ 0x904 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// RA-04: remote advice messages accepted from a peer (wan_rx).
    RA_REMOTE_RECEIVED @ 0x908 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// RA-04: RoCEv2 frames to the gateway's address dropped while accepting: not a Rate Advice message (opcode, version, length) or not from a valid peer.
    RA_REMOTE_REFUSED @ 0x90C : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// RA-04: peer gateway 0's address bytes 0..3 (IPv4 as ::ffff:a.b.c.d).
    RA_PEER0_ADDR_0 @ 0x910 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// RA-04: peer gateway 0's address bytes 4..7 (IPv4 as ::ffff:a.b.c.d).
    RA_PEER0_ADDR_1 @ 0x914 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// RA-04: peer gateway 0's address bytes 8..11 (IPv4 as ::ffff:a.b.c.d).
    RA_PEER0_ADDR_2 @ 0x918 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// RA-04: peer gateway 0's address bytes 12..15 (IPv4 as ::ffff:a.b.c.d).
    RA_PEER0_ADDR_3 @ 0x91C : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// RA-04: the data-centre prefix behind peer gateway 0: prefix bytes 0..3 (IPv4 as ::ffff:a.b.c.d).
    RA_PEER0_PREFIX_0 @ 0x920 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// RA-04: the data-centre prefix behind peer gateway 0: prefix bytes 4..7 (IPv4 as ::ffff:a.b.c.d).
    RA_PEER0_PREFIX_1 @ 0x924 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// RA-04: the data-centre prefix behind peer gateway 0: prefix bytes 8..11 (IPv4 as ::ffff:a.b.c.d).
    RA_PEER0_PREFIX_2 @ 0x928 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// RA-04: the data-centre prefix behind peer gateway 0: prefix bytes 12..15 (IPv4 as ::ffff:a.b.c.d).
    RA_PEER0_PREFIX_3 @ 0x92C : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// RA-04: peer gateway 0 in use (valid) and the length of the prefix behind it.
    RA_PEER0_CONTROL @ 0x930 : ReadWrite = 0, volatile = false, fields = FCN_RX_DOM_CONTROL_FIELDS;
    /// RA-04: the advice in force from peer gateway 0, Mb/s (0: none received, or lapsed).
    RA_PEER0_MBPS @ 0x934 : ReadOnly = 0, volatile = true, fields = WHOLE;
    /// RA-04: peer gateway 1's address bytes 0..3 (IPv4 as ::ffff:a.b.c.d).
    RA_PEER1_ADDR_0 @ 0x938 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// RA-04: peer gateway 1's address bytes 4..7 (IPv4 as ::ffff:a.b.c.d).
    RA_PEER1_ADDR_1 @ 0x93C : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// RA-04: peer gateway 1's address bytes 8..11 (IPv4 as ::ffff:a.b.c.d).
    RA_PEER1_ADDR_2 @ 0x940 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// RA-04: peer gateway 1's address bytes 12..15 (IPv4 as ::ffff:a.b.c.d).
    RA_PEER1_ADDR_3 @ 0x944 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// RA-04: the data-centre prefix behind peer gateway 1: prefix bytes 0..3 (IPv4 as ::ffff:a.b.c.d).
    RA_PEER1_PREFIX_0 @ 0x948 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// RA-04: the data-centre prefix behind peer gateway 1: prefix bytes 4..7 (IPv4 as ::ffff:a.b.c.d).
    RA_PEER1_PREFIX_1 @ 0x94C : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// RA-04: the data-centre prefix behind peer gateway 1: prefix bytes 8..11 (IPv4 as ::ffff:a.b.c.d).
    RA_PEER1_PREFIX_2 @ 0x950 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// RA-04: the data-centre prefix behind peer gateway 1: prefix bytes 12..15 (IPv4 as ::ffff:a.b.c.d).
    RA_PEER1_PREFIX_3 @ 0x954 : ReadWrite = 0, volatile = false, fields = WHOLE;
    /// RA-04: peer gateway 1 in use (valid) and the length of the prefix behind it.
    RA_PEER1_CONTROL @ 0x958 : ReadWrite = 0, volatile = false, fields = FCN_RX_DOM_CONTROL_FIELDS;
    /// RA-04: the advice in force from peer gateway 1, Mb/s (0: none received, or lapsed).
    RA_PEER1_MBPS @ 0x95C : ReadOnly = 0, volatile = true, fields = WHOLE;
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
        assert_eq!(by_name("learn_control").unwrap().reset, 0);
        // FCN-06, PE-05: no tunnel role, no Fast CNP role, no shaper.
        assert_eq!(by_name("TUNNEL_CONTROL").unwrap().reset, 0);
        assert_eq!(by_name("FCN_CONTROL").unwrap().reset, 0);
        let shaper = by_name("PE_SHAPER_CONTROL").unwrap().reset;
        assert_eq!(shaper & (pe_shaper::ENABLE | pe_shaper::ALT_ENABLE), 0);
        // LH-12/LH-13: no extension object (no extension structure).
        let ext = by_name("LH_EXT_CONTROL").unwrap();
        let objects = ext_control::TIMESTAMP | ext_control::DEVICE_ID | ext_control::PATH_ID;
        assert_eq!(ext.reset & objects, 0);
        assert_eq!(
            ext.field("class_num").unwrap().lsb,
            ext_control::CLASS_NUM_LSB
        );
        assert_eq!(ext.reset >> ext_control::CLASS_NUM_LSB, 247);
    }

    #[test]
    fn lh_12_time_of_day_increment_is_rounded_2_pow_56_over_the_clock() {
        assert_eq!(tod_control::DEFAULT_INCREMENT, 223_596_898);
        assert_eq!(
            by_name("LH_TOD_INCREMENT").unwrap().reset,
            tod_control::DEFAULT_INCREMENT
        );
        // 1 GHz: 2^56 / 1e9 = 72,057,594.04 -> 72,057,594.
        assert_eq!(tod_control::increment_for(1_000_000_000), 72_057_594);
        // 2^24 Hz is exactly 2^32: one past what the register holds.
        assert_eq!(tod_control::increment_for(1 << 24), 1 << 32);
        let ext = by_name("LH_EXT_CONTROL").unwrap();
        assert_eq!(
            ext.field("device_id_len").unwrap().lsb,
            ext_control::DEVICE_ID_LEN_LSB
        );
        assert_eq!(
            ext.field("path_id_len").unwrap().lsb,
            ext_control::PATH_ID_LEN_LSB
        );
        let tod = by_name("LH_TOD_CONTROL").unwrap();
        assert_eq!(tod.field("capture").unwrap().mask(), tod_control::CAPTURE);
        assert_eq!(tod.field("set").unwrap().mask(), tod_control::SET);
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
