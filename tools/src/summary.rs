//! What a set of frames contains, in the terms of a RoCE network engineer:
//! RDMA CM messages, RC data packets, acknowledgements, other traffic.

use cngw_packet::bth::opcode;
use cngw_packet::cm::CM_QP;
use cngw_packet::parsed::{classify, FrameClass};
use cngw_packet::{CmMad, CmMessage};
use std::collections::BTreeSet;

/// Counts of one stream of frames.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FrameSummary {
    pub frames: u64,
    pub bytes: u64,
    pub roce: u64,
    pub non_roce: u64,
    pub malformed: u64,
    pub cm_req: u64,
    pub cm_rep: u64,
    pub cm_rtu: u64,
    /// Other CM messages (MRA, REJ, DREQ, DREP, ...).
    pub cm_other: u64,
    /// RC RDMA WRITE FIRST/MIDDLE/LAST/ONLY (with or without immediate).
    pub rdma_write: u64,
    /// RC SEND FIRST/MIDDLE/LAST/ONLY (all variants).
    pub send: u64,
    /// RC ACKNOWLEDGE.
    pub ack: u64,
    /// CNP (BTH opcode 0x81).
    pub cnp: u64,
    /// Other RoCEv2 opcodes.
    pub other_roce: u64,
    /// Local communication IDs of REQs, and the IDs REPs and RTUs answer.
    req_ids: BTreeSet<u32>,
    rep_ids: BTreeSet<u32>,
    rtu_ids: BTreeSet<u32>,
}

fn is_send(op: u8) -> bool {
    matches!(
        op,
        opcode::RC_SEND_FIRST
            ..=opcode::RC_SEND_ONLY_WITH_IMMEDIATE
                | opcode::RC_SEND_LAST_WITH_INVALIDATE
                | opcode::RC_SEND_ONLY_WITH_INVALIDATE
    )
}

fn is_rdma_write(op: u8) -> bool {
    (opcode::RC_RDMA_WRITE_FIRST..=opcode::RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE).contains(&op)
}

impl FrameSummary {
    pub fn of<'a>(frames: impl IntoIterator<Item = &'a [u8]>) -> FrameSummary {
        let mut s = FrameSummary::default();
        for f in frames {
            s.add(f);
        }
        s
    }

    pub fn add(&mut self, frame: &[u8]) {
        self.frames += 1;
        self.bytes += frame.len() as u64;
        let parsed = classify(frame);
        match parsed.class {
            FrameClass::Malformed => self.malformed += 1,
            FrameClass::NonRoce => self.non_roce += 1,
            FrameClass::Roce => {
                self.roce += 1;
                let op = parsed.opcode;
                if op == opcode::UD_SEND_ONLY && parsed.dest_qp == CM_QP {
                    self.add_cm(frame);
                } else if is_rdma_write(op) {
                    self.rdma_write += 1;
                } else if is_send(op) {
                    self.send += 1;
                } else if op == opcode::RC_ACKNOWLEDGE {
                    self.ack += 1;
                } else if op == opcode::CNP {
                    self.cnp += 1;
                } else {
                    self.other_roce += 1;
                }
            }
        }
    }

    fn add_cm(&mut self, frame: &[u8]) {
        let mad = cngw_packet::Frame::parse(frame)
            .ok()
            .and_then(|f| CmMad::from_frame(&f).ok());
        match mad.map(|m| m.message) {
            Some(CmMessage::Req(req)) => {
                self.cm_req += 1;
                self.req_ids.insert(req.local_comm_id);
            }
            Some(CmMessage::Rep(rep)) => {
                self.cm_rep += 1;
                self.rep_ids.insert(rep.remote_comm_id);
            }
            Some(CmMessage::Rtu(rtu)) => {
                self.cm_rtu += 1;
                self.rtu_ids.insert(rtu.local_comm_id);
            }
            _ => self.cm_other += 1,
        }
    }

    /// Both directions together.
    pub fn merged(&self, other: &FrameSummary) -> FrameSummary {
        let union = |a: &BTreeSet<u32>, b: &BTreeSet<u32>| a.union(b).copied().collect();
        FrameSummary {
            frames: self.frames + other.frames,
            bytes: self.bytes + other.bytes,
            roce: self.roce + other.roce,
            non_roce: self.non_roce + other.non_roce,
            malformed: self.malformed + other.malformed,
            cm_req: self.cm_req + other.cm_req,
            cm_rep: self.cm_rep + other.cm_rep,
            cm_rtu: self.cm_rtu + other.cm_rtu,
            cm_other: self.cm_other + other.cm_other,
            rdma_write: self.rdma_write + other.rdma_write,
            send: self.send + other.send,
            ack: self.ack + other.ack,
            cnp: self.cnp + other.cnp,
            other_roce: self.other_roce + other.other_roce,
            req_ids: union(&self.req_ids, &other.req_ids),
            rep_ids: union(&self.rep_ids, &other.rep_ids),
            rtu_ids: union(&self.rtu_ids, &other.rtu_ids),
        }
    }

    /// RDMA CM connections whose REQ, REP and RTU all appear (paired by
    /// communication ID).
    pub fn handshakes(&self) -> usize {
        self.req_ids
            .iter()
            .filter(|id| self.rep_ids.contains(id) && self.rtu_ids.contains(id))
            .count()
    }

    /// `4 CM REQ, 64 RDMA WRITE, 16 ACK`: the non-zero kinds.
    pub fn breakdown(&self) -> String {
        let parts: Vec<String> = [
            (self.cm_req, "CM REQ"),
            (self.cm_rep, "CM REP"),
            (self.cm_rtu, "CM RTU"),
            (self.cm_other, "other CM"),
            (self.rdma_write, "RDMA WRITE"),
            (self.send, "SEND"),
            (self.ack, "ACK"),
            (self.cnp, "CNP"),
            (self.other_roce, "other RoCEv2"),
            (self.non_roce, "non-RoCE"),
            (self.malformed, "malformed"),
        ]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| format!("{n} {what}"))
        .collect();
        if parts.is_empty() {
            "nothing".to_string()
        } else {
            parts.join(", ")
        }
    }
}
