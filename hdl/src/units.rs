//! Blocks verilated on their own for unit tests against software references
//! (`cngw_sim::Unit`): rust-hdl's simulator is slow on wide values, and
//! memories (rust-hdl's `RAM` is hand-written Verilog with a separate
//! simulation model) must be checked in the Verilog that ships.

use crate::notify::{Crc32Engine, FrameIcrc, Icmpv6Checksum, Ipv4HeaderChecksum, NotifyBuilder};
use rust_hdl::prelude::*;

fn verilog_of<B: Block>(mut block: B) -> String {
    block.connect_all();
    crate::verilog::restructure(&generate_verilog(&block))
        .unwrap_or_else(|e| panic!("cannot restructure a unit's Verilog: {e}"))
}

/// (unit name, Verilog with top module `top`) of every unit-tested block.
pub fn unit_designs() -> Vec<(&'static str, String)> {
    vec![
        ("crc32_engine", verilog_of(Crc32Engine::default())),
        ("frame_icrc", verilog_of(FrameIcrc::default())),
        ("ipv4_checksum", verilog_of(Ipv4HeaderChecksum::default())),
        ("icmpv6_checksum", verilog_of(Icmpv6Checksum::default())),
        ("notify_builder", verilog_of(NotifyBuilder::default())),
        (
            "flow_table",
            verilog_of(crate::flow::GatewayFlowTable::default()),
        ),
        (
            "lh_controller",
            verilog_of(crate::lh::LhController::default()),
        ),
        ("csr_block", verilog_of(crate::csr::CsrBlock::default())),
        (
            "header_parser",
            verilog_of(crate::parser::HeaderParser::default()),
        ),
        ("queue_kb", verilog_of(crate::lh::QueueKb::default())),
        (
            "fcn_translator",
            verilog_of(crate::fcn::FcnTranslator::default()),
        ),
        (
            "frame_filter",
            verilog_of(crate::stream::FrameFilter::default()),
        ),
        (
            "token_bucket",
            verilog_of(crate::notify::TokenBucket::default()),
        ),
        (
            "format_table",
            verilog_of(crate::lh::FormatTable::default()),
        ),
        (
            "fast_cnp_receiver",
            verilog_of(crate::fcn::FastCnpReceiver::default()),
        ),
        (
            "header_splice",
            verilog_of(crate::stream::HeaderSplice::default()),
        ),
        (
            "tunnel_encap",
            verilog_of(crate::pe::TunnelEncap::default()),
        ),
        (
            "tunnel_decap",
            verilog_of(crate::pe::TunnelDecap::default()),
        ),
        (
            "ingress_queue",
            verilog_of(crate::pe::IngressQueue::default()),
        ),
        ("flow_shaper", verilog_of(crate::pe::FlowShaper::default())),
        ("rate_law", verilog_of(crate::ra::RateLaw::default())),
        (
            "rate_advisor",
            verilog_of(crate::ra::RateAdvisor::default()),
        ),
        ("source_nic", verilog_of(crate::snic::SourceNic::default())),
    ]
}
