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
//! | `learn/psn_pairer.rs` | `PsnPairer`: source QPs from request/acknowledgement PSN pairing (LH-01) |
//! | `lh/controller.rs` | `LhController`: the Long-haul CNP second level (LH-05..LH-09) |
//! | `lh/format_table.rs` | `FormatTable`: which notification format a sender accepts (LH-15) |
//! | `lh/queue_kb.rs` | `QueueKb`: queue depth in kilobytes for the Long-haul body |
//! | `lh/queue_meter.rs` | `QueueMeter`: virtual queue, average queue, ECN marking rate (LH-02) |
//! | `lh/time_of_day.rs` | `TimeOfDay`: the timestamp object's clock (LH-12/LH-13) |
//! | `notify/notify_builder.rs` | `NotifyBuilder`: CNP, Long-haul CNP and Fast CNP frames with checksums and ICRC |
//! | `pe/tunnel_encap.rs` | `TunnelEncap`: the ingress PE's VXLAN/SRv6 encapsulation over IPv6, RFC 6040 outer ECN (FCN-02, PE-01) |
//! | `pe/tunnel_decap.rs` | `TunnelDecap`: the egress PE's VXLAN/SRv6 decapsulation with the RFC 6040 / pre-ECN tables (PE-02, PE-06) |
//! | `pe/two_threshold.rs` | `TwoThreshold`: two-threshold marking probabilities and LFSR (PE-03) |
//! | `fcn/fast_cnp_source.rs` | `FastCnpSource`: the congested WAN node's Fast CNPs (FCN-03, PE-04, FCN-06) |
//! | `fcn/fast_cnp_receiver.rs` | `FastCnpReceiver`: the ingress PE's Fast CNP recogniser: claim at the first beat, fields after the last (FCN-05, FCN-06) |
//! | `fcn/fcn_translator.rs` | `FcnTranslator`: received Fast CNP checks, receive rate limit, label to flow-table place, standard CNP job (FCN-05, FCN-06) |
//! | `notify/token_bucket.rs` | `TokenBucket`: the rate limit of every notification source (LH-08, FCN-06) |
//! | `stream/frame_filter.rs` | `FrameFilter`: drops whole frames chosen at their first beat |
//! | `stream/frame_mux.rs` | `FrameMux`: two streams into one, a whole frame at a time |
//! | `snic/source_nic.rs` | `SourceNic`: the source-side SmartNIC: notifications checked and applied to per-QP rates, per-QP pacing (LH-16) |
//! | `snic/qp_bucket.rs` | `QpBucket`: one QP's token bucket in millibits (LH-16) |
//! | `gateway.rs` | `Gateway`: the top level |
pub mod csr;
pub mod ecn;
pub mod fcn;
pub mod flow;
pub mod gateway;
pub mod learn;
pub mod lh;
pub mod notify;
pub mod parser;
pub mod pe;
pub mod px;
pub mod ra;
pub mod snic;
pub mod stats;
pub mod stream;
pub mod units;
pub mod verilog;

pub use gateway::Gateway;
pub use rust_hdl;
