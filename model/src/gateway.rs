//! The gateway model: forwarding, parsing, counters, the flow table and
//! source-QP learning.

use crate::learning::{
    is_cm_req_or_rep, is_psn_request, Binding, Learner, LearnerConfig, LearnerCounters, Method,
    PsnAck, PsnPairing, DEFAULT_PSN_TRACKERS,
};
use crate::longhaul::{LonghaulModel, Notification, Packet, Registers, RegistersMut};
use crate::ports::{InPort, OutPort};
use cngw_packet::parsed::{classify, FrameClass, ParsedHeader};
use cngw_regmap::{
    control, feature, flow_command, flow_status, learn_control, offset, pe_control, tod_control,
    tunnel_control, Access, REGISTERS,
};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

pub use cngw_packet::flow_key::FlowKey;

/// A flow-table entry as the model keeps it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowValue {
    pub sqp: Option<u32>,
    pub pinned: bool,
}

/// A frame as a stream carries it: bytes (no FCS) and the `tuser` error flag.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    pub data: Vec<u8>,
    pub user: bool,
}

impl Frame {
    pub fn new(data: Vec<u8>) -> Self {
        Frame { data, user: false }
    }
}

/// What the model produced for one input frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelOutput {
    /// The parser's view of the frame.
    pub parsed: ParsedHeader,
    /// Frames leaving the gateway, in order.
    pub emitted: Vec<(OutPort, Frame)>,
}

/// LH-01: a dc_rx request is tracked this many clocks after its header
/// (the flow table answers in five, the PSN pairer registers it).
pub const PSN_REQUEST_DELAY: u64 = 6;
/// LH-01: a wan_rx acknowledgement is compared this many clocks after its
/// header (the PSN pairer registers it).
pub const PSN_ACK_DELAY: u64 = 1;

/// What the PSN pairer takes in one clock: an acknowledgement, a request
/// ({key, PSN}).
type PsnClock = (Option<PsnAck>, Option<(FlowKey, u32)>);

/// Behavioural model of the gateway's registers and data path.
#[derive(Clone, Debug)]
pub struct GatewayModel {
    registers: Regs,
    /// The flow table (LH-01); `placement` says where each entry sits, so
    /// a bucket and stash overflow fails an insert as in the RTL (aging is
    /// not modelled).
    flows: BTreeMap<FlowKey, FlowValue>,
    /// The second level (LH-05..LH-09).
    lh: LonghaulModel,
    /// The last decision clock the model was told.
    lh_clock: u64,
    /// Source-QP learning (LH-01): CM snooping while `LEARN_CONTROL.cm_enable`.
    learner: Learner,
    learn_queue: LearnQueue,
    /// PSN pairing (LH-01, `LEARN_CONTROL.psn_enable`): the trackers, and
    /// the steps not yet taken, by the clock the RTL takes them in.
    psn: PsnPairing,
    psn_steps: BTreeMap<u64, PsnClock>,
    /// The clock the next dc_rx frame passes the CE marker in (LH-02 EMR).
    marker_clock: Option<u64>,
    /// PE-03: the telemetry depth steps (absolute clock, bytes), the
    /// average at the microsecond ticks, the marking LFSR.
    depth_steps: Vec<(u64, u32)>,
    pe_average: crate::pre_ecn::AverageTicks,
    pe_lfsr: crate::pre_ecn::Lfsr,
    /// FCN-03: the congested WAN node's Fast CNPs.
    fcn: crate::fast_cnp::FastCnpModel,
    /// FCN-05: the ingress PE's received Fast CNPs.
    fcn_rx: crate::fcn_rx::FcnRxModel,
    proxy_rx: crate::proxy_rx::ProxyRxModel,
    proxy_tx: crate::proxy_tx::ProxyTxModel,
    proxy_table: crate::proxy_table::ProxyTableModel,
    /// Where each flow sits in the table (its FCN-01 label).
    placement: crate::placement::Placement,
    /// Each flow's byte counts per observation window as the flow table
    /// keeps them (LH-06, LH-10).
    windows: BTreeMap<FlowKey, FlowWindow>,
    /// RA-02: the port's law; RA-03: each flow's last advice (Mb/s) and
    /// the microsecond it was sent; the messages decided.
    ra_law: crate::rate_advice::PortLaw,
    ra_flows: BTreeMap<FlowKey, (u32, u32)>,
    ra_pending: Vec<Notification>,
    /// RA-04 egress role: the data-centre port's law, the RoCEv2 bytes
    /// from wan_rx by header clock and the `qd_dc_*` depths (both since
    /// reset: (first clock, value)).
    ra_law_dc: crate::rate_advice::PortLaw,
    ra_dc_bytes: Vec<(u64, u32)>,
    ra_dc_depths: Vec<(u64, u32)>,
    /// RA-04 source role: each peer's accepted advice (first absolute
    /// clock it applies in, Mb/s, the microsecond it came).
    ra_peers: [Vec<(u64, u32, u32)>; 2],
    /// The first absolute clock remote advice may be taken in.
    ra_send_from: u64,
}

/// A flow's byte counts per observation window, as its flow-table entry
/// holds them (`window_epoch`, `window_bytes`, `prev_bytes`, `notify_state`
/// bit 0): LH-06, LH-10.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct FlowWindow {
    epoch: u8,
    bytes: u32,
    prev: u32,
    fell: bool,
}

impl FlowWindow {
    /// A packet of `bytes` bytes in window `epoch` (mod 256).
    fn count(&mut self, epoch: u8, bytes: u32) {
        if self.epoch == epoch {
            self.bytes = self.bytes.saturating_add(bytes);
            return;
        }
        let (last, before) = if self.epoch.wrapping_add(1) == epoch {
            (self.bytes, self.prev)
        } else if self.epoch.wrapping_add(2) == epoch {
            (0, self.bytes)
        } else {
            (0, 0)
        };
        *self = FlowWindow {
            epoch,
            bytes,
            prev: last,
            fell: (last as u64) * 8 < (before as u64) * 7,
        };
    }
}

/// The RTL's way from a CM pairing to the flow table (`hdl/src/learn`):
/// a pairing handled in clock p is on the learner's output from clock
/// p + 1, and its two `LearnSqp` requests (forward, then reverse) take the
/// next clocks without a data-path look-up, in order. A wan_rx REQ/REP in
/// the clock of a dc_rx one is handled a clock later. PSN bindings wait in
/// their own queue and take a clock with neither a look-up nor a waiting
/// CM binding. Frames given with their header clocks (`receive_at`) follow
/// this timing, so a data packet sees exactly the source QPs the RTL's
/// look-up sees; the queues are assumed never to fill
/// (`LEARN_QUEUE_DROPS`, `LEARN_PSN_QUEUE_DROPS` stay 0 here).
#[derive(Clone, Debug, Default)]
struct LearnQueue {
    /// CM bindings in order, each with the first clock it may enter the table.
    waiting: VecDeque<(u64, Binding)>,
    /// PSN bindings likewise.
    psn_waiting: VecDeque<(u64, Binding)>,
    /// The first clock not yet taken by a learning request.
    next_clock: u64,
    /// Clocks of data-path look-ups from `next_clock` on.
    data_clocks: BTreeSet<u64>,
    /// The header clock of the last dc_rx CM REQ/REP.
    last_dc_event: Option<u64>,
    /// FCN-05: the ingress PE's reads of a label's place, each with its
    /// first clock; one takes a clock with neither a look-up nor a waiting
    /// binding.
    fcn_reads: VecDeque<crate::fcn_rx::FcnRead>,
    /// PX-02: the proxy's flow-table reads likewise, after those.
    proxy_reads: VecDeque<crate::proxy_rx::ProxyRead>,
}

/// The register file, as the second-level model reads it.
#[derive(Clone, Debug, Default)]
struct Regs(BTreeMap<u32, u32>);

impl std::ops::Deref for Regs {
    type Target = BTreeMap<u32, u32>;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl std::ops::DerefMut for Regs {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

impl Registers for Regs {
    fn reg(&self, offset: u32) -> u32 {
        self.0[&offset]
    }
}

impl RegistersMut for Regs {
    fn view(&self) -> &dyn Registers {
        self
    }
    fn count(&mut self, offset: u32) {
        let c = self.0.entry(offset).or_insert(0);
        *c = c.wrapping_add(1);
    }
    fn set(&mut self, offset: u32, value: u32) {
        self.0.insert(offset, value);
    }
}

impl Default for GatewayModel {
    fn default() -> Self {
        Self::new()
    }
}

impl GatewayModel {
    /// The state after reset: every register at its reset value.
    pub fn new() -> Self {
        let registers = REGISTERS
            .iter()
            .map(|r| {
                (
                    r.offset,
                    if r.access == Access::WritePulse {
                        0
                    } else {
                        r.reset
                    },
                )
            })
            .collect();
        GatewayModel {
            registers: Regs(registers),
            flows: BTreeMap::new(),
            lh: LonghaulModel::new(0),
            lh_clock: 0,
            learner: Learner::new(LearnerConfig {
                psn_enable: false,
                ..LearnerConfig::default()
            })
            .expect("the default table sizes"),
            learn_queue: LearnQueue::default(),
            psn: PsnPairing::new(DEFAULT_PSN_TRACKERS, 0),
            psn_steps: BTreeMap::new(),
            marker_clock: None,
            depth_steps: Vec::new(),
            pe_average: Default::default(),
            pe_lfsr: crate::pre_ecn::Lfsr(1),
            fcn: Default::default(),
            fcn_rx: Default::default(),
            proxy_rx: Default::default(),
            proxy_tx: Default::default(),
            proxy_table: Default::default(),
            placement: Default::default(),
            windows: BTreeMap::new(),
            ra_law: Default::default(),
            ra_flows: BTreeMap::new(),
            ra_pending: Vec::new(),
            ra_law_dc: crate::rate_advice::PortLaw::keeping_sends(),
            ra_dc_bytes: Vec::new(),
            ra_dc_depths: Vec::new(),
            ra_peers: [Vec::new(), Vec::new()],
            ra_send_from: 0,
        }
    }

    /// Value of a register as a CSR read returns it (`None`: unmapped).
    pub fn registers(&self) -> &dyn crate::longhaul::Registers {
        self.registers.view()
    }

    pub fn read_register(&self, offset: u32) -> Option<u32> {
        self.registers.get(&offset).copied()
    }

    /// A CSR write; `false` when the register is unmapped or read-only.
    pub fn write_register(&mut self, offset: u32, value: u32) -> bool {
        let Some(reg) = cngw_regmap::by_offset(offset) else {
            return false;
        };
        match reg.access {
            Access::ReadOnly => false,
            Access::ReadWrite => {
                let was_drawing = self.pe_drawing();
                self.registers.insert(offset, value);
                if matches!(
                    offset,
                    offset::PROXY_ENTRY_INDEX | offset::PROXY_LOOKUP_ADDR_0
                        ..=offset::PROXY_LOOKUP_ADDR_3
                ) {
                    self.refresh_proxy_table();
                }
                if !was_drawing && self.pe_drawing() {
                    self.pe_lfsr = crate::pre_ecn::Lfsr::seeded(self.reg(offset::PE_LFSR_SEED));
                }
                true
            }
            Access::WritePulse => {
                if offset == offset::CONTROL && value & control::CLEAR_COUNTERS != 0 {
                    for r in REGISTERS
                        .iter()
                        .filter(|r| r.volatile && !cngw_regmap::NOT_CLEARED.contains(&r.offset))
                    {
                        self.registers.insert(r.offset, 0);
                    }
                }
                if offset == offset::FLOW_COMMAND && value & 0xF != 0 {
                    self.flow_command(value);
                }
                if offset == offset::PROXY_ENTRY_COMMAND && value & cngw_regmap::proxy::COMMIT != 0
                {
                    self.proxy_table.commit(self.registers.view());
                    self.refresh_proxy_table();
                }
                // LH-12/LH-13 time of day. (`capture` latches the uptime of
                // the clock of the write, which the model does not know: see
                // `time_of_day_captured`.)
                if offset == offset::LH_TOD_CONTROL && value & tod_control::SET != 0 {
                    let base = ((self.reg(offset::LH_TOD_BASE_SECONDS) as u64) << 32)
                        | self.reg(offset::LH_TOD_BASE_FRACTION) as u64;
                    self.lh.set_time_of_day_base(base);
                }
                true
            }
        }
    }

    /// PX-03: the table's read-back and look-up registers.
    fn refresh_proxy_table(&mut self) {
        for (off, v) in self.proxy_table.status(self.registers.view()) {
            self.registers.insert(off, v);
        }
    }

    /// PX-03: the prefix -> proxy table.
    pub fn proxy_table(&self) -> &crate::proxy_table::ProxyTableModel {
        &self.proxy_table
    }

    /// The key the `FLOW_*` key registers hold.
    fn command_key(&self) -> FlowKey {
        let addr = |first: u32| {
            let mut a = [0u8; 16];
            for i in 0..4 {
                a[4 * i..4 * i + 4].copy_from_slice(&self.reg(first + 4 * i as u32).to_be_bytes());
            }
            a
        };
        FlowKey::new(
            addr(offset::FLOW_SIP_0),
            addr(offset::FLOW_DIP_0),
            self.reg(offset::FLOW_DQP) & 0xFF_FFFF,
        )
    }

    /// A `FLOW_COMMAND` write: look-up, static insert or delete (the lowest
    /// command bit set wins, as in the RTL's decoder: delete over insert
    /// over look-up).
    fn flow_command(&mut self, command: u32) {
        if command & flow_command::READ_LOCATION != 0 {
            // Where a flow sits depends on the RTL's hash and insertion
            // order, which the model does not keep: iteration is checked
            // against the flows the RTL reports (testbench/tests/flows.rs).
            self.registers
                .insert(offset::FLOW_STATUS, flow_status::DONE);
            return;
        }
        let key = self.command_key();
        let before = self.flows.get(&key).copied();
        let mut status = flow_status::DONE;
        if command & flow_command::DELETE != 0 {
            self.flows.remove(&key);
            self.placement.remove(&key);
            self.windows.remove(&key);
        } else if command & flow_command::INSERT_STATIC != 0 && !self.place(key) {
            status |= flow_status::FAILED;
        } else if command & flow_command::INSERT_STATIC != 0 {
            self.flows.insert(
                key,
                FlowValue {
                    sqp: Some(self.reg(offset::FLOW_SQP) & 0xFF_FFFF),
                    pinned: true,
                },
            );
        }
        // The answer shows the entry as the command found it (insert:
        // as it left it).
        let shown = if command & (flow_command::DELETE) == 0
            && command & flow_command::INSERT_STATIC != 0
        {
            self.flows.get(&key).copied()
        } else {
            before
        };
        if before.is_some() {
            status |= flow_status::HIT;
        }
        if let Some(v) = shown {
            if v.sqp.is_some() {
                status |= flow_status::SQP_VALID;
            }
            if v.pinned {
                status |= flow_status::PINNED;
            }
        }
        self.registers.insert(offset::FLOW_STATUS, status);
        self.registers.insert(
            offset::FLOW_RESULT_SQP,
            shown.and_then(|v| v.sqp).unwrap_or(0),
        );
        if shown.is_some() {
            let words = |a: u128| {
                a.to_be_bytes()
                    .chunks(4)
                    .map(|c| u32::from_be_bytes(c.try_into().unwrap()))
                    .collect::<Vec<_>>()
            };
            for (i, w) in words(key.sip).into_iter().enumerate() {
                self.registers
                    .insert(offset::FLOW_RESULT_SIP_0 + 4 * i as u32, w);
            }
            for (i, w) in words(key.dip).into_iter().enumerate() {
                self.registers
                    .insert(offset::FLOW_RESULT_DIP_0 + 4 * i as u32, w);
            }
            self.registers.insert(offset::FLOW_RESULT_DQP, key.dqp);
        }
        self.update_flow_gauges();
    }

    fn update_flow_gauges(&mut self) {
        let occupancy = self.flows.len() as u32;
        let learned = self.flows.values().filter(|v| v.sqp.is_some()).count() as u32;
        self.registers.insert(offset::FLOW_OCCUPANCY, occupancy);
        self.registers.insert(offset::FLOW_LEARNED, learned);
    }

    /// The flow table's entries.
    pub fn flows(&self) -> &BTreeMap<FlowKey, FlowValue> {
        &self.flows
    }

    /// The source-QP learner (LH-01): its pending REQs and counters.
    pub fn learner(&self) -> &Learner {
        &self.learner
    }

    /// A `LearnSqp` request reaches the flow table: sets the flow's source
    /// QP, inserting the flow if absent; a static entry keeps its own, and
    /// a PSN binding (`fill`) leaves a flow that has one as it is.
    fn learn_sqp(&mut self, b: &Binding) {
        if !self.place(b.key) {
            return;
        }
        let v = self.flows.entry(b.key).or_insert(FlowValue {
            sqp: None,
            pinned: false,
        });
        let keeps = v.pinned || (b.method == Method::Psn && v.sqp.is_some());
        if !keeps {
            v.sqp = Some(b.sqp);
        }
        self.update_flow_gauges();
    }

    /// Learning requests that enter the flow table before clock `clock`
    /// (`None`: all of them): in each clock without a look-up, a waiting CM
    /// binding, else a waiting PSN binding.
    fn issue_learning_before(&mut self, clock: Option<u64>) {
        self.psn_steps_before(clock);
        loop {
            let q = &mut self.learn_queue;
            let ready = |w: &VecDeque<(u64, Binding)>| w.front().map(|&(r, _)| r);
            let (cm, psn) = (ready(&q.waiting), ready(&q.psn_waiting));
            let fcn = q.fcn_reads.front().map(|r| r.ready);
            let read = q.proxy_reads.front().map(|r| r.ready);
            let Some(first) = cm.into_iter().chain(psn).chain(fcn).chain(read).min() else {
                break;
            };
            let mut c = q.next_clock.max(first);
            while q.data_clocks.contains(&c) {
                c += 1;
            }
            if clock.is_some_and(|t| c >= t) {
                break;
            }
            q.next_clock = c + 1;
            let b = if cm.is_some_and(|r| r <= c) {
                q.waiting.pop_front()
            } else if psn.is_some_and(|r| r <= c) {
                q.psn_waiting.pop_front()
            } else if fcn.is_some_and(|r| r <= c) {
                let r = q.fcn_reads.pop_front().expect("a waiting read");
                self.answer_fcn_read(&r);
                continue;
            } else {
                let r = q.proxy_reads.pop_front().expect("a waiting read");
                self.answer_proxy_read(&r);
                continue;
            };
            self.learn_sqp(&b.expect("a waiting binding").1);
        }
        let q = &mut self.learn_queue;
        q.data_clocks = q.data_clocks.split_off(&q.next_clock);
    }

    /// FCN-05: the ingress PE's read of `read`'s place, in the table as it
    /// is now.
    fn answer_fcn_read(&mut self, read: &crate::fcn_rx::FcnRead) {
        let flow = self.placement.key_at(read.place).and_then(|key| {
            let v = self.flows.get(&key)?;
            Some((key.sip.to_be_bytes(), v.sqp))
        });
        self.fcn_rx.answer(read, flow, &mut self.registers);
    }

    /// PX-02: the proxy's read of `read`'s flow, in the table as it is now.
    fn answer_proxy_read(&mut self, read: &crate::proxy_rx::ProxyRead) {
        let sqp = self.flows.get(&read.request.key).map(|v| v.sqp);
        self.proxy_rx
            .answer(read, sqp, &self.lh, &mut self.registers);
    }

    /// LH-01 PSN pairing: the steps the RTL takes before clock `clock`
    /// (`None`: all), in clock order; their bindings join the PSN queue,
    /// ready a clock after their step.
    fn psn_steps_before(&mut self, clock: Option<u64>) {
        while let Some((&at, _)) = self.psn_steps.first_key_value() {
            if clock.is_some_and(|t| at >= t) {
                break;
            }
            let (ack, request) = self.psn_steps.remove(&at).expect("a step");
            if let Some(b) = self.psn_step(ack, request) {
                self.learn_queue.psn_waiting.push_back((at + 1, b));
            }
        }
    }

    /// One step of the PSN trackers, counted; the binding it found.
    fn psn_step(
        &mut self,
        ack: Option<PsnAck>,
        request: Option<(FlowKey, u32)>,
    ) -> Option<Binding> {
        self.psn.set_window(self.reg(offset::LEARN_PSN_WINDOW));
        let step = self.psn.step(ack, request);
        if step.ambiguous {
            self.count(offset::LEARN_PSN_AMBIGUOUS);
        }
        if step.evicted {
            self.count(offset::LEARN_PSN_EVICTIONS);
        }
        if step.binding.is_some() {
            self.count(offset::LEARN_PSN_BINDINGS);
        }
        step.binding
    }

    /// LH-01 PSN pairing: a dc_rx request of a flow the look-up found
    /// without a source QP (tracked `PSN_REQUEST_DELAY` clocks after its
    /// header), or a wan_rx acknowledgement (`PSN_ACK_DELAY`).
    fn psn_event(
        &mut self,
        ack: Option<PsnAck>,
        request: Option<(FlowKey, u32)>,
        header_clock: Option<u64>,
    ) {
        if self.reg(offset::LEARN_CONTROL) & learn_control::PSN_ENABLE == 0 {
            return;
        }
        match header_clock {
            None => {
                if let Some(b) = self.psn_step(ack, request) {
                    self.learn_sqp(&b);
                }
            }
            Some(t) => {
                let at = t + if ack.is_some() {
                    PSN_ACK_DELAY
                } else {
                    PSN_REQUEST_DELAY
                };
                let step = self.psn_steps.entry(at).or_default();
                if ack.is_some() {
                    assert!(step.0.is_none(), "two wan_rx headers in clock {t}");
                    step.0 = ack;
                } else {
                    assert!(step.1.is_none(), "two dc_rx headers in clock {t}");
                    step.1 = request;
                }
            }
        }
    }

    /// LH-01: the learner watches a frame of either input; its bindings
    /// wait for flow-table slots (`header_clock`) or apply at once.
    fn learn(&mut self, port: InPort, data: &[u8], header_clock: Option<u64>) {
        if self.reg(offset::LEARN_CONTROL) & learn_control::CM_ENABLE == 0 {
            return;
        }
        let before = self.learner.counters();
        let bindings = self.learner.observe(port, data);
        let after = self.learner.counters();
        let delta = |f: fn(&LearnerCounters) -> u32| f(&after).wrapping_sub(f(&before));
        for (off, by) in [
            (offset::LEARN_CM_BINDINGS, delta(|c| c.cm_bindings)),
            (
                offset::LEARN_CM_REQ_EVICTIONS,
                delta(|c| c.cm_req_evictions),
            ),
            (
                offset::LEARN_CM_REP_UNMATCHED,
                delta(|c| c.cm_rep_unmatched),
            ),
        ] {
            let c = self.registers.entry(off).or_insert(0);
            *c = c.wrapping_add(by);
        }
        let Some(t) = header_clock else {
            for b in &bindings {
                self.learn_sqp(b);
            }
            return;
        };
        let event = is_cm_req_or_rep(data);
        let handled = match port {
            InPort::DcRx => {
                if event {
                    self.learn_queue.last_dc_event = Some(t);
                }
                t
            }
            InPort::WanRx if self.learn_queue.last_dc_event == Some(t) => t + 1,
            InPort::WanRx => t,
        };
        self.learn_queue
            .waiting
            .extend(bindings.into_iter().map(|b| (handled + 1, b)));
    }

    /// Gives `key` its place in the table (it keeps one it has); `false`,
    /// counted in `FLOW_INSERT_FAILURES`, when its 8 candidate buckets and
    /// the stash are full.
    fn place(&mut self, key: FlowKey) -> bool {
        if self.placement.insert(key).is_some() {
            return true;
        }
        self.count(offset::FLOW_INSERT_FAILURES);
        false
    }

    /// FCN-01: the flow label of `key`'s place (`None`: not in the table).
    pub fn flow_label(&self, key: &FlowKey) -> Option<u32> {
        self.placement.location(key).map(|l| l.label())
    }

    /// FCN-05: the flow a label names (`None`: no flow at that place).
    pub fn flow_of_label(&self, label: u32) -> Option<FlowKey> {
        crate::placement::Location::of_label(label).and_then(|l| self.placement.key_at(l))
    }

    /// The flows with their places in the table.
    pub fn placement(&self) -> &crate::placement::Placement {
        &self.placement
    }

    /// LH-01: a RoCEv2 frame from dc_rx looks its flow up, inserting it
    /// without a source QP when new. Returns the entry.
    fn look_up_and_learn(&mut self, parsed: &ParsedHeader) -> FlowValue {
        let key = FlowKey::of_header(parsed);
        let unplaced = FlowValue {
            sqp: None,
            pinned: false,
        };
        let v = if self.place(key) {
            *self.flows.entry(key).or_insert(unplaced)
        } else {
            unplaced
        };
        if v.sqp.is_none() {
            self.count(offset::FLOW_LOOKUPS_WITHOUT_SQP);
        }
        self.update_flow_gauges();
        v
    }

    /// Time base of the second level: the absolute clock at which reset
    /// was released (`cngw_sim::Gateway::reset_released_at`).
    pub fn set_reset_clock(&mut self, clock: u64) {
        self.lh = LonghaulModel::new(clock);
        self.fcn = crate::fast_cnp::FastCnpModel::new(clock);
        self.fcn_rx = crate::fcn_rx::FcnRxModel::new(clock);
        self.proxy_rx = crate::proxy_rx::ProxyRxModel::new(clock);
        self.proxy_tx = crate::proxy_tx::ProxyTxModel::new(clock);
        // A reset empties the translators' read queues.
        self.learn_queue.fcn_reads.clear();
        self.learn_queue.proxy_reads.clear();
        self.lh_clock = clock;
        self.windows.clear();
        self.ra_law = Default::default();
        self.ra_flows.clear();
        self.ra_law_dc = crate::rate_advice::PortLaw::keeping_sends();
        self.ra_dc_bytes.clear();
        self.ra_dc_depths.clear();
        self.ra_peers = [Vec::new(), Vec::new()];
        self.depth_steps.clear();
        self.pe_average = Default::default();
    }

    /// The host captured the uptime (`LH_TOD_CONTROL.capture`) and the
    /// device latched `uptime` (NTP 32.32) into `LH_TOD_UPTIME_*`: the
    /// model has no clock for register writes, so a harness that captures
    /// (the driver's `set_time_of_day`) tells it what the device read.
    pub fn time_of_day_captured(&mut self, uptime: u64) {
        self.registers
            .insert(offset::LH_TOD_UPTIME_SECONDS, (uptime >> 32) as u32);
        self.registers
            .insert(offset::LH_TOD_UPTIME_FRACTION, uptime as u32);
    }

    /// The telemetry input reported `bytes` in absolute clock `clock`.
    pub fn set_queue_depth_at(&mut self, bytes: u32, clock: u64) {
        self.depth_steps.push((clock, bytes));
        self.lh
            .queue_depth_changed(bytes, clock, &mut self.registers);
        self.lh_clock = self.lh_clock.max(clock);
        self.registers
            .insert(offset::PORT0_QUEUE_DEPTH_BYTES, bytes);
    }

    /// The depth the CE marker compares (LH-04), alone: the register the
    /// marker reads, not the second level's view (see
    /// [`GatewayModel::controller_depth_changed`]).
    pub fn set_marker_depth(&mut self, bytes: u32) {
        self.registers
            .insert(offset::PORT0_QUEUE_DEPTH_BYTES, bytes);
    }

    /// The absolute clock in which the next dc_rx frame's first beat passes
    /// the CE marker: its ECN counts toward the marking rate of that clock's
    /// window (LH-02). Without it (the default) frames do not count.
    pub fn set_marker_clock(&mut self, clock: u64) {
        self.marker_clock = Some(clock);
    }

    /// The second level's view alone: the telemetry input reported `bytes`
    /// in absolute clock `clock`.
    pub fn controller_depth_changed(&mut self, bytes: u32, clock: u64) {
        self.depth_steps.push((clock, bytes));
        self.lh
            .queue_depth_changed(bytes, clock, &mut self.registers);
        self.lh_clock = self.lh_clock.max(clock);
    }

    /// Lets time pass to absolute clock `clock` (Resumes, LH-09; learned
    /// source QPs reach the flow table).
    pub fn advance_to(&mut self, clock: u64) {
        self.lh.advance_to(clock, &mut self.registers);
        self.issue_learning_before(Some(clock));
    }

    /// LH-02: `(PORT0_EMR_Q16, EMR > V_ecn)` in absolute clock `clock`,
    /// from the frames given with [`GatewayModel::set_marker_clock`].
    pub fn marking_rate_at(&self, clock: u64) -> (u32, bool) {
        self.lh
            .emr_at(clock.saturating_sub(self.lh.reset_clock()), &self.registers)
    }

    /// Notifications toward senders decided so far, oldest first (taken).
    pub fn take_notifications(&mut self) -> Vec<Notification> {
        self.lh.take_notifications()
    }

    /// FCN-03: Fast CNPs the congested WAN node decided so far, oldest
    /// first (taken).
    pub fn take_fast_cnps(&mut self) -> Vec<Notification> {
        self.fcn.take()
    }

    /// FCN-05: standard CNPs the ingress PE decided for received Fast
    /// CNPs so far, oldest first (taken).
    ///
    /// A read still waiting for its clock is answered first, from the
    /// table as it is.
    pub fn take_ingress_cnps(&mut self) -> Vec<Notification> {
        while let Some(r) = self.learn_queue.fcn_reads.pop_front() {
            self.answer_fcn_read(&r);
        }
        self.fcn_rx.take()
    }

    /// PX-01: CN messages to proxies, in the order decided (taken out).
    pub fn take_proxy_messages(&mut self) -> Vec<Notification> {
        self.proxy_tx.take()
    }

    /// PX-02: standard CNPs the proxy decided for received CN messages so
    /// far, oldest first (taken).
    ///
    /// A read still waiting for its clock (time not advanced past it,
    /// [`GatewayModel::advance_to`]) is answered first, from the table as
    /// it is.
    pub fn take_proxy_cnps(&mut self) -> Vec<Notification> {
        while let Some(r) = self.learn_queue.proxy_reads.pop_front() {
            self.answer_proxy_read(&r);
        }
        self.proxy_rx.take()
    }

    /// RA-03: Rate Advice messages, in the order decided (taken out).
    pub fn take_rate_advice(&mut self) -> Vec<Notification> {
        std::mem::take(&mut self.ra_pending)
    }

    /// RA-02: the port's advised rate (Mb/s) in absolute clock `clock`
    /// (`RA_PORT_RATE_MBPS`); a later clock than any asked before.
    pub fn rate_advice_port_rate_at(&mut self, clock: u64) -> u32 {
        let k = clock.saturating_sub(self.lh.reset_clock());
        let lh = &self.lh;
        self.ra_law.rate_at(
            k,
            self.registers.view(),
            |lo, hi| lh.port_bytes_between(lo, hi),
            |e| lh.depth_at(e),
        )
    }

    /// RA-04: the `qd_dc_*` telemetry input reported `bytes` in absolute
    /// clock `clock` (the egress law sees it from the next clock).
    pub fn set_dc_queue_depth_at(&mut self, bytes: u32, clock: u64) {
        let k = clock.saturating_sub(self.lh.reset_clock());
        self.ra_dc_depths.push((k + 1, bytes));
    }

    /// RA-04: the data-centre port's advice (Mb/s) in absolute clock
    /// `clock` (`RA_DC_PORT_RATE_MBPS`); a later clock than any asked before.
    pub fn rate_advice_dc_rate_at(&mut self, clock: u64) -> u32 {
        let k = clock.saturating_sub(self.lh.reset_clock());
        let l = crate::rate_advice::law_registers_dc(self.registers.view());
        let (bytes, depths) = (&self.ra_dc_bytes, &self.ra_dc_depths);
        self.ra_law_dc.rate_at_with(
            k,
            self.registers.view(),
            l,
            |lo, hi| {
                let a = bytes.partition_point(|b| b.0 < lo);
                let b = bytes.partition_point(|b| b.0 < hi);
                bytes[a..b].iter().map(|b| b.1 as u64).sum()
            },
            |e| {
                let n = depths.partition_point(|d| d.0 <= e);
                if n == 0 {
                    0
                } else {
                    depths[n - 1].1
                }
            },
        )
    }

    /// RA-04 egress role: the Rate Advice messages to the peers (wan_tx)
    /// whose interval's advice was taken up to absolute clock `clock`, in
    /// order (one per valid peer, peer 0 first), with the registers as
    /// they are now; counted as sent. Asked with clocks that do not go
    /// back.
    pub fn take_remote_advice_until(&mut self, clock: u64) -> Vec<Notification> {
        use crate::longhaul::{gw_ipv6, gw_mac, ipv6_registers, mac_registers};
        use cngw_packet::envelope::Envelope;
        use cngw_packet::rate_advice::{RateAdvice, RateAdviceMessage};
        use cngw_regmap::{feature, ra_remote_control};
        use std::net::Ipv4Addr;
        self.rate_advice_dc_rate_at(clock);
        let k = clock.saturating_sub(self.lh.reset_clock());
        let mut out = Vec::new();
        while let Some(&(at, rate)) = self.ra_law_dc.sends.front() {
            if at > k {
                break;
            }
            self.ra_law_dc.sends.pop_front();
            let r = self.registers.view();
            if at + self.lh.reset_clock() < self.ra_send_from
                || r.reg(offset::FEATURE_ENABLE) & feature::RATE_ADVICE == 0
                || r.reg(offset::RA_REMOTE_CONTROL) & ra_remote_control::SEND == 0
            {
                continue;
            }
            for (addr, control) in [
                (offset::RA_PEER0_ADDR_0, offset::RA_PEER0_CONTROL),
                (offset::RA_PEER1_ADDR_0, offset::RA_PEER1_CONTROL),
            ] {
                let r = self.registers.view();
                if r.reg(control) & 1 == 0 {
                    continue;
                }
                let peer = ipv6_registers(r, addr);
                let env = match peer.to_ipv4_mapped() {
                    Some(v4) => Envelope::ipv4(Ipv4Addr::from(r.reg(offset::GW_IPV4)), v4),
                    None => Envelope::ipv6(gw_ipv6(r), peer),
                }
                .with_macs(
                    gw_mac(r),
                    mac_registers(
                        r,
                        offset::TUNNEL_NEXT_HOP_MAC_HI,
                        offset::TUNNEL_NEXT_HOP_MAC_LO,
                    ),
                )
                .with_dscp((r.reg(offset::NOTIFY_DSCP) & 0x3F) as u8);
                let mut m = RateAdviceMessage::new(0, RateAdvice::new(rate, 0, 0));
                m.opcode = (r.reg(offset::RA_OPCODE) & 0xFF) as u8;
                out.push(Notification {
                    clock: at + self.lh.reset_clock(),
                    frame: Frame::new(m.to_frame(&env).to_bytes()),
                });
                self.count(offset::RA_REMOTE_SENT);
                self.count(offset::WAN_TX_FRAMES);
            }
        }
        out
    }

    /// RA-04 source role: peer `n`'s advice in force in absolute clock
    /// `clock` (`RA_PEERn_MBPS`; `None`: none or lapsed).
    pub fn rate_advice_peer_at(&self, n: usize, clock: u64) -> Option<u32> {
        let r = self.registers.view();
        let control = [offset::RA_PEER0_CONTROL, offset::RA_PEER1_CONTROL][n];
        if r.reg(control) & 1 == 0 {
            return None;
        }
        let h = &self.ra_peers[n];
        let i = h.partition_point(|e| e.0 <= clock);
        let &(_, rate, us) = h.get(i.checked_sub(1)?)?;
        let k = clock.saturating_sub(self.lh.reset_clock());
        let now_us = (k / r.reg(offset::CLOCKS_PER_US).max(1) as u64) as u32;
        let timeout = r.reg(offset::RA_REMOTE_TIMEOUT_US);
        (timeout == 0 || now_us.wrapping_sub(us) < timeout).then_some(rate)
    }

    /// RA-02: `RA_INTERVAL_US` was written (the new value is in the
    /// model's registers) in absolute clock `clock`, away from a
    /// microsecond tick (see `PortLaw::interval_written`).
    pub fn rate_advice_interval_written(&mut self, clock: u64) {
        let k = clock.saturating_sub(self.lh.reset_clock());
        self.ra_law.interval_written(k, self.registers.view());
        self.ra_law_dc.interval_written(k, self.registers.view());
    }

    /// RA-04: `RA_REMOTE_CONTROL.send` (with `FEATURE_ENABLE.rate_advice`)
    /// took effect in absolute clock `clock`: intervals whose advice was
    /// taken before it send nothing (the model has no clock for register
    /// writes; write away from the clock an interval's advice is taken).
    pub fn rate_advice_remote_send_from(&mut self, clock: u64) {
        self.ra_send_from = clock;
    }

    /// RA-01..RA-03: a RoCEv2 frame from dc_rx found (or entered) its flow
    /// in the table; its decision clock is `clock`.
    fn rate_advice(
        &mut self,
        clock: u64,
        key: FlowKey,
        inserted: bool,
        sqp: Option<u32>,
        frame: &[u8],
        parsed: &ParsedHeader,
    ) {
        use crate::fcn_rx::prefix_covers;
        use crate::longhaul::{gw_ipv6, gw_mac};
        use cngw_packet::envelope::Envelope;
        use cngw_packet::rate_advice::{RateAdvice, RateAdviceMessage};
        use cngw_regmap::ra_control;
        use std::net::{Ipv4Addr, Ipv6Addr};
        let r = self.registers.view();
        if r.reg(offset::FEATURE_ENABLE) & cngw_regmap::feature::RATE_ADVICE == 0 {
            return;
        }
        let sender = Ipv6Addr::from(key.sip);
        // RA-01: BTH byte 4's capability bit, when RA_CONTROL.header_bit.
        let ip = 14 + if parsed.vlan_id.is_some() { 4 } else { 0 };
        let ip_len = if parsed.is_ipv6 {
            40
        } else {
            4 * (frame.get(ip).copied().unwrap_or(0x45) & 0x0F) as usize
        };
        let flagged = r.reg(offset::RA_CONTROL) & ra_control::HEADER_BIT != 0
            && frame
                .get(ip + ip_len + 8 + 4)
                .is_some_and(|b| b & ra_control::CAPABLE_BIT != 0);
        let capable = flagged
            || prefix_covers(sender, r, offset::RA_CAP0_PREFIX_0, offset::RA_CAP0_CONTROL)
            || prefix_covers(sender, r, offset::RA_CAP1_PREFIX_0, offset::RA_CAP1_CONTROL);
        if !capable {
            return;
        }
        let port = self.rate_advice_port_rate_at(clock);
        let r = self.registers.view();
        let mut advice = port;
        for (prefix, control, mbps) in [
            (
                offset::RA_POLICY0_PREFIX_0,
                offset::RA_POLICY0_CONTROL,
                offset::RA_POLICY0_MBPS,
            ),
            (
                offset::RA_POLICY1_PREFIX_0,
                offset::RA_POLICY1_CONTROL,
                offset::RA_POLICY1_MBPS,
            ),
        ] {
            if prefix_covers(sender, r, prefix, control) {
                advice = advice.min(r.reg(mbps));
            }
        }
        // RA-04: a live peer's advice caps flows toward the prefix behind it.
        let receiver = Ipv6Addr::from(key.dip);
        for (n, (prefix, control)) in [
            (offset::RA_PEER0_PREFIX_0, offset::RA_PEER0_CONTROL),
            (offset::RA_PEER1_PREFIX_0, offset::RA_PEER1_CONTROL),
        ]
        .into_iter()
        .enumerate()
        {
            if prefix_covers(receiver, self.registers.view(), prefix, control) {
                if let Some(rate) = self.rate_advice_peer_at(n, clock) {
                    advice = advice.min(rate);
                }
            }
        }
        let r = self.registers.view();
        let advice = advice & 0xFF_FFFF;
        let Some(sqp) = sqp else {
            self.count(offset::RA_NO_SQP);
            return;
        };
        let k = clock.saturating_sub(self.lh.reset_clock());
        let now_us = (k / r.reg(offset::CLOCKS_PER_US).max(1) as u64) as u32;
        let last = if inserted {
            None
        } else {
            self.ra_flows.get(&key).copied()
        };
        let changed = last.is_none_or(|(a, _)| a != advice);
        let spaced =
            last.is_none_or(|(_, t)| now_us.wrapping_sub(t) >= r.reg(offset::RA_FLOW_SPACING_US));
        if !changed {
            return;
        }
        if !spaced {
            self.count(offset::RA_HELD);
            return;
        }
        let env = match sender.to_ipv4_mapped() {
            Some(v4) => Envelope::ipv4(Ipv4Addr::from(r.reg(offset::GW_IPV4)), v4),
            None => Envelope::ipv6(gw_ipv6(r), sender),
        }
        .with_macs(gw_mac(r), frame[6..12].try_into().unwrap())
        .with_dscp((r.reg(offset::NOTIFY_DSCP) & 0x3F) as u8);
        let mut m = RateAdviceMessage::new(sqp, RateAdvice::new(advice, parsed.dest_qp, 0));
        m.opcode = (r.reg(offset::RA_OPCODE) & 0xFF) as u8;
        m.pkey = parsed.pkey;
        self.ra_pending.push(Notification {
            clock,
            frame: Frame::new(m.to_frame(&env).to_bytes()),
        });
        self.ra_flows.insert(key, (advice, now_us));
        self.count(offset::RA_SENT);
        crate::longhaul::count_sent(&mut self.registers);
    }

    /// PE-05: light Fast CNPs the ingress PE handed to its shaper instead
    /// of translating them (taken out). The shaper itself is timed: the
    /// frame-level model does not say which frames it delays or reroutes
    /// (`cngw_model::flow_shaper` models it clock by clock).
    pub fn take_light_notes(&mut self) -> Vec<crate::fcn_rx::LightNote> {
        self.fcn_rx.take_light()
    }

    /// LH-15: the format the registers say `sender` is notified in (the
    /// format table, else `LH_OPTIONS`).
    pub fn notify_format(&self, sender: std::net::IpAddr) -> crate::longhaul::NotifyFormat {
        let sender = match sender {
            std::net::IpAddr::V4(v4) => v4.to_ipv6_mapped(),
            std::net::IpAddr::V6(v6) => v6,
        };
        crate::longhaul::notify_format(sender, &self.registers)
    }

    /// The external queue-depth input reported `bytes`.
    /// Without a clock, the change counts from the last clock the model
    /// was told (the second level's timing then is not clock-exact).
    pub fn set_queue_depth(&mut self, bytes: u32) {
        self.set_queue_depth_at(bytes, self.lh_clock);
    }

    fn reg(&self, offset: u32) -> u32 {
        self.registers[&offset]
    }

    /// PE-03: two-threshold marking on (`FEATURE_ENABLE.pre_ecn` and
    /// `PE_CONTROL.wan_marking`).
    pub fn pe_marking(&self) -> bool {
        self.reg(offset::FEATURE_ENABLE) & feature::PRE_ECN != 0
            && self.reg(offset::PE_CONTROL) & pe_control::WAN_MARKING != 0
    }

    /// PE-03 marking or the FCN-03 congested WAN node is on: ECN-capable
    /// frames toward the WAN take draws (the LFSR is seeded when this
    /// becomes true).
    pub fn pe_drawing(&self) -> bool {
        self.pe_marking() || crate::fast_cnp::wan_node(&self.registers)
    }

    /// PE-03: `(p_ect1, p_ce)` in effect in absolute clock `clock`, from the
    /// telemetry depth (`set_queue_depth_at`; the internal virtual queue is
    /// not followed here). Clocks must not decrease from call to call.
    pub fn pe_probabilities(&mut self, clock: u64) -> (u32, u32) {
        use crate::pre_ecn::{probability, tick_in_effect};
        let reset = self.lh.reset_clock();
        let cpu = self.reg(offset::CLOCKS_PER_US);
        let Some(tick) = tick_in_effect(clock, reset, cpu) else {
            return (0, 0);
        };
        let shift = self.reg(offset::PORT0_AVG_WEIGHT_SHIFT);
        let avg = self
            .pe_average
            .after_tick(tick, &self.depth_steps, reset, cpu, shift);
        let (t1, t2, tmax) = (
            self.reg(offset::PE_T1_BYTES),
            self.reg(offset::PE_T2_BYTES),
            self.reg(offset::PE_TMAX_BYTES),
        );
        (probability(avg, t1, t2), probability(avg, t2, tmax))
    }

    /// LH-04: marking enabled and the WAN queue above K_min.
    pub fn above_k_min(&self) -> bool {
        self.reg(offset::FEATURE_ENABLE) & feature::LH_ECN_MARK != 0
            && self.reg(offset::PORT0_QUEUE_DEPTH_BYTES) > self.reg(offset::PORT0_K_MIN_BYTES)
    }

    fn count(&mut self, offset: u32) {
        let c = self.registers.entry(offset).or_insert(0);
        *c = c.wrapping_add(1);
    }

    /// One frame arriving on `port`: what the gateway emits and counts.
    /// Time-dependent decisions (LH-08, LH-09) are taken at the last clock
    /// the model was told, and source QPs learned from it (LH-01) apply at
    /// once; see [`GatewayModel::receive_at`].
    pub fn receive(&mut self, port: InPort, frame: &Frame) -> ModelOutput {
        self.receive_at(port, frame, None)
    }

    /// [`GatewayModel::receive`] with the clock of the frame's parsed
    /// header (`ParsedAt::cycle` of the bench): the second level decides
    /// `DECISION_DELAY` clocks later, and learned source QPs reach the flow
    /// table as in the RTL (`LearnQueue`). With learning on, frames of
    /// both inputs must come in the order of their header clocks, dc_rx
    /// first within a clock, as the RTL's learner takes them.
    pub fn receive_at(
        &mut self,
        port: InPort,
        frame: &Frame,
        header_clock: Option<u64>,
    ) -> ModelOutput {
        let decision_clock = header_clock.map(|c| c + crate::longhaul::DECISION_DELAY);
        let parsed = classify(&frame.data);
        let (rx, roce, non_roce, malformed, tx) = match port {
            InPort::DcRx => (
                offset::DC_RX_FRAMES,
                offset::DC_RX_ROCE_FRAMES,
                offset::DC_RX_NON_ROCE_FRAMES,
                offset::DC_RX_MALFORMED_FRAMES,
                offset::WAN_TX_FRAMES,
            ),
            InPort::WanRx => (
                offset::WAN_RX_FRAMES,
                offset::WAN_RX_ROCE_FRAMES,
                offset::WAN_RX_NON_ROCE_FRAMES,
                offset::WAN_RX_MALFORMED_FRAMES,
                offset::DC_TX_FRAMES,
            ),
        };
        self.count(rx);
        self.count(match parsed.class {
            FrameClass::Roce => roce,
            FrameClass::NonRoce => non_roce,
            FrameClass::Malformed => malformed,
        });
        // Frames are forwarded whatever they hold, malformed ones included
        // (they are only counted).
        let mut out = frame.clone();
        let markable = port == InPort::DcRx && crate::ecn::markable(&frame.data);
        // PE-03: a draw for every ECT(0)/ECT(1) frame while marking (or the
        // FCN-03 WAN node, which uses the same draws) is on.
        let mut pe = crate::pre_ecn::Mark::None;
        if markable && self.pe_drawing() {
            let clock = self.marker_clock.unwrap_or(self.lh_clock);
            let (p_ect1, p_ce) = self.pe_probabilities(clock);
            let drawn = crate::pre_ecn::mark(self.pe_lfsr.draw(), p_ect1, p_ce);
            let p = match drawn {
                crate::pre_ecn::Mark::Ce => p_ce,
                _ => p_ect1,
            };
            self.fcn.marked(
                &crate::fast_cnp::MarkedFrame::of(&frame.data),
                drawn,
                p,
                clock,
                &mut self.registers,
            );
            if self.pe_marking() {
                pe = drawn;
            }
            match pe {
                crate::pre_ecn::Mark::Ce => self.count(offset::PE_CE_MARKED),
                crate::pre_ecn::Mark::Ect1 => self.count(offset::PE_ECT1_MARKED),
                crate::pre_ecn::Mark::None => {}
            }
        }
        // LH-04 CE (counted alone), PE-03 CE, else PE-03 ECT(1).
        let marked = markable && self.above_k_min();
        if marked {
            self.count(offset::LH_CE_MARKED_FRAMES);
        }
        let ce = marked || pe == crate::pre_ecn::Mark::Ce;
        if ce {
            crate::ecn::set_ecn(&mut out.data, cngw_packet::Ecn::Ce);
        } else if pe == crate::pre_ecn::Mark::Ect1 {
            crate::ecn::set_ecn(&mut out.data, cngw_packet::Ecn::Ect1);
        }
        if port == InPort::DcRx {
            if let (Some(clock), Some(ecn)) = (
                self.marker_clock.take(),
                crate::ecn::marker_ecn(&frame.data),
            ) {
                self.lh.ecn_frame(clock, ce || ecn == cngw_packet::Ecn::Ce);
            }
        }
        if port == InPort::DcRx && parsed.class == FrameClass::Roce {
            // Learned source QPs enter the table on clocks without a look-up.
            self.issue_learning_before(header_clock);
            if let Some(t) = header_clock {
                self.learn_queue.data_clocks.insert(t);
            }
            let key = FlowKey::of_header(&parsed);
            let existed = self.flows.contains_key(&key);
            let flow = self.look_up_and_learn(&parsed);
            if flow.sqp.is_none() && is_psn_request(parsed.opcode) {
                self.psn_event(None, Some((key, parsed.psn)), header_clock);
            }
            let clock = match decision_clock {
                Some(c) => c,
                None => self.lh_clock,
            };
            // LH-06: the flow's and the port's bytes per observation window,
            // counted at the look-up (the header's clock).
            let bytes = frame.data.len().min(0xFFFF) as u32;
            let epoch = self.lh.window_request(
                clock.saturating_sub(crate::longhaul::DECISION_DELAY),
                bytes,
                &self.registers,
            );
            let w = self.windows.entry(key).or_insert(FlowWindow {
                epoch,
                ..Default::default()
            });
            w.count(epoch, bytes);
            let pkt = Packet {
                key,
                place: self.placement.location(&key).map(|l| l.label()),
                sqp: flow.sqp,
                src_mac: frame.data[6..12].try_into().unwrap(),
                pkey: parsed.pkey,
                window_bytes: w.bytes,
                rate_fell: w.fell,
                proxy: if parsed.vlan_id.is_none()
                    && crate::proxy_tx::enabled(self.registers.view())
                {
                    self.proxy_table
                        .lookup(key.sip)
                        .map(|(_, e)| std::net::Ipv6Addr::from(e.proxy))
                } else {
                    None
                },
            };
            self.lh_clock = clock;
            self.lh.decide(&pkt, clock, &mut self.registers);
            if self.flows.contains_key(&key) {
                let inserted = !existed;
                self.rate_advice(clock, key, inserted, flow.sqp, &frame.data, &parsed);
            }
            for job in self.lh.take_proxy_jobs() {
                self.proxy_tx.decided(
                    job.clock,
                    &frame.data,
                    &parsed,
                    job.proxy,
                    job.level,
                    &mut self.registers,
                );
            }
        }
        // RA-04: the egress law counts every RoCEv2 frame from wan_rx at
        // its header clock.
        if port == InPort::WanRx && parsed.class == FrameClass::Roce {
            if let Some(h) = header_clock {
                let k = h.saturating_sub(self.lh.reset_clock());
                self.ra_dc_bytes
                    .push((k, frame.data.len().min(0xFFFF) as u32));
            }
        }
        if port == InPort::WanRx {
            if let Some(ack) = PsnAck::of_header(&parsed) {
                self.psn_event(Some(ack), None, header_clock);
            }
        }
        self.learn(port, &frame.data, header_clock);
        // FCN-05: a Fast CNP to this ingress PE stops here.
        if port == InPort::WanRx {
            if let Some(msg) = crate::fcn_rx::claim(&frame.data, &self.registers) {
                self.count(offset::FCN_RX_RECEIVED);
                let clock = header_clock.unwrap_or(self.lh_clock) + crate::fcn_rx::DECISION_DELAY;
                if let Some(read) = self.fcn_rx.received(&msg, clock, &mut self.registers) {
                    // The read waits for its clock (frames given without
                    // clocks: read at once).
                    match header_clock {
                        Some(_) => self.learn_queue.fcn_reads.push_back(read),
                        None => self.answer_fcn_read(&read),
                    }
                }
                return ModelOutput {
                    parsed,
                    emitted: Vec::new(),
                };
            }
        }
        // PX-02: a CN message to this proxy stops here.
        if port == InPort::WanRx {
            if let Some(msg) = crate::proxy_rx::claim(&frame.data, &self.registers) {
                self.count(offset::PROXY_RX_RECEIVED);
                let clock = header_clock.unwrap_or(self.lh_clock);
                if let Some(read) = self.proxy_rx.received(&msg, clock, &mut self.registers) {
                    // The read waits for its clock (frames given without
                    // clocks: read at once).
                    match header_clock {
                        Some(_) => self.learn_queue.proxy_reads.push_back(read),
                        None => self.answer_proxy_read(&read),
                    }
                }
                return ModelOutput {
                    parsed,
                    emitted: Vec::new(),
                };
            }
        }
        // RA-04: a RoCEv2 frame to this (source) gateway stops here.
        if port == InPort::WanRx {
            if let Some(msg) = crate::rate_advice::remote_claim(&frame.data, self.registers.view())
            {
                let clock = header_clock.unwrap_or(self.lh_clock);
                let k = clock.saturating_sub(self.lh.reset_clock());
                let r = self.registers.view();
                let now_us = (k / r.reg(offset::CLOCKS_PER_US).max(1) as u64) as u32;
                let mut hit = false;
                for (n, (addr, control)) in [
                    (offset::RA_PEER0_ADDR_0, offset::RA_PEER0_CONTROL),
                    (offset::RA_PEER1_ADDR_0, offset::RA_PEER1_CONTROL),
                ]
                .into_iter()
                .enumerate()
                {
                    let r = self.registers.view();
                    if let Some((src, rate)) = msg {
                        if r.reg(control) & 1 != 0
                            && crate::longhaul::ipv6_registers(r, addr) == src
                        {
                            self.ra_peers[n].push((clock + 1, rate, now_us));
                            hit = true;
                        }
                    }
                }
                self.count(if hit {
                    offset::RA_REMOTE_RECEIVED
                } else {
                    offset::RA_REMOTE_REFUSED
                });
                return ModelOutput {
                    parsed,
                    emitted: Vec::new(),
                };
            }
        }
        // PE-02/PE-06: the egress PE decapsulates on the way to dc_tx.
        if port == InPort::WanRx
            && self.reg(offset::TUNNEL_CONTROL) & tunnel_control::EGRESS_PE != 0
        {
            let cfg = crate::tunnel_decap::DecapConfig {
                pe: crate::longhaul::gw_ipv6(&self.registers),
                dst_mac: crate::longhaul::mac_registers(
                    &self.registers,
                    offset::TUNNEL_DC_MAC_HI,
                    offset::TUNNEL_DC_MAC_LO,
                ),
                src_mac: crate::longhaul::gw_mac(&self.registers),
                table: if self.reg(offset::TUNNEL_CONTROL) & tunnel_control::OUTSIDE_DOMAIN != 0 {
                    crate::tunnel_ecn::DecapTable::Rfc6040
                } else {
                    crate::tunnel_ecn::DecapTable::PreEcn
                },
            };
            let d = crate::tunnel_decap::decapsulate_frame(&frame.data, &cfg);
            for (hit, off) in [
                (d.vxlan, offset::TUNNEL_DECAP_VXLAN),
                (d.srv6, offset::TUNNEL_DECAP_SRV6),
                (d.ecn_dropped, offset::TUNNEL_ECN_DROPS),
                (d.light, offset::TUNNEL_LIGHT_MARKS),
                (d.alarm, offset::TUNNEL_ECN_ALARMS),
                (d.runt, offset::TUNNEL_RUNT_DROPS),
            ] {
                if hit {
                    self.count(off);
                }
            }
            let Some(data) = d.frame else {
                return ModelOutput {
                    parsed,
                    emitted: Vec::new(),
                };
            };
            out = Frame {
                data,
                user: frame.user,
            };
        }
        // FCN-01/FCN-02/PE-01: the ingress PE encapsulates toward wan_tx,
        // the outer flow label the label of the frame's flow (its place,
        // given by this frame's own look-up), 0 for other frames.
        if port == InPort::DcRx
            && self.reg(offset::TUNNEL_CONTROL) & tunnel_control::INGRESS_PE != 0
        {
            use crate::tunnel_encap::{encapsulate_frame, EncapConfig, EncapFate, QUEUE_CUT_BYTES};
            if out.data.len() > QUEUE_CUT_BYTES {
                out.data.truncate(QUEUE_CUT_BYTES);
                out.user = true;
                self.count(offset::TUNNEL_OVERSIZE_CUTS);
            }
            let label = match parsed.class {
                FrameClass::Roce => self.flow_label(&FlowKey::of_header(&parsed)).unwrap_or(0),
                _ => 0,
            };
            let cfg = EncapConfig::of_registers(self.registers.view());
            let e = encapsulate_frame(&out.data, out.user, label, &cfg);
            if e.trimmed {
                self.count(offset::TUNNEL_TRIMMED);
            }
            if e.truncated {
                self.count(offset::TUNNEL_TRUNCATED);
            }
            match e.fate {
                EncapFate::Sent { bytes, user } => {
                    self.count(offset::TUNNEL_ENCAPSULATED);
                    out = Frame { data: bytes, user };
                }
                EncapFate::DroppedNotIp | EncapFate::DroppedMtu => {
                    self.count(if e.fate == EncapFate::DroppedMtu {
                        offset::TUNNEL_MTU_DROPS
                    } else {
                        offset::TUNNEL_NOT_IP_DROPS
                    });
                    return ModelOutput {
                        parsed,
                        emitted: Vec::new(),
                    };
                }
            }
        }
        self.count(tx);
        ModelOutput {
            parsed,
            emitted: vec![(port.forward_port(), out)],
        }
    }

    /// Every volatile register (counters and status) with its value.
    pub fn counters(&self) -> Vec<(&'static str, u32, u32)> {
        REGISTERS
            .iter()
            .filter(|r| r.volatile)
            .map(|r| (r.name, r.offset, self.registers[&r.offset]))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hw_02_features_off_forwards_every_frame_and_counts_it() {
        let mut m = GatewayModel::new();
        let out = m.receive(InPort::DcRx, &Frame::new(vec![0u8; 10]));
        assert_eq!(out.parsed.class, FrameClass::Malformed);
        assert_eq!(
            out.emitted,
            vec![(OutPort::WanTx, Frame::new(vec![0u8; 10]))]
        );
        assert_eq!(m.read_register(offset::DC_RX_MALFORMED_FRAMES), Some(1));
        assert_eq!(m.read_register(offset::WAN_TX_FRAMES), Some(1));
        assert!(m.write_register(offset::CONTROL, control::CLEAR_COUNTERS));
        assert_eq!(m.read_register(offset::WAN_TX_FRAMES), Some(0));
        assert!(!m.write_register(offset::ID, 0));
    }

    /// LH-01: with `LEARN_CONTROL.cm_enable`, a REQ/REP pair teaches both
    /// directions, and the forward binding reaches the flow table on the
    /// first clock after the REP without a data-path look-up: packets of
    /// the flow in clocks 21 and 22 miss it, the one in clock 24 has it.
    #[test]
    fn lh_01_learned_source_qps_wait_for_free_flow_table_clocks() {
        use cngw_packet::cm::{CmMad, CmMessage, CmRep, CmReq};
        use cngw_packet::{Envelope, IpPair, RoceFrameBuilder};
        use std::net::Ipv4Addr;
        let (a, b) = (Ipv4Addr::new(10, 1, 0, 1), Ipv4Addr::new(10, 2, 0, 1));
        let env =
            |s: Ipv4Addr, d: Ipv4Addr| Envelope::new(IpPair::new(s.into(), d.into()).unwrap());
        let mad = |e: &Envelope, message| {
            Frame::new(
                CmMad {
                    transaction_id: 1,
                    message,
                }
                .to_frame(e, 0, 0xC000)
                .to_bytes(),
            )
        };
        let req = mad(
            &env(a, b),
            CmMessage::Req(CmReq {
                local_comm_id: 0x100,
                service_id: 0,
                local_ca_guid: 0,
                local_qkey: 0,
                local_qpn: 0x11,
                starting_psn: 0,
                pkey: 0xFFFF,
            }),
        );
        let rep = mad(
            &env(b, a),
            CmMessage::Rep(CmRep {
                local_comm_id: 0x900,
                remote_comm_id: 0x100,
                local_qkey: 0,
                local_qpn: 0x21,
                starting_psn: 0,
                local_ca_guid: 0,
            }),
        );
        let data = Frame::new(RoceFrameBuilder::ipv4(a, b).dest_qp(0x21).build());
        let mut m = GatewayModel::new();
        m.receive_at(InPort::DcRx, &req, Some(10));
        m.receive_at(InPort::WanRx, &rep, Some(20));
        assert_eq!(m.flows().len(), 1, "learning is off after reset");
        assert!(m.write_register(offset::LEARN_CONTROL, learn_control::CM_ENABLE));
        m.receive_at(InPort::DcRx, &req, Some(30));
        m.receive_at(InPort::WanRx, &rep, Some(40));
        for clock in [41, 42] {
            m.receive_at(InPort::DcRx, &data, Some(clock));
        }
        assert_eq!(m.read_register(offset::FLOW_LEARNED), Some(0));
        m.receive_at(InPort::DcRx, &data, Some(44));
        let key = FlowKey::ipv4(a.octets(), b.octets(), 0x21);
        assert_eq!(m.flows()[&key].sqp, Some(0x11));
        // Look-ups without a source QP: the REQ's twice ({A, B, 1}) and
        // the data packets in clocks 41 and 42.
        assert_eq!(m.read_register(offset::FLOW_LOOKUPS_WITHOUT_SQP), Some(4));
        m.advance_to(100);
        assert_eq!(m.read_register(offset::FLOW_LEARNED), Some(2));
        assert_eq!(m.read_register(offset::LEARN_CM_BINDINGS), Some(2));
        assert_eq!(m.read_register(offset::LEARN_CM_REP_UNMATCHED), Some(0));
    }
}
