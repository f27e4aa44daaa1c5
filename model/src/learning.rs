//! LH-01 / PX-02 source-QP learning: the reference behaviour of the learner
//! block. A RoCEv2 data packet carries {SIP, DIP, DQP} but not the source QP
//! a notification must be sent to; the learner finds it from frames seen in
//! both directions (DESIGN.md, "Decisions": CM snooping and PSN pairing;
//! static entries belong to the flow table).
//!
//! ```text
//!  (port, frame) from dc_rx and wan_rx   +-------------------------------+
//!  ------------------------------------->| classify (header parser)      |--> Vec<Binding>
//!                                        | CM:  pending REQs  [8, LRU]   |    {key, sqp, method}
//!                                        | PSN: request trackers [16,LRU]|    = flow-table LearnSqp
//!                                        +-------------------------------+--> LearnerCounters
//! ```
//!
//! The rules (docs/decisions.md, "Source-QP learning", says why):
//!
//! 1. **CM snooping** (exact; CM MADs as defined below). A REQ from A to B
//!    enters the pending table as {port, A, B, Local
//!    Communication ID, Local QPN}; a REQ with the same {A, B, comm ID} (a
//!    retransmission) refreshes its entry in place. A REP from B to A
//!    matches the pending entry with requester A, responder B, comm ID =
//!    the REP's Remote Communication ID, that arrived on the *other* port.
//!    The match frees the entry and learns {A, B, QPN_B} -> QPN_A and
//!    {B, A, QPN_A} -> QPN_B, overwriting what the flows held. A REP without
//!    such an entry learns nothing and is counted. RTU, DREQ, DREP, REJ, MRA
//!    and the other MADs change nothing (flows leave by aging).
//! 2. **PSN pairing** (the gateway's half: the sender is on the data-centre
//!    side). A *request* (RC SEND, RDMA WRITE, RDMA READ request, atomics,
//!    SEND with invalidate: [`is_psn_request`]) arriving on dc_rx for a flow
//!    with no source QP yet is tracked: the tracker keeps {key, newest PSN,
//!    span}, i.e. the last `span <= psn_window` PSNs the flow used (RC PSNs
//!    are consecutive, so a window is the bounded form of "the last PSNs").
//!    An *acknowledgement* (RC ACKNOWLEDGE with any syndrome, ATOMIC
//!    ACKNOWLEDGE, RDMA READ RESPONSE FIRST/ONLY: [`is_psn_ack`]) arriving
//!    on wan_rx from B to A toward QP Y with PSN q is compared with every
//!    tracker of a flow A -> B whose window holds q. Exactly one such
//!    tracker {A, B, X} learns {A, B, X} -> Y and is freed; two or more
//!    learn nothing (counted as ambiguous). The reverse flow {B, A, Y} is
//!    a WAN-side sender, which the gateway never notifies: not learned.
//! 3. **Priority**: CM overwrites; a PSN binding only fills a flow with no
//!    source QP (the flow table's `LearnSqp` with `fill`), so it never
//!    changes a CM or static binding.
//!
//! In one step ([`PsnPairing::step`]) an acknowledgement and a request are
//! both decided on the trackers as they stood before the step; the
//! acknowledgement's free is applied first, then the request's write (the
//! RTL's clock, `hdl/src/learn/psn_pairer.rs`).
//!
//! Bounds: both tables have a fixed number of slots; a new entry takes the
//! lowest free slot, else replaces the least recently used entry (inserted,
//! refreshed or advanced longest ago) and counts an eviction. The learned
//! table ([`Learner::learned`]) stands for the SQP column of the flow table
//! (`hdl/src/flow`), which bounds and ages it; here it is a map.
//!
//! Every rule looks at one frame and a few table entries. A frame counts as
//! a CM MAD (`CmMad::from_frame`) when the header parser calls it RoCEv2 with opcode UD SEND_ONLY
//! and DestQP 1, its UDP payload holds BTH, DETH, 256 MAD bytes (after the
//! pad count) and the ICRC, and the MAD's class is 0x07. The fields read
//! lie within the first 165 bytes of any frame the parser accepts (REQ
//! Local QPN at MAD bytes 56..58, behind at most 106 bytes of headers:
//! 802.1Q and IPv4 with 40 bytes of options), so the RTL (`hdl/src/learn`)
//! takes them while a frame's third 64-byte beat passes.

use std::collections::BTreeMap;
use std::fmt;

use cngw_packet::bth::opcode;
use cngw_packet::cm::{CmMad, CmMessage, CM_QP};
use cngw_packet::parsed::{classify, FrameClass, ParsedHeader};
use cngw_packet::Frame;

pub use cngw_packet::flow_key::FlowKey;

use crate::ports::InPort;

/// PSNs are 24-bit and wrap.
pub const PSN_MODULUS: u32 = 1 << 24;
/// Pending-REQ slots by default.
pub const DEFAULT_PENDING_REQS: usize = 8;
/// PSN tracker slots by default.
pub const DEFAULT_PSN_TRACKERS: usize = 16;
/// PSNs a tracker remembers by default: 65,536 request packets in flight
/// between the gateway and the responder and back.
pub const DEFAULT_PSN_WINDOW: u32 = 1 << 16;
/// Largest window: half the PSN space, as IBTA bounds outstanding PSNs.
pub const MAX_PSN_WINDOW: u32 = 1 << 23;

const QP_MASK: u32 = 0x00ff_ffff;

/// `a - b` modulo 2^24.
fn psn_sub(a: u32, b: u32) -> u32 {
    a.wrapping_sub(b) & (PSN_MODULUS - 1)
}

/// Whether a BTH opcode is an RC request whose PSN the responder
/// acknowledges: SEND (0x00..=0x05), RDMA WRITE (0x06..=0x0B), RDMA READ
/// request (0x0C), COMPARE_SWAP and FETCH_ADD (0x13, 0x14), SEND with
/// invalidate (0x16, 0x17). Not 0x1D (ATOMIC WRITE in IBTA 1.5, Rate
/// Advice here), nor UC, UD, XRC, CNP.
pub fn is_psn_request(op: u8) -> bool {
    use opcode::*;
    matches!(
        op,
        RC_SEND_FIRST
            ..=RC_RDMA_READ_REQUEST
                | RC_COMPARE_SWAP
                | RC_FETCH_ADD
                | RC_SEND_LAST_WITH_INVALIDATE
                | RC_SEND_ONLY_WITH_INVALIDATE
    )
}

/// Whether a BTH opcode is an RC response whose PSN is that of a request:
/// ACKNOWLEDGE (0x11, ACK or NAK), ATOMIC ACKNOWLEDGE (0x12), RDMA READ
/// RESPONSE FIRST and ONLY (0x0D, 0x10; their PSN is the read request's).
/// Not READ RESPONSE LAST (0x0F): its PSN is the request's plus the
/// response length, which no request of the flow used.
pub fn is_psn_ack(op: u8) -> bool {
    use opcode::*;
    matches!(
        op,
        RC_ACKNOWLEDGE
            | RC_ATOMIC_ACKNOWLEDGE
            | RC_RDMA_READ_RESPONSE_FIRST
            | RC_RDMA_READ_RESPONSE_ONLY
    )
}

/// How a binding was learned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Method {
    /// RDMA CM REQ/REP snooping.
    Cm,
    /// Request PSN paired with an acknowledgement PSN.
    Psn,
}

/// A learned source QP: the flow `key` is sent by QP `sqp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Binding {
    pub key: FlowKey,
    /// Source QP (24 bits).
    pub sqp: u32,
    pub method: Method,
}

/// `10.1.16.62 -> 10.1.16.61 QP 0x3b: source QP 0x3d (Cm)`
impl fmt::Display for Binding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: source QP {:#x} ({:?})",
            self.key, self.sqp, self.method
        )
    }
}

/// The learner's parameters. The table sizes and the window become
/// synthesis parameters and registers of the RTL; the enables become
/// `FEATURE_ENABLE` bits (off after reset) when the learner joins the
/// gateway.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LearnerConfig {
    pub cm_enable: bool,
    pub psn_enable: bool,
    /// Slots of the pending-REQ table (at least 1).
    pub pending_reqs: usize,
    /// Slots of the PSN tracker table (at least 1).
    pub psn_trackers: usize,
    /// PSNs a tracker remembers, 1..=[`MAX_PSN_WINDOW`].
    pub psn_window: u32,
}

impl Default for LearnerConfig {
    /// Both methods on, 8 pending REQs, 16 trackers, a 65,536-PSN window.
    fn default() -> Self {
        LearnerConfig {
            cm_enable: true,
            psn_enable: true,
            pending_reqs: DEFAULT_PENDING_REQS,
            psn_trackers: DEFAULT_PSN_TRACKERS,
            psn_window: DEFAULT_PSN_WINDOW,
        }
    }
}

/// Why a [`LearnerConfig`] is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LearnerConfigError {
    NoPendingReqSlots,
    NoPsnTrackerSlots,
    PsnWindowOutOfRange(u32),
}

impl fmt::Display for LearnerConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoPendingReqSlots => f.write_str("the pending-REQ table needs a slot"),
            Self::NoPsnTrackerSlots => f.write_str("the PSN tracker table needs a slot"),
            Self::PsnWindowOutOfRange(w) => {
                write!(f, "PSN window {w} is outside 1..={MAX_PSN_WINDOW}")
            }
        }
    }
}

impl std::error::Error for LearnerConfigError {}

/// What the hardware counts (32 bits, wrapping).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LearnerCounters {
    /// Bindings learned from CM REQ/REP (two per matched REP).
    pub cm_bindings: u32,
    /// Acknowledgements that matched exactly one PSN tracker (each one
    /// binding, applied only if the flow still had no source QP).
    pub psn_bindings: u32,
    /// Acknowledgements whose PSN lay in the windows of two or more flows.
    pub psn_ambiguous: u32,
    /// Pending REQs replaced before their REP came.
    pub cm_req_evictions: u32,
    /// REPs with no pending REQ.
    pub cm_rep_unmatched: u32,
    /// PSN trackers replaced before an acknowledgement matched them.
    pub psn_tracker_evictions: u32,
}

/// A REQ waiting for its REP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PendingReq {
    /// Where the REQ arrived; its REP must arrive on the other port.
    pub port: InPort,
    /// The REQ's source address (A).
    pub requester: u128,
    /// The REQ's destination address (B).
    pub responder: u128,
    /// The REQ's Local Communication ID.
    pub comm_id: u32,
    /// The REQ's Local QPN (A's QP).
    pub qpn: u32,
}

/// The recent request PSNs of a flow without a source QP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PsnTracker {
    pub key: FlowKey,
    pub newest_psn: u32,
    /// The window is the `span` PSNs ending at `newest_psn` (1..=window).
    pub span: u32,
}

impl PsnTracker {
    fn new(key: FlowKey, psn: u32) -> Self {
        PsnTracker {
            key,
            newest_psn: psn,
            span: 1,
        }
    }

    /// Whether `psn` is one of the remembered PSNs.
    pub fn holds(&self, psn: u32) -> bool {
        psn_sub(self.newest_psn, psn) < self.span
    }

    /// A request with `psn`: inside the window (a retransmission) changes
    /// nothing; less than `window` ahead slides the window; anything else
    /// restarts it at `psn`. (A `window` of 0 behaves as 1.)
    fn advance(&mut self, psn: u32, window: u32) {
        if self.holds(psn) {
            return;
        }
        let ahead = psn_sub(psn, self.newest_psn);
        self.span = if ahead < window {
            (self.span + ahead).min(window)
        } else {
            1
        };
        self.newest_psn = psn;
    }
}

/// A fixed number of slots; a new entry takes the lowest free slot, else
/// the least recently used one. (The model orders uses by a counter; the
/// RTL can keep an age matrix.)
#[derive(Clone, Debug)]
struct LruSlots<T> {
    slots: Vec<Option<(T, u64)>>,
    uses: u64,
}

impl<T: Copy> LruSlots<T> {
    fn new(n: usize) -> Self {
        LruSlots {
            slots: vec![None; n],
            uses: 0,
        }
    }

    fn find(&self, mut pred: impl FnMut(&T) -> bool) -> Option<usize> {
        self.slots
            .iter()
            .position(|s| s.as_ref().is_some_and(|(e, _)| pred(e)))
    }

    fn entries(&self) -> impl Iterator<Item = (usize, &T)> {
        self.slots
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.as_ref().map(|(e, _)| (i, e)))
    }

    fn get(&self, i: usize) -> T {
        self.slots[i].expect("slot in use").0
    }

    /// Writes slot `i` and marks it most recently used.
    fn put(&mut self, i: usize, entry: T) {
        self.uses += 1;
        self.slots[i] = Some((entry, self.uses));
    }

    /// Stores a new entry; `true` when it replaced one.
    fn insert(&mut self, entry: T) -> bool {
        let (slot, evicted) = self.choose();
        self.put(slot, entry);
        evicted
    }

    fn remove(&mut self, i: usize) -> T {
        self.slots[i].take().expect("slot in use").0
    }

    /// The slot [`Self::insert`] would take now, and whether it would
    /// replace an entry.
    fn choose(&self) -> (usize, bool) {
        match self.slots.iter().position(Option::is_none) {
            Some(free) => (free, false),
            None => {
                let lru = (0..self.slots.len())
                    .min_by_key(|&i| self.slots[i].map(|(_, used)| used))
                    .expect("at least one slot");
                (lru, true)
            }
        }
    }
}

/// An acknowledgement as PSN pairing reads it: from the responder B to the
/// requester A, toward A's QP `dqp` (Y), acknowledging `psn`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PsnAck {
    pub requester: u128,
    pub responder: u128,
    pub dqp: u32,
    pub psn: u32,
}

impl PsnAck {
    /// The acknowledgement a parsed header carries (`None`: not one).
    pub fn of_header(h: &ParsedHeader) -> Option<PsnAck> {
        (h.class == FrameClass::Roce && is_psn_ack(h.opcode)).then(|| PsnAck {
            requester: u128::from_be_bytes(h.dst_ip),
            responder: u128::from_be_bytes(h.src_ip),
            dqp: h.dest_qp & QP_MASK,
            psn: h.psn & (PSN_MODULUS - 1),
        })
    }
}

/// What one [`PsnPairing::step`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PsnStep {
    /// The acknowledgement matched exactly one tracker.
    pub binding: Option<Binding>,
    /// The acknowledgement matched two or more.
    pub ambiguous: bool,
    /// The request replaced the least recently used tracker.
    pub evicted: bool,
}

/// PSN pairing's trackers (rule 2 of the module documentation), one step
/// per clock as the RTL takes them. The caller decides which requests are
/// tracked (flows without a source QP, from dc_rx) and which frames are
/// acknowledgements (from wan_rx).
#[derive(Clone, Debug)]
pub struct PsnPairing {
    trackers: LruSlots<PsnTracker>,
    window: u32,
}

impl PsnPairing {
    /// `slots` trackers (at least 1) remembering `window` PSNs each.
    pub fn new(slots: usize, window: u32) -> Self {
        assert!(slots > 0, "PSN pairing needs a tracker slot");
        PsnPairing {
            trackers: LruSlots::new(slots),
            window,
        }
    }

    /// The window for later requests (`LEARN_PSN_WINDOW`, 24 bits).
    pub fn set_window(&mut self, window: u32) {
        self.window = window & (PSN_MODULUS - 1);
    }

    /// One clock: `ack` and `request` ({key, PSN}) are decided on the
    /// trackers as they stood before it; the acknowledgement's free is
    /// applied first, then the request's write.
    pub fn step(&mut self, ack: Option<PsnAck>, request: Option<(FlowKey, u32)>) -> PsnStep {
        let mut out = PsnStep::default();
        let mut free = None;
        if let Some(a) = ack {
            let hits: Vec<usize> = self
                .trackers
                .entries()
                .filter(|(_, t)| {
                    t.key.sip == a.requester && t.key.dip == a.responder && t.holds(a.psn)
                })
                .map(|(i, _)| i)
                .collect();
            match hits[..] {
                [] => {}
                [only] => {
                    out.binding = Some(Binding {
                        key: self.trackers.get(only).key,
                        sqp: a.dqp,
                        method: Method::Psn,
                    });
                    free = Some(only);
                }
                _ => out.ambiguous = true,
            }
        }
        let write = request.map(|(key, psn)| {
            let psn = psn & (PSN_MODULUS - 1);
            match self.trackers.find(|t| t.key == key) {
                Some(i) => {
                    let mut t = self.trackers.get(i);
                    t.advance(psn, self.window);
                    (i, t)
                }
                None => {
                    let (i, evicted) = self.trackers.choose();
                    out.evicted = evicted;
                    (i, PsnTracker::new(key, psn))
                }
            }
        });
        if let Some(i) = free {
            self.trackers.remove(i);
        }
        if let Some((i, t)) = write {
            self.trackers.put(i, t);
        }
        out
    }

    /// The trackers, by slot.
    pub fn trackers(&self) -> impl Iterator<Item = (usize, &PsnTracker)> + '_ {
        self.trackers.entries()
    }
}

/// The source-QP learner (see the module documentation for its rules).
#[derive(Clone, Debug)]
pub struct Learner {
    config: LearnerConfig,
    pending: LruSlots<PendingReq>,
    psn: PsnPairing,
    learned: BTreeMap<FlowKey, (u32, Method)>,
    counters: LearnerCounters,
}

impl Learner {
    pub fn new(config: LearnerConfig) -> Result<Self, LearnerConfigError> {
        if config.pending_reqs == 0 {
            return Err(LearnerConfigError::NoPendingReqSlots);
        }
        if config.psn_trackers == 0 {
            return Err(LearnerConfigError::NoPsnTrackerSlots);
        }
        if !(1..=MAX_PSN_WINDOW).contains(&config.psn_window) {
            return Err(LearnerConfigError::PsnWindowOutOfRange(config.psn_window));
        }
        Ok(Learner {
            config,
            pending: LruSlots::new(config.pending_reqs),
            psn: PsnPairing::new(config.psn_trackers, config.psn_window),
            learned: BTreeMap::new(),
            counters: LearnerCounters::default(),
        })
    }

    pub fn config(&self) -> &LearnerConfig {
        &self.config
    }

    /// One frame arriving on `port`: the bindings it taught (in the order
    /// they were applied), already entered in [`Self::learned`]. Frames the
    /// header parser does not call RoCEv2 teach nothing.
    pub fn observe(&mut self, port: InPort, frame: &[u8]) -> Vec<Binding> {
        let h = classify(frame);
        if h.class != FrameClass::Roce {
            return Vec::new();
        }
        if h.opcode == opcode::UD_SEND_ONLY && h.dest_qp == CM_QP {
            return if self.config.cm_enable {
                self.observe_cm(port, &h, frame)
            } else {
                Vec::new()
            };
        }
        if !self.config.psn_enable {
            return Vec::new();
        }
        match port {
            InPort::DcRx if is_psn_request(h.opcode) => {
                let key = FlowKey::of_header(&h);
                // Only flows without a source QP are tracked.
                let request = (!self.learned.contains_key(&key)).then_some((key, h.psn));
                self.psn_step(None, request);
                Vec::new()
            }
            InPort::WanRx => match PsnAck::of_header(&h) {
                Some(ack) => self.psn_step(Some(ack), None),
                None => Vec::new(),
            },
            _ => Vec::new(),
        }
    }

    fn observe_cm(&mut self, port: InPort, h: &ParsedHeader, frame: &[u8]) -> Vec<Binding> {
        let Ok(mad) = Frame::parse(frame).and_then(|f| CmMad::from_frame(&f)) else {
            return Vec::new();
        };
        let src = u128::from_be_bytes(h.src_ip);
        let dst = u128::from_be_bytes(h.dst_ip);
        match mad.message {
            CmMessage::Req(req) => {
                let entry = PendingReq {
                    port,
                    requester: src,
                    responder: dst,
                    comm_id: req.local_comm_id,
                    qpn: req.local_qpn & QP_MASK,
                };
                let same = |p: &PendingReq| {
                    p.requester == src && p.responder == dst && p.comm_id == req.local_comm_id
                };
                match self.pending.find(same) {
                    Some(i) => self.pending.put(i, entry),
                    None => {
                        if self.pending.insert(entry) {
                            bump(&mut self.counters.cm_req_evictions, 1);
                        }
                    }
                }
                Vec::new()
            }
            CmMessage::Rep(rep) => {
                let pair = |p: &PendingReq| {
                    p.requester == dst
                        && p.responder == src
                        && p.comm_id == rep.remote_comm_id
                        && p.port != port
                };
                let Some(i) = self.pending.find(pair) else {
                    bump(&mut self.counters.cm_rep_unmatched, 1);
                    return Vec::new();
                };
                let req = self.pending.remove(i);
                let forward = FlowKey {
                    sip: req.requester,
                    dip: req.responder,
                    dqp: rep.local_qpn & QP_MASK,
                };
                let bindings = vec![
                    Binding {
                        key: forward,
                        sqp: req.qpn,
                        method: Method::Cm,
                    },
                    Binding {
                        key: forward.reverse(req.qpn),
                        sqp: forward.dqp,
                        method: Method::Cm,
                    },
                ];
                for b in &bindings {
                    self.apply(b);
                }
                bump(&mut self.counters.cm_bindings, 2);
                bindings
            }
            // RTU, DREQ, DREP, REJ, MRA, ...: bindings stay until the flows
            // age out; a reused QP brings its own REQ/REP.
            _ => Vec::new(),
        }
    }

    /// One step of PSN pairing; a binding fills its flow only if the flow
    /// has no source QP (CM may have taught one since the request).
    fn psn_step(&mut self, ack: Option<PsnAck>, request: Option<(FlowKey, u32)>) -> Vec<Binding> {
        let step = self.psn.step(ack, request);
        if step.ambiguous {
            bump(&mut self.counters.psn_ambiguous, 1);
        }
        if step.evicted {
            bump(&mut self.counters.psn_tracker_evictions, 1);
        }
        let Some(b) = step.binding else {
            return Vec::new();
        };
        bump(&mut self.counters.psn_bindings, 1);
        if self.learned.contains_key(&b.key) {
            return Vec::new();
        }
        self.apply(&b);
        vec![b]
    }

    /// Enters a binding. (A tracker of its flow stays until it is paired
    /// or replaced, as in the RTL.)
    fn apply(&mut self, b: &Binding) {
        self.learned.insert(b.key, (b.sqp, b.method));
    }

    /// The learned source QP of a flow.
    pub fn binding(&self, key: &FlowKey) -> Option<Binding> {
        self.learned.get(key).map(|&(sqp, method)| Binding {
            key: *key,
            sqp,
            method,
        })
    }

    /// Every learned binding, by key.
    pub fn learned(&self) -> impl Iterator<Item = Binding> + '_ {
        self.learned
            .iter()
            .map(|(&key, &(sqp, method))| Binding { key, sqp, method })
    }

    /// The flow left the flow table (aged out or deleted): its binding goes,
    /// and its requests are tracked again. `false` if it had none.
    pub fn forget(&mut self, key: &FlowKey) -> bool {
        self.learned.remove(key).is_some()
    }

    /// The pending REQs, by slot.
    pub fn pending_reqs(&self) -> impl Iterator<Item = &PendingReq> + '_ {
        self.pending.entries().map(|(_, e)| e)
    }

    /// The PSN trackers, by slot.
    pub fn psn_trackers(&self) -> impl Iterator<Item = &PsnTracker> + '_ {
        self.psn.trackers().map(|(_, e)| e)
    }

    pub fn counters(&self) -> LearnerCounters {
        self.counters
    }

    pub fn clear_counters(&mut self) {
        self.counters = LearnerCounters::default();
    }
}

/// The CM MAD a frame carries, as the learner reads it: a frame the header
/// parser calls RoCEv2 with opcode UD SEND_ONLY to QP 1 that decodes as a
/// CM MAD (`CmMad::from_frame`).
pub fn cm_mad(frame: &[u8]) -> Option<CmMad> {
    let h = classify(frame);
    if h.class != FrameClass::Roce || h.opcode != opcode::UD_SEND_ONLY || h.dest_qp != CM_QP {
        return None;
    }
    CmMad::from_frame(&Frame::parse(frame).ok()?).ok()
}

/// Whether a frame is a CM REQ or REP: one the learner's pending-REQ table
/// handles (the RTL's `CmSnoop` event).
pub fn is_cm_req_or_rep(frame: &[u8]) -> bool {
    cm_mad(frame).is_some_and(|m| matches!(m.message, CmMessage::Req(_) | CmMessage::Rep(_)))
}

/// The gateway input each frame of a single capture arrives on.
///
/// A capture taken at one host holds both directions of a conversation; a
/// gateway sees them on two ports. The host that sends the first CM REQ
/// (the active side of the first connection) is on the data-centre side,
/// as in the traffic generator; a capture without CM takes the source of
/// its first RoCEv2 frame instead. That host's frames arrive on dc_rx,
/// every other frame on wan_rx (docs/decisions.md, "Source-QP learning",
/// Direction).
///
/// # Panics
/// When the capture holds no RoCEv2 frame.
pub fn capture_ports(frames: &[Vec<u8>]) -> Vec<InPort> {
    let is_req = |f: &&Vec<u8>| cm_mad(f).is_some_and(|m| matches!(m.message, CmMessage::Req(_)));
    let is_roce = |f: &&Vec<u8>| classify(f).class == FrameClass::Roce;
    let first = frames
        .iter()
        .find(is_req)
        .or_else(|| frames.iter().find(is_roce))
        .expect("a RoCEv2 frame");
    let dc_host = classify(first).src_ip;
    frames
        .iter()
        .map(|f| {
            let h = classify(f);
            if h.class != FrameClass::Malformed && h.src_ip == dc_host {
                InPort::DcRx
            } else {
                InPort::WanRx
            }
        })
        .collect()
}

fn bump(counter: &mut u32, by: u32) {
    *counter = counter.wrapping_add(by);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lh_01_psn_window_slides_wraps_and_restarts() {
        let key = FlowKey::ipv4([10, 0, 0, 1], [10, 0, 0, 2], 5);
        let mut t = PsnTracker::new(key, 0xff_fffe);
        t.advance(0xff_ffff, 4);
        t.advance(0x00_0001, 4); // wraps; 0x000000 was skipped but is in the window
        assert_eq!((t.newest_psn, t.span), (1, 4));
        for psn in [0xff_fffe, 0xff_ffff, 0, 1] {
            assert!(t.holds(psn), "{psn:#x}");
        }
        assert!(!t.holds(0xff_fffd) && !t.holds(2));
        t.advance(0xff_ffff, 4); // retransmission inside the window
        assert_eq!((t.newest_psn, t.span), (1, 4));
        t.advance(3, 4); // slides
        assert_eq!((t.newest_psn, t.span), (3, 4));
        assert!(t.holds(0) && !t.holds(0xff_ffff));
        t.advance(7, 4); // 4 ahead: not less than the window, restarts
        assert_eq!((t.newest_psn, t.span), (7, 1));
        t.advance(6, 4); // behind the window: restarts
        assert_eq!((t.newest_psn, t.span), (6, 1));
    }

    #[test]
    fn lh_01_request_and_ack_opcodes() {
        let requests: Vec<u8> = (0..=0xff).filter(|&op| is_psn_request(op)).collect();
        let mut expected: Vec<u8> = (0x00..=0x0c).collect();
        expected.extend([0x13, 0x14, 0x16, 0x17]);
        assert_eq!(requests, expected);
        let acks: Vec<u8> = (0..=0xff).filter(|&op| is_psn_ack(op)).collect();
        assert_eq!(acks, vec![0x0d, 0x10, 0x11, 0x12]);
    }

    #[test]
    fn lh_01_slots_take_lowest_free_then_least_recently_used() {
        let mut s = LruSlots::new(3);
        assert!(!s.insert('a') && !s.insert('b') && !s.insert('c'));
        s.put(0, 'a'); // 'a' used again: 'b' is now the oldest
        assert!(s.insert('d'));
        assert_eq!(s.entries().map(|(_, e)| *e).collect::<String>(), "adc");
        s.remove(0);
        assert!(!s.insert('e')); // the free slot, no eviction
        assert_eq!(s.entries().map(|(_, e)| *e).collect::<String>(), "edc");
    }

    #[test]
    fn lh_01_config_bounds_are_checked() {
        let ok = LearnerConfig::default();
        assert!(Learner::new(ok).is_ok());
        for (bad, err) in [
            (
                LearnerConfig {
                    pending_reqs: 0,
                    ..ok
                },
                LearnerConfigError::NoPendingReqSlots,
            ),
            (
                LearnerConfig {
                    psn_trackers: 0,
                    ..ok
                },
                LearnerConfigError::NoPsnTrackerSlots,
            ),
            (
                LearnerConfig {
                    psn_window: 0,
                    ..ok
                },
                LearnerConfigError::PsnWindowOutOfRange(0),
            ),
            (
                LearnerConfig {
                    psn_window: MAX_PSN_WINDOW + 1,
                    ..ok
                },
                LearnerConfigError::PsnWindowOutOfRange(MAX_PSN_WINDOW + 1),
            ),
        ] {
            assert_eq!(Learner::new(bad).unwrap_err(), err);
        }
    }
}
