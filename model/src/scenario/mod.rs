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
//! first moment any sender's rate is cut (its DCQCN reacting to a CNP, or
//! its SmartNIC applying a Notify, Rate Reduce or Pause).
pub mod config;
pub mod dcqcn;
pub mod engine;
pub mod node;

pub use config::{
    Bottleneck, DcqcnParams, GatewayParams, Marking, Mode, PathParams, Position, Scenario,
    SenderSpec, SmartNicParams,
};
pub use dcqcn::ReactionPoint;
pub use engine::{run, run_with, RunResult, Sample, Summary};
pub use node::{LoopGateway, LoopNotification, ModelLoop, LOOP_START, MODEL_NOTIFY_LATENCY};
