//! Issue 8, item 2: a closed-loop scenario simulator. Senders with
//! DCQCN-style rate control, data-centre and WAN delays, one congested
//! queue, receivers that send CNPs, and (in the Long-haul CNP modes) the
//! gateway's behavioural model in the loop, deciding Long-haul CNPs.
//!
//! A discrete-event simulation in integer nanoseconds: deterministic (no
//! wall clock; the only randomness, RED marking, draws from a seeded
//! xorshift generator), pure Rust.
//!
//! ## Topology
//!
//! ```text
//!  sender i --dc_rtt/2--> near gateway --- WAN, one way wan_rtt/2 ---> far end --dc_rtt/2--> receiver i
//!     ^                     [queue if position = near]        [queue if position = far]          |
//!     +-------------------- CNP from receiver i: wan_rtt/2 + dc_rtt ----------------------------+
//! ```
//!
//! There is one queue, the congested port (rate `path.wan_rate_gbps`, a
//! byte FIFO of `bottleneck.buffer_bytes`, drops counted): at the near
//! gateway's WAN egress (`position = "near"`, the gateway sits in the
//! source data centre) or at the far end of the long-haul span
//! (`position = "far"`: the draft's N1, about half a WAN RTT from the
//! source, so that its "Source receives the Long-haul CNP within
//! approximately 5 ms (half RTT)"). Every other link is a pure delay:
//! faster than the congested port (a 400G data-centre fabric, the
//! long-haul span upstream of the port), so no other queue forms. Data
//! packets are fixed-size units of `path.mtu_bytes` on the wire.
//!
//! Delays (one way, propagation only):
//! - sender -> queue: `dc_rtt/2` (near) or `dc_rtt/2 + wan_rtt/2` (far);
//! - queue -> receiver: `wan_rtt/2 + dc_rtt/2` (near) or `dc_rtt/2` (far);
//! - receiver CNP -> sender: `wan_rtt/2 + dc_rtt` (both data centres and
//!   the WAN);
//! - gateway notification -> sender: the queue's node back to the sender,
//!   `dc_rtt/2` (near) or `wan_rtt/2 + dc_rtt/2` (far).
//!
//! ## Modes ([`Mode`])
//!
//! - `baseline`: the queue marks CE RED-like between K_min and K_max
//!   (probability rising linearly from 0 to `p_max`, 1 above K_max) at
//!   enqueue (or dequeue, `bottleneck.marking`); receivers send a CNP for a
//!   CE packet, at most one per flow per `dcqcn.cnp_interval_us` (DCQCN's
//!   notification point); the sender's DCQCN reaction point cuts.
//! - `longhaul`: the baseline plus the congestion-aware node at the queue:
//!   the real [`GatewayModel`](crate::GatewayModel) (LH-05..LH-09) sees
//!   every data packet that reaches the queue (a RoCEv2 frame built with
//!   `RoceFrameBuilder`, given to `receive_at` on dc_rx) and the queue depth
//!   (telemetry input, `set_queue_depth_at`, every
//!   `gateway.telemetry_interval_us`); its notifications
//!   (`take_notifications`) travel to the sender. The senders are legacy
//!   RNICs: the gateway sends them the standard CNP format (LH-15's choice
//!   for endpoints not configured for the RoCEv2 format), which their DCQCN
//!   takes as any CNP.
//! - `smartnic`: `longhaul`, with the gateway set to the Long-haul CNP
//!   RoCEv2 format (`LH_OPTIONS.ipv4_longhaul`) and a
//!   [`SourceNic`](crate::source_nic::SourceNic) (LH-16) in front of each
//!   sender: it validates and applies the Long-haul CNP (Rate Reduce 30 %
//!   by default, later Resume) and paces the sender's frames with its token
//!   bucket; the sender's own DCQCN still answers the receivers' CNPs. A
//!   frame leaves at the later of the DCQCN pacing time and the block's
//!   departure time.
//! - `near_source`: `longhaul` with the queue (and so the gateway that
//!   notices) at the near gateway in the source data centre, whatever
//!   `bottleneck.position` says: its notification travels `dc_rtt/2`.
//! - `fast_cnp` (draft-he-fcn-in-wan): two gateway models in the loop.
//!   The node at the queue is the congested WAN node (FCN-03/PE-04): every
//!   data packet takes a two-threshold draw (PE-03) on the average of the
//!   queue depth (T1, T2, Tmax and the average weight from `[pre_ecn]`),
//!   and a draw that says ECT(1) or CE asks for a Fast CNP to the packet's
//!   outer source, within the node's token bucket. The senders' frames
//!   reach it as the ingress PE model encapsulates them (VXLAN, the outer
//!   IPv6 flow label the flow's place in the PE's flow table, FCN-01/02:
//!   each sender's frame is put through the PE model once at the start).
//!   The Fast CNP travels from the node back to the ingress PE in the
//!   source data centre's gateway (`wan_rtt/2` for `far`, 0 for `near`),
//!   whose model (FCN-05/06) turns it into a standard CNP to the flow's
//!   sender (`dc_rtt/2` more). The node does not remark: the queue's RED
//!   marking stays as in the baseline.
//! - `two_threshold` (draft-hu-rtgwg-pre-ecn-wan): the same chain, the
//!   node now marking with its draws (PE-03): ECT(1) between T1 and T2
//!   (the early warning), CE from T2 (probability 1 at Tmax) instead of the
//!   queue's RED. The egress PE copies CE inward, not ECT(1) (PE-02), so
//!   receivers send CNPs for CE only. The ingress PE's shaper is on
//!   (PE-05, its reset values but the full rate = the fastest sender's
//!   line rate): a light Fast CNP (levels 1..3) cuts the named flow's rate
//!   at the tunnel entrance (`ShaperConfig::cut`; the first one takes a
//!   slot at the full rate), which recovers one step per quiet interval
//!   (`ShaperConfig::recover`) and is freed back at the full rate; a severe
//!   one becomes a standard CNP to the sender. The shaper is rendered at
//!   frame level (not clock by clock as `flow_shaper::FlowShaper`): a
//!   shaped flow's frames leave the PE one frame time at the shaped rate
//!   apart, and the sender is held back rather than its frames dropped (a
//!   lossless data centre); its token-bucket burst is left out. A sender's
//!   rate is then the lower of its DCQCN rate and its shaped rate; a
//!   shaper cut counts as a rate cut.
//! - `proxy` (draft-xiao-rtgwg-proxy-congestion-notification, PX-01..03):
//!   the node at the queue decides as in `longhaul`, but its prefix ->
//!   proxy table (one entry, every IPv4 sender) sends each notification as
//!   a CN message to the proxy gateway in the source data centre, whose
//!   model (PX-02) looks the flow up and sends the standard CNP: node ->
//!   proxy `wan_rtt/2`, proxy -> sender `dc_rtt/2`. No border filter, no
//!   buckets. The CN generator takes one message per 64 clocks
//!   (`proxy_tx::BUSY_CLOCKS`): when the node decides several flows'
//!   notifications within 64 clocks (the simulator's senders are in phase,
//!   so their frames reach the node together), only the first leaves and
//!   the others count in `PROXY_TX_BUSY`; `proxy` therefore tells fewer
//!   senders per round than `longhaul`.
//! - `rate_advice` (draft-zz-scone-rate-advice-rocev2, RA-01..RA-03): the
//!   node at the queue runs the explicit-rate law on its port (capacity
//!   the port's rate, d = `rate_advice.reaction_us`, default RTT_est,
//!   interval `rate_advice.interval_us`), every IPv4 sender capable, and
//!   sends a Rate Advice message when a flow's advice changes (at most one
//!   per `flow_spacing_us`); no Long-haul CNPs. The message travels as a
//!   gateway notification; the sender keeps its rate at or below the last
//!   advice (its DCQCN still answers the receivers' CNPs); an advice below
//!   the rate it sends at counts as a cut.
//!
//! The gateway decides on queue depth above K_max or on queue growth above
//! V_growth per `gateway.qgr_interval_us` (LH-05; the marking-rate trigger
//! is off): the growth trigger lets it answer a building queue long before
//! K_max.
//!
//! ## Metrics ([`Summary`])
//!
//! Congestion onset is the first time the queue holds more than
//! `bottleneck.onset_bytes`; the time to first rate cut is from onset to the
//! first moment any sender's rate is cut (its DCQCN reacting to a CNP, its
//! SmartNIC applying a Notify, Rate Reduce or Pause, the ingress PE's
//! shaper cutting its flow, or an advice below its rate). Peak queue and
//! drops are the queue's; WAN utilisation is the bytes that left the port
//! over its rate times the time from the first arrival to the end
//! ([`utilisation`]); fairness is Jain's index ([`jain_index`]) of the
//! senders' delivered throughput, each over its own sending time.
pub mod config;
pub mod dcqcn;
pub mod engine;
pub mod node;

pub use config::{
    Bottleneck, DcqcnParams, GatewayParams, Marking, Mode, PathParams, Position, PreEcnParams,
    Scenario, SenderSpec, SmartNicParams,
};
pub use dcqcn::ReactionPoint;
pub use engine::{jain_index, run, run_with, utilisation, RunResult, Sample, Summary};
pub use node::{LoopGateway, LoopNotification, ModelLoop, LOOP_START, MODEL_NOTIFY_LATENCY};
