//! rust-hdl blocks of the cngw gateway and the Verilog they emit.
//!
//! | file | block |
//! |---|---|
//! | `stream/skid_buffer.rs` | `SkidBuffer`: registered AXI4-Stream stage with a skid entry |
//! | `stream/header_splice.rs` | `HeaderSplice`: per-frame header insert/remove at line rate (FCN-02, PE-02) |
//! | `parser/header_parser.rs` | `HeaderParser`: Ethernet/802.1Q/IPv4/IPv6/UDP/BTH field extraction |
//! | `csr/csr_block.rs` | `CsrBlock`: AXI4-Lite register file built from the register map |
//! | `ecn/ce_marker.rs` | `CeMarker`: CE marking above K_min with incremental IPv4 checksum update (LH-04) |
//! | `stats/frame_counters.rs` | `FrameCounters`: per-direction frame counters |
//! | `notify/crc32_engine.rs` | `Crc32Engine`: CRC-32/IEEE (ICRC) over 64 bytes per clock |
//! | `notify/icrc_masker.rs` | `IcrcMasker`: RoCEv2 frame beats to the ICRC's masked CRC input |
//! | `notify/frame_icrc.rs` | `FrameIcrc`: ICRC of a RoCEv2 frame as it streams (masker + engine) |
//! | `notify/ipv4_checksum.rs` | `Ipv4HeaderChecksum`: IPv4 header checksum, one header per clock |
//! | `notify/icmpv6_checksum.rs` | `Icmpv6Checksum`: ICMPv6 checksum (pseudo-header + message) over beats |
//! | `flow/flow_table.rs` | `FlowTable`: exact-match 4-way hash + stash flow table with aging (LH-01) |
//! | `learn/cm_snoop.rs` | `CmSnoop`: RDMA CM REQ/REP recognition and field extraction on a stream (LH-01) |
//! | `learn/cm_learner.rs` | `CmLearner`: pending-REQ table, REQ/REP pairing, `LearnSqp` requests (LH-01) |
//! | `gateway.rs` | `Gateway`: the top level |
pub mod csr;
pub mod ecn;
pub mod flow;
pub mod gateway;
pub mod learn;
pub mod lh;
pub mod notify;
pub mod parser;
pub mod pe;
pub mod stats;
pub mod stream;
pub mod units;
pub mod verilog;

pub use gateway::Gateway;
pub use rust_hdl;
