//! `Gateway`: the cngw top level.
//!
//! ```text
//!  dc_rx  ->[skid]->+->[CE marker]-+------------------------------->[skid]-> wan_tx
//!                   |              +->[IngressQueue]->[FlowShaper]->[TunnelEncap]-^ (ingress PE)
//!                   +-> HeaderParser -> dc_hdr_*, counters
//!                   +-> CmSnoop -> CmLearner <- CmSnoop (wan_rx, below)
//!                         |            | LearnSqp (second)
//!                         | RoCEv2 headers (first), CSR flow command (last)
//!                         v            v
//!                   FlowTable (16K flows) -> LhController -> NotifyBuilder --+
//!                         ^ QD (QueueKb)                                       |
//!  wan_rx ->[skid]->+->[FrameFilter]-+---------------->[skid]----> FrameMux -> dc_tx
//!                   |                +->[TunnelDecap]-^ (egress PE)
//!                   +-> HeaderParser -> wan_hdr_*, counters      ^ drop
//!                   +-> CmSnoop                                  |
//!                   +-> FastCnpReceiver (claim) -----------------+-> FcnTranslator
//!                          (FCN-05: flow-table reads of labels, CNP jobs to the builder)
//!  s_axil_* <-> CsrBlock (BAR0)      qd_ext_* -> PORT0_QUEUE_DEPTH_BYTES
//! ```
//! Second level (LH-05..LH-09): every RoCEv2 frame from dc_rx looks up (and
//! inserts) its flow {SIP, DIP, DestQP}; five clocks later the flow-table
//! answer goes to `LhController`, which decides on a Long-haul CNP (or a
//! standard CNP) to the flow's sender; `NotifyBuilder` makes the frame and
//! `FrameMux` puts it between data frames on dc_tx. `FormatTable` (LH-15)
//! matches the sender's address against the `LH_FORMATn_*` prefixes while
//! the flow-table look-up is in flight; its answer reaches the controller
//! with the flow table's. The CSR reaches the
//! flow table through `FLOW_COMMAND` on clocks without a data request.
//! Fast CNPs (FCN-03, PE-04): the two-threshold draws the CE marker takes
//! (`TwoThreshold`) also feed `FastCnpSource`, whose jobs reach the
//! builder when the controller has none.
//! Fast CNP reception (FCN-05, `FCN_CONTROL.ingress_pe`): `FastCnpReceiver`
//! claims a Fast CNP to `GW_IPV6` at its first beat on wan_rx and
//! `FrameFilter` keeps it from dc_tx; `FcnTranslator` checks it, reads the
//! flow-table place its label names (after data and learning requests,
//! before the CSR) and hands the builder a standard CNP job (after Long-haul
//! jobs and the WAN node's Fast CNPs).
//! Tunnel roles (`TUNNEL_CONTROL`): the ingress PE (FCN-01, FCN-02,
//! PE-01) holds each dc_rx frame in `IngressQueue` until its look-up's
//! answer names its label (a `frame_pipe` bit follows every dc_rx header
//! through the five look-up clocks) and `TunnelEncap` puts it into the
//! VXLAN or SRv6 tunnel of the `TUNNEL_*` registers. Between the two,
//! `FlowShaper` (PE-05, `PE_SHAPER_CONTROL.enable`) slows the flows light
//! Fast CNPs (levels 1..3, which `FcnTranslator` then checks and hands
//! over instead of translating) name, and picks the alternate SRv6 path
//! (`TUNNEL_ALT_SID*`) for a flow its path flag moves; the egress PE (PE-02,
//! PE-06) decapsulates with `TunnelDecap`. Each is bypassed while its role
//! is off.
//! Source-QP learning (LH-01, `LEARN_CONTROL.cm_enable`): a `CmSnoop` on
//! each input recognises RDMA CM REQs and REPs; `CmLearner` pairs them and
//! writes both directions' source QPs with `LearnSqp` on clocks without a
//! data request (data first, then learning, then the CSR).
//! SCONE Rate Advice (RA-01..RA-04, `FEATURE_ENABLE.rate_advice`):
//! `RateLaw` runs RCP's law on the WAN port (RoCEv2 bytes from dc_rx, the
//! queue the controller sees) every `RA_INTERVAL_US`; `RateAdvisor` decides
//! at the controller's decision clock which capable senders get a Rate
//! Advice message (a builder job after all others). Remote mode
//! (`RA_REMOTE_CONTROL`): as WAN egress gateway a second `RateLaw` watches
//! the data-centre port (RoCEv2 bytes from wan_rx, `qd_dc_*`) and after
//! each interval the builder sends its advice to the peer gateways on
//! wan_tx (`wan_tx_mux`, after the data path); as source gateway
//! `RemoteAdviceReceiver` claims RoCEv2 frames to the gateway's address on
//! wan_rx and keeps the peers' advice, which caps the advisor's for flows
//! toward the prefixes behind them.
//! Every stream port is a 512-bit AXI4-Stream interface (`tdata tkeep tvalid
//! tready tlast tuser`); in Verilog the ports are `dc_rx$tdata` and so on, and
//! the `cngw_gateway` wrapper names them `dc_rx_tdata`. With every feature off (the state after reset) both
//! directions forward frames byte for byte, `tuser` included, at one beat
//! per clock with a latency of two clocks; the parsers only watch. Parsed
//! headers leave on `dc_hdr`/`wan_hdr` one clock after a frame's last beat
//! enters.
//! `reset` is synchronous and active high. It is registered once
//! (`reset_reg`) before it reaches any block, so it takes effect one clock
//! after the input rises and ends one clock after it falls: no input port
//! drives the blocks' reset logic combinationally (a fan-out of every
//! flip-flop, and logic Verilator would evaluate on every input change).

use crate::csr::{AxiLiteSlave, CsrBlock};
use crate::ecn::CeMarker;
use crate::fcn::{FastCnpReceiver, FastCnpSource, FcnTranslator};
use crate::flow::GatewayFlowTable;
use crate::learn::{CmEventSource, CmLearner, CmSnoop, PsnPairer};
use crate::lh::{FormatTable, LhController, QueueKb, QueueMeter, TimeOfDay};
use crate::notify::NotifyBuilder;
use crate::parser::HeaderParser;
use crate::pe::{FlowShaper, IngressQueue, TunnelDecap, TunnelEncap, TwoThreshold};
use crate::px::{CnGenerator, CnReceiver, ProxyTable, ProxyTranslator};
use crate::ra::{RateAdvisor, RateLaw, RemoteAdviceReceiver};
use crate::stats::FrameCounters;
use crate::stream::{AxisSink, AxisSource, FrameFilter, FrameMux, HeaderSource, SkidBuffer};
use cngw_regmap::{offset, REGISTERS};
use rust_hdl::prelude::*;

// The CSR block's ports are indexed like REGISTERS. `update` must use
// literal indices (rust-hdl turns them into port names); this checks them.
const _: () = {
    assert!(REGISTERS[4].offset == offset::FEATURE_ENABLE);
    assert!(REGISTERS[5].offset == offset::CONTROL);
    assert!(REGISTERS[7].offset == offset::PORT0_RTT_EST_US);
    assert!(REGISTERS[10].offset == offset::PORT0_K_MIN_BYTES);
    assert!(REGISTERS[11].offset == offset::PORT0_K_MAX_BYTES);
    assert!(REGISTERS[12].offset == offset::PORT0_QUEUE_DEPTH_BYTES);
    assert!(REGISTERS[13].offset == offset::PORT0_FLOW_INTERVAL_US);
    assert!(REGISTERS[14].offset == offset::CLOCKS_PER_US);
    assert!(REGISTERS[15].offset == offset::LH_BUCKET_REFILL_CLOCKS);
    assert!(REGISTERS[16].offset == offset::LH_BUCKET_DEPTH);
    assert!(REGISTERS[17].offset == offset::LH_OPTIONS);
    assert!(REGISTERS[18].offset == offset::LH_SEV0_ACTION);
    assert!(REGISTERS[19].offset == offset::LH_SEV1_THRESHOLD_BYTES);
    assert!(REGISTERS[20].offset == offset::LH_SEV1_ACTION);
    assert!(REGISTERS[21].offset == offset::LH_SEV2_THRESHOLD_BYTES);
    assert!(REGISTERS[22].offset == offset::LH_SEV2_ACTION);
    assert!(REGISTERS[23].offset == offset::LH_RESUME_ACTION);
    assert!(REGISTERS[24].offset == offset::NOTIFY_DSCP);
    assert!(REGISTERS[25].offset == offset::GW_MAC_HI);
    assert!(REGISTERS[26].offset == offset::GW_MAC_LO);
    assert!(REGISTERS[27].offset == offset::GW_IPV4);
    assert!(REGISTERS[28].offset == offset::GW_IPV6_0);
    assert!(REGISTERS[29].offset == offset::GW_IPV6_1);
    assert!(REGISTERS[30].offset == offset::GW_IPV6_2);
    assert!(REGISTERS[31].offset == offset::GW_IPV6_3);
    assert!(REGISTERS[32].offset == offset::DC_RX_FRAMES);
    assert!(REGISTERS[33].offset == offset::DC_RX_ROCE_FRAMES);
    assert!(REGISTERS[34].offset == offset::DC_RX_NON_ROCE_FRAMES);
    assert!(REGISTERS[35].offset == offset::DC_RX_MALFORMED_FRAMES);
    assert!(REGISTERS[36].offset == offset::WAN_TX_FRAMES);
    assert!(REGISTERS[37].offset == offset::WAN_RX_FRAMES);
    assert!(REGISTERS[38].offset == offset::WAN_RX_ROCE_FRAMES);
    assert!(REGISTERS[39].offset == offset::WAN_RX_NON_ROCE_FRAMES);
    assert!(REGISTERS[40].offset == offset::WAN_RX_MALFORMED_FRAMES);
    assert!(REGISTERS[41].offset == offset::DC_TX_FRAMES);
    assert!(REGISTERS[42].offset == offset::LH_CE_MARKED_FRAMES);
    assert!(REGISTERS[43].offset == offset::LH_CNP_SENT);
    assert!(REGISTERS[44].offset == offset::LH_RESUME_SENT);
    assert!(REGISTERS[45].offset == offset::LH_CNP_SUPPRESSED);
    assert!(REGISTERS[46].offset == offset::LH_CNP_RATE_LIMITED);
    assert!(REGISTERS[47].offset == offset::LH_CNP_TRACKER_FULL);
    assert!(REGISTERS[48].offset == offset::LH_CNP_NO_SQP);
    assert!(REGISTERS[49].offset == offset::NOTIFY_TX_FRAMES);
    assert!(REGISTERS[50].offset == offset::FLOW_SIP_0);
    assert!(REGISTERS[51].offset == offset::FLOW_SIP_1);
    assert!(REGISTERS[52].offset == offset::FLOW_SIP_2);
    assert!(REGISTERS[53].offset == offset::FLOW_SIP_3);
    assert!(REGISTERS[54].offset == offset::FLOW_DIP_0);
    assert!(REGISTERS[55].offset == offset::FLOW_DIP_1);
    assert!(REGISTERS[56].offset == offset::FLOW_DIP_2);
    assert!(REGISTERS[57].offset == offset::FLOW_DIP_3);
    assert!(REGISTERS[58].offset == offset::FLOW_DQP);
    assert!(REGISTERS[59].offset == offset::FLOW_SQP);
    assert!(REGISTERS[60].offset == offset::FLOW_COMMAND);
    assert!(REGISTERS[61].offset == offset::FLOW_STATUS);
    assert!(REGISTERS[62].offset == offset::FLOW_RESULT_SQP);
    assert!(REGISTERS[63].offset == offset::FLOW_OCCUPANCY);
    assert!(REGISTERS[64].offset == offset::FLOW_LEARNED);
    assert!(REGISTERS[65].offset == offset::FLOW_INSERT_FAILURES);
    assert!(REGISTERS[66].offset == offset::FLOW_LOOKUPS_WITHOUT_SQP);
    assert!(REGISTERS[67].offset == offset::FLOW_LOCATION);
    assert!(REGISTERS[68].offset == offset::FLOW_AGE_TIMEOUT_US);
    assert!(REGISTERS[69].offset == offset::FLOW_AGED);
    assert!(REGISTERS[70].offset == offset::FLOW_RESULT_SIP_0);
    assert!(REGISTERS[74].offset == offset::FLOW_RESULT_DIP_0);
    assert!(REGISTERS[78].offset == offset::FLOW_RESULT_DQP);
    assert!(REGISTERS[79].offset == offset::LH_ICMPV6_TYPE);
    assert!(REGISTERS[80].offset == offset::PORT0_QGR_INTERVAL_US);
    assert!(REGISTERS[81].offset == offset::PORT0_V_GROWTH_BYTES);
    assert!(REGISTERS[82].offset == offset::PORT0_QUEUE_GROWTH_BYTES);
    assert!(REGISTERS[83].offset == offset::LEARN_CONTROL);
    assert!(REGISTERS[84].offset == offset::LEARN_CM_BINDINGS);
    assert!(REGISTERS[85].offset == offset::LEARN_CM_REQ_EVICTIONS);
    assert!(REGISTERS[86].offset == offset::LEARN_CM_REP_UNMATCHED);
    assert!(REGISTERS[87].offset == offset::LEARN_QUEUE_DROPS);
    assert!(REGISTERS[154].offset == offset::LEARN_PSN_WINDOW);
    assert!(REGISTERS[155].offset == offset::LEARN_PSN_BINDINGS);
    assert!(REGISTERS[156].offset == offset::LEARN_PSN_AMBIGUOUS);
    assert!(REGISTERS[157].offset == offset::LEARN_PSN_EVICTIONS);
    assert!(REGISTERS[158].offset == offset::LEARN_PSN_QUEUE_DROPS);
    assert!(REGISTERS[159].offset == offset::PE_CONTROL);
    assert!(REGISTERS[160].offset == offset::PE_T1_BYTES);
    assert!(REGISTERS[161].offset == offset::PE_T2_BYTES);
    assert!(REGISTERS[162].offset == offset::PE_TMAX_BYTES);
    assert!(REGISTERS[163].offset == offset::PE_LFSR_SEED);
    assert!(REGISTERS[164].offset == offset::PE_ECT1_MARKED);
    assert!(REGISTERS[165].offset == offset::PE_CE_MARKED);
    assert!(REGISTERS[166].offset == offset::PE_P_ECT1);
    assert!(REGISTERS[167].offset == offset::PE_P_CE);
    assert!(REGISTERS[88].offset == offset::PORT0_METER_CONTROL);
    assert!(REGISTERS[89].offset == offset::PORT0_VQ_DRAIN_Q16);
    assert!(REGISTERS[90].offset == offset::PORT0_VQ_DEPTH_BYTES);
    assert!(REGISTERS[91].offset == offset::PORT0_AVG_WEIGHT_SHIFT);
    assert!(REGISTERS[92].offset == offset::PORT0_QUEUE_AVG_BYTES);
    assert!(REGISTERS[93].offset == offset::PORT0_EMR_WINDOW_US);
    assert!(REGISTERS[94].offset == offset::PORT0_V_ECN_Q16);
    assert!(REGISTERS[95].offset == offset::PORT0_EMR_Q16);
    assert!(REGISTERS[96].offset == offset::LH_FORMAT0_PREFIX_0);
    assert!(REGISTERS[97].offset == offset::LH_FORMAT0_PREFIX_1);
    assert!(REGISTERS[98].offset == offset::LH_FORMAT0_PREFIX_2);
    assert!(REGISTERS[99].offset == offset::LH_FORMAT0_PREFIX_3);
    assert!(REGISTERS[100].offset == offset::LH_FORMAT0_CONTROL);
    assert!(REGISTERS[101].offset == offset::LH_FORMAT1_PREFIX_0);
    assert!(REGISTERS[102].offset == offset::LH_FORMAT1_PREFIX_1);
    assert!(REGISTERS[103].offset == offset::LH_FORMAT1_PREFIX_2);
    assert!(REGISTERS[104].offset == offset::LH_FORMAT1_PREFIX_3);
    assert!(REGISTERS[105].offset == offset::LH_FORMAT1_CONTROL);
    assert!(REGISTERS[106].offset == offset::LH_FORMAT2_PREFIX_0);
    assert!(REGISTERS[107].offset == offset::LH_FORMAT2_PREFIX_1);
    assert!(REGISTERS[108].offset == offset::LH_FORMAT2_PREFIX_2);
    assert!(REGISTERS[109].offset == offset::LH_FORMAT2_PREFIX_3);
    assert!(REGISTERS[110].offset == offset::LH_FORMAT2_CONTROL);
    assert!(REGISTERS[111].offset == offset::LH_FORMAT3_PREFIX_0);
    assert!(REGISTERS[112].offset == offset::LH_FORMAT3_PREFIX_1);
    assert!(REGISTERS[113].offset == offset::LH_FORMAT3_PREFIX_2);
    assert!(REGISTERS[114].offset == offset::LH_FORMAT3_PREFIX_3);
    assert!(REGISTERS[115].offset == offset::LH_FORMAT3_CONTROL);
    assert!(REGISTERS[116].offset == offset::LH_FORMAT4_PREFIX_0);
    assert!(REGISTERS[117].offset == offset::LH_FORMAT4_PREFIX_1);
    assert!(REGISTERS[118].offset == offset::LH_FORMAT4_PREFIX_2);
    assert!(REGISTERS[119].offset == offset::LH_FORMAT4_PREFIX_3);
    assert!(REGISTERS[120].offset == offset::LH_FORMAT4_CONTROL);
    assert!(REGISTERS[121].offset == offset::LH_FORMAT5_PREFIX_0);
    assert!(REGISTERS[122].offset == offset::LH_FORMAT5_PREFIX_1);
    assert!(REGISTERS[123].offset == offset::LH_FORMAT5_PREFIX_2);
    assert!(REGISTERS[124].offset == offset::LH_FORMAT5_PREFIX_3);
    assert!(REGISTERS[125].offset == offset::LH_FORMAT5_CONTROL);
    assert!(REGISTERS[126].offset == offset::LH_FORMAT6_PREFIX_0);
    assert!(REGISTERS[127].offset == offset::LH_FORMAT6_PREFIX_1);
    assert!(REGISTERS[128].offset == offset::LH_FORMAT6_PREFIX_2);
    assert!(REGISTERS[129].offset == offset::LH_FORMAT6_PREFIX_3);
    assert!(REGISTERS[130].offset == offset::LH_FORMAT6_CONTROL);
    assert!(REGISTERS[131].offset == offset::LH_FORMAT7_PREFIX_0);
    assert!(REGISTERS[132].offset == offset::LH_FORMAT7_PREFIX_1);
    assert!(REGISTERS[133].offset == offset::LH_FORMAT7_PREFIX_2);
    assert!(REGISTERS[134].offset == offset::LH_FORMAT7_PREFIX_3);
    assert!(REGISTERS[135].offset == offset::LH_FORMAT7_CONTROL);
    assert!(REGISTERS[136].offset == offset::LH_EXT_CONTROL);
    assert!(REGISTERS[137].offset == offset::LH_EXT_DEVICE_ID_0);
    assert!(REGISTERS[138].offset == offset::LH_EXT_DEVICE_ID_1);
    assert!(REGISTERS[139].offset == offset::LH_EXT_DEVICE_ID_2);
    assert!(REGISTERS[140].offset == offset::LH_EXT_DEVICE_ID_3);
    assert!(REGISTERS[141].offset == offset::LH_EXT_PATH_ID_0);
    assert!(REGISTERS[142].offset == offset::LH_EXT_PATH_ID_1);
    assert!(REGISTERS[143].offset == offset::LH_TOD_INCREMENT);
    assert!(REGISTERS[144].offset == offset::LH_TOD_BASE_SECONDS);
    assert!(REGISTERS[145].offset == offset::LH_TOD_BASE_FRACTION);
    assert!(REGISTERS[146].offset == offset::LH_TOD_CONTROL);
    assert!(REGISTERS[147].offset == offset::LH_TOD_UPTIME_SECONDS);
    assert!(REGISTERS[148].offset == offset::LH_TOD_UPTIME_FRACTION);
    assert!(REGISTERS[149].offset == offset::LH_OBS_WINDOW_US);
    assert!(REGISTERS[150].offset == offset::LH_TOP_SHARE_Q8);
    assert!(REGISTERS[151].offset == offset::LH_CNP_NOT_TOP);
    assert!(REGISTERS[152].offset == offset::LH_PORT_WINDOW_BYTES);
    assert!(REGISTERS[153].offset == offset::LH_CNP_DEFERRED);
    assert!(REGISTERS[168].offset == offset::FCN_CONTROL);
    assert!(REGISTERS[169].offset == offset::FCN_UDP_PORT);
    assert!(REGISTERS[170].offset == offset::FCN_BUCKET_REFILL_CLOCKS);
    assert!(REGISTERS[171].offset == offset::FCN_BUCKET_DEPTH);
    assert!(REGISTERS[172].offset == offset::FCN_SENT);
    assert!(REGISTERS[173].offset == offset::FCN_RATE_LIMITED);
    assert!(REGISTERS[174].offset == offset::FCN_NO_LABEL);
    assert!(REGISTERS[175].offset == offset::FCN_QUEUE_DROPS);
    assert!(REGISTERS[176].offset == offset::FCN_RX_DOM0_PREFIX_0);
    assert!(REGISTERS[180].offset == offset::FCN_RX_DOM0_CONTROL);
    assert!(REGISTERS[181].offset == offset::FCN_RX_DOM1_PREFIX_0);
    assert!(REGISTERS[185].offset == offset::FCN_RX_DOM1_CONTROL);
    assert!(REGISTERS[186].offset == offset::FCN_RX_BUCKET_REFILL_CLOCKS);
    assert!(REGISTERS[187].offset == offset::FCN_RX_BUCKET_DEPTH);
    assert!(REGISTERS[188].offset == offset::FCN_CNP_MAC_HI);
    assert!(REGISTERS[189].offset == offset::FCN_CNP_MAC_LO);
    assert!(REGISTERS[190].offset == offset::FCN_RX_RECEIVED);
    assert!(REGISTERS[191].offset == offset::FCN_RX_CNP_SENT);
    assert!(REGISTERS[192].offset == offset::FCN_RX_MALFORMED);
    assert!(REGISTERS[193].offset == offset::FCN_RX_OUT_OF_DOMAIN);
    assert!(REGISTERS[194].offset == offset::FCN_RX_UNKNOWN_LABEL);
    assert!(REGISTERS[195].offset == offset::FCN_RX_RATE_LIMITED);
    assert!(REGISTERS[196].offset == offset::FCN_RX_QUEUE_DROPS);
    assert!(REGISTERS[197].offset == offset::FCN_RX_NO_SQP);
    assert!(REGISTERS[198].offset == offset::TUNNEL_CONTROL);
    assert!(REGISTERS[199].offset == offset::TUNNEL_DC_MAC_HI);
    assert!(REGISTERS[200].offset == offset::TUNNEL_DC_MAC_LO);
    assert!(REGISTERS[201].offset == offset::TUNNEL_DECAP_VXLAN);
    assert!(REGISTERS[202].offset == offset::TUNNEL_DECAP_SRV6);
    assert!(REGISTERS[203].offset == offset::TUNNEL_ECN_DROPS);
    assert!(REGISTERS[204].offset == offset::TUNNEL_LIGHT_MARKS);
    assert!(REGISTERS[205].offset == offset::TUNNEL_ECN_ALARMS);
    assert!(REGISTERS[206].offset == offset::TUNNEL_RUNT_DROPS);
    assert!(REGISTERS[207].offset == offset::TUNNEL_NEXT_HOP_MAC_HI);
    assert!(REGISTERS[208].offset == offset::TUNNEL_NEXT_HOP_MAC_LO);
    assert!(REGISTERS[209].offset == offset::TUNNEL_REMOTE_0);
    assert!(REGISTERS[210].offset == offset::TUNNEL_REMOTE_1);
    assert!(REGISTERS[211].offset == offset::TUNNEL_REMOTE_2);
    assert!(REGISTERS[212].offset == offset::TUNNEL_REMOTE_3);
    assert!(REGISTERS[213].offset == offset::TUNNEL_VNI);
    assert!(REGISTERS[214].offset == offset::TUNNEL_UDP_SPORT);
    assert!(REGISTERS[215].offset == offset::TUNNEL_HOP_LIMIT);
    assert!(REGISTERS[216].offset == offset::TUNNEL_WAN_MTU);
    assert!(REGISTERS[217].offset == offset::TUNNEL_SID0_0);
    assert!(REGISTERS[218].offset == offset::TUNNEL_SID0_1);
    assert!(REGISTERS[219].offset == offset::TUNNEL_SID0_2);
    assert!(REGISTERS[220].offset == offset::TUNNEL_SID0_3);
    assert!(REGISTERS[221].offset == offset::TUNNEL_SID1_0);
    assert!(REGISTERS[222].offset == offset::TUNNEL_SID1_1);
    assert!(REGISTERS[223].offset == offset::TUNNEL_SID1_2);
    assert!(REGISTERS[224].offset == offset::TUNNEL_SID1_3);
    assert!(REGISTERS[225].offset == offset::TUNNEL_ENCAPSULATED);
    assert!(REGISTERS[226].offset == offset::TUNNEL_NOT_IP_DROPS);
    assert!(REGISTERS[227].offset == offset::TUNNEL_MTU_DROPS);
    assert!(REGISTERS[228].offset == offset::TUNNEL_TRIMMED);
    assert!(REGISTERS[229].offset == offset::TUNNEL_TRUNCATED);
    assert!(REGISTERS[230].offset == offset::TUNNEL_OVERSIZE_CUTS);
    assert!(REGISTERS[231].offset == offset::TUNNEL_ALT_SID0_0);
    assert!(REGISTERS[235].offset == offset::TUNNEL_ALT_SID1_0);
    assert!(REGISTERS[238].offset == offset::TUNNEL_ALT_SID1_3);
    assert!(REGISTERS[239].offset == offset::PE_SHAPER_CONTROL);
    assert!(REGISTERS[240].offset == offset::PE_SHAPER_RATE);
    assert!(REGISTERS[241].offset == offset::PE_SHAPER_RECOVER);
    assert!(REGISTERS[242].offset == offset::PE_SHAPER_BURST);
    assert!(REGISTERS[243].offset == offset::PE_SHAPER_ALT);
    assert!(REGISTERS[244].offset == offset::PE_SHAPER_PROBE_SLOT);
    assert!(REGISTERS[245].offset == offset::PE_SHAPER_PROBE_STATE);
    assert!(REGISTERS[246].offset == offset::PE_SHAPER_PROBE_LABEL);
    assert!(REGISTERS[247].offset == offset::PE_SHAPER_PROBE_TOKENS);
    assert!(REGISTERS[248].offset == offset::PE_SHAPER_SHAPED_FRAMES);
    assert!(REGISTERS[249].offset == offset::PE_SHAPER_NOTES_TAKEN);
    assert!(REGISTERS[250].offset == offset::PE_SHAPER_NOTES_DROPPED);
    assert!(REGISTERS[251].offset == offset::PE_SHAPER_REROUTES);
    assert!(REGISTERS[252].offset == offset::PE_SHAPER_RETURNS);
    assert!(REGISTERS[253].offset == offset::PROXY_CONTROL);
    assert!(REGISTERS[254].offset == offset::PROXY_UDP_PORT);
    assert!(REGISTERS[255].offset == offset::PROXY_RX_BUCKET_REFILL_CLOCKS);
    assert!(REGISTERS[256].offset == offset::PROXY_RX_BUCKET_DEPTH);
    assert!(REGISTERS[257].offset == offset::PROXY_RX_RECEIVED);
    assert!(REGISTERS[258].offset == offset::PROXY_RX_BUSY);
    assert!(REGISTERS[259].offset == offset::PROXY_RX_CNP_SENT);
    assert!(REGISTERS[260].offset == offset::PROXY_RX_MALFORMED);
    assert!(REGISTERS[261].offset == offset::PROXY_RX_OUT_OF_DOMAIN);
    assert!(REGISTERS[262].offset == offset::PROXY_RX_NOT_ROCE);
    assert!(REGISTERS[263].offset == offset::PROXY_RX_NO_BTH);
    assert!(REGISTERS[264].offset == offset::PROXY_RX_MISMATCH);
    assert!(REGISTERS[265].offset == offset::PROXY_RX_RATE_LIMITED);
    assert!(REGISTERS[266].offset == offset::PROXY_RX_QUEUE_DROPS);
    assert!(REGISTERS[267].offset == offset::PROXY_RX_UNKNOWN_FLOW);
    assert!(REGISTERS[268].offset == offset::PROXY_RX_NO_SQP);
    assert!(REGISTERS[269].offset == offset::PROXY_ENTRY_PREFIX_0);
    assert!(REGISTERS[270].offset == offset::PROXY_ENTRY_PREFIX_1);
    assert!(REGISTERS[271].offset == offset::PROXY_ENTRY_PREFIX_2);
    assert!(REGISTERS[272].offset == offset::PROXY_ENTRY_PREFIX_3);
    assert!(REGISTERS[273].offset == offset::PROXY_ENTRY_ADDR_0);
    assert!(REGISTERS[274].offset == offset::PROXY_ENTRY_ADDR_1);
    assert!(REGISTERS[275].offset == offset::PROXY_ENTRY_ADDR_2);
    assert!(REGISTERS[276].offset == offset::PROXY_ENTRY_ADDR_3);
    assert!(REGISTERS[277].offset == offset::PROXY_ENTRY_CONTROL);
    assert!(REGISTERS[278].offset == offset::PROXY_ENTRY_INDEX);
    assert!(REGISTERS[279].offset == offset::PROXY_ENTRY_COMMAND);
    assert!(REGISTERS[280].offset == offset::PROXY_ENTRY_READ_PREFIX_0);
    assert!(REGISTERS[281].offset == offset::PROXY_ENTRY_READ_PREFIX_1);
    assert!(REGISTERS[282].offset == offset::PROXY_ENTRY_READ_PREFIX_2);
    assert!(REGISTERS[283].offset == offset::PROXY_ENTRY_READ_PREFIX_3);
    assert!(REGISTERS[284].offset == offset::PROXY_ENTRY_READ_ADDR_0);
    assert!(REGISTERS[285].offset == offset::PROXY_ENTRY_READ_ADDR_1);
    assert!(REGISTERS[286].offset == offset::PROXY_ENTRY_READ_ADDR_2);
    assert!(REGISTERS[287].offset == offset::PROXY_ENTRY_READ_ADDR_3);
    assert!(REGISTERS[288].offset == offset::PROXY_ENTRY_READ_STATE);
    assert!(REGISTERS[289].offset == offset::PROXY_LOOKUP_ADDR_0);
    assert!(REGISTERS[290].offset == offset::PROXY_LOOKUP_ADDR_1);
    assert!(REGISTERS[291].offset == offset::PROXY_LOOKUP_ADDR_2);
    assert!(REGISTERS[292].offset == offset::PROXY_LOOKUP_ADDR_3);
    assert!(REGISTERS[293].offset == offset::PROXY_LOOKUP_RESULT);
    assert!(REGISTERS[294].offset == offset::PROXY_TX_BUCKET_REFILL_CLOCKS);
    assert!(REGISTERS[295].offset == offset::PROXY_TX_BUCKET_DEPTH);
    assert!(REGISTERS[296].offset == offset::PROXY_TX_SENT);
    assert!(REGISTERS[297].offset == offset::PROXY_TX_OUT_OF_DOMAIN);
    assert!(REGISTERS[298].offset == offset::PROXY_TX_BUSY);
    assert!(REGISTERS[299].offset == offset::PROXY_TX_RATE_LIMITED);
    assert!(REGISTERS[300].offset == offset::PROXY_TX_QUEUE_DROPS);
    assert!(REGISTERS[301].offset == offset::RA_CONTROL);
    assert!(REGISTERS[302].offset == offset::RA_OPCODE);
    assert!(REGISTERS[303].offset == offset::RA_CAPACITY_BYTES_PER_US);
    assert!(REGISTERS[304].offset == offset::RA_INTERVAL_US);
    assert!(REGISTERS[305].offset == offset::RA_GAINS_Q8);
    assert!(REGISTERS[306].offset == offset::RA_T_OVER_D_Q16);
    assert!(REGISTERS[307].offset == offset::RA_INV_DC_Q32);
    assert!(REGISTERS[308].offset == offset::RA_MIN_MBPS);
    assert!(REGISTERS[309].offset == offset::RA_FLOW_SPACING_US);
    assert!(REGISTERS[310].offset == offset::RA_PORT_RATE_MBPS);
    assert!(REGISTERS[311].offset == offset::RA_SENT);
    assert!(REGISTERS[312].offset == offset::RA_HELD);
    assert!(REGISTERS[313].offset == offset::RA_NO_SQP);
    assert!(REGISTERS[314].offset == offset::RA_QUEUE_DROPS);
    assert!(REGISTERS[315].offset == offset::RA_CAP0_PREFIX_0);
    assert!(REGISTERS[319].offset == offset::RA_CAP0_CONTROL);
    assert!(REGISTERS[320].offset == offset::RA_CAP1_PREFIX_0);
    assert!(REGISTERS[324].offset == offset::RA_CAP1_CONTROL);
    assert!(REGISTERS[325].offset == offset::RA_POLICY0_PREFIX_0);
    assert!(REGISTERS[329].offset == offset::RA_POLICY0_CONTROL);
    assert!(REGISTERS[330].offset == offset::RA_POLICY0_MBPS);
    assert!(REGISTERS[331].offset == offset::RA_POLICY1_PREFIX_0);
    assert!(REGISTERS[335].offset == offset::RA_POLICY1_CONTROL);
    assert!(REGISTERS[336].offset == offset::RA_POLICY1_MBPS);
    assert!(REGISTERS[337].offset == offset::RA_REMOTE_CONTROL);
    assert!(REGISTERS[338].offset == offset::RA_DC_CAPACITY_BYTES_PER_US);
    assert!(REGISTERS[339].offset == offset::RA_DC_INV_DC_Q32);
    assert!(REGISTERS[340].offset == offset::RA_DC_PORT_RATE_MBPS);
    assert!(REGISTERS[341].offset == offset::RA_REMOTE_TIMEOUT_US);
    assert!(REGISTERS[342].offset == offset::RA_REMOTE_SENT);
    assert!(REGISTERS[343].offset == offset::RA_REMOTE_RECEIVED);
    assert!(REGISTERS[344].offset == offset::RA_REMOTE_REFUSED);
    assert!(REGISTERS[345].offset == offset::RA_PEER0_ADDR_0);
    assert!(REGISTERS[349].offset == offset::RA_PEER0_PREFIX_0);
    assert!(REGISTERS[353].offset == offset::RA_PEER0_CONTROL);
    assert!(REGISTERS[354].offset == offset::RA_PEER0_MBPS);
    assert!(REGISTERS[355].offset == offset::RA_PEER1_ADDR_0);
    assert!(REGISTERS[359].offset == offset::RA_PEER1_PREFIX_0);
    assert!(REGISTERS[363].offset == offset::RA_PEER1_CONTROL);
    assert!(REGISTERS[364].offset == offset::RA_PEER1_MBPS);
    assert!(REGISTERS.len() == 365);
};
// `rs_wait` (8 bits) counts `LAW_CLOCKS + 1` after an interval's end.
const _: () = assert!(crate::ra::LAW_CLOCKS + 1 < 256);

#[derive(LogicBlock)]
pub struct Gateway {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// From the data-center side.
    pub dc_rx: AxisSink,
    /// Toward the WAN.
    pub wan_tx: AxisSource,
    /// From the WAN.
    pub wan_rx: AxisSink,
    /// Toward the data-center side.
    pub dc_tx: AxisSource,
    /// CSR slave behind PCIe BAR0.
    pub s_axil: AxiLiteSlave,
    /// External queue-depth telemetry for WAN port 0 (deep buffers outside the core).
    pub qd_ext_bytes: Signal<In, Bits<32>>,
    pub qd_ext_valid: Signal<In, Bit>,
    /// External queue-depth telemetry for the data-centre port (toward
    /// dc_tx): the depth RA-04's egress law sees.
    pub qd_dc_bytes: Signal<In, Bits<32>>,
    pub qd_dc_valid: Signal<In, Bit>,
    /// Parsed headers of frames from dc_rx.
    pub dc_hdr: HeaderSource,
    /// Parsed headers of frames from wan_rx.
    pub wan_hdr: HeaderSource,
    dc_in: SkidBuffer,
    dc_out: SkidBuffer,
    ce_marker: CeMarker,
    wan_in: SkidBuffer,
    wan_out: SkidBuffer,
    dc_parser: HeaderParser,
    wan_parser: HeaderParser,
    dc_counters: FrameCounters,
    wan_counters: FrameCounters,
    // Source-QP learning (LH-01): CM REQ/REP snooping on both inputs.
    dc_snoop: CmSnoop,
    wan_snoop: CmSnoop,
    learner: CmLearner,
    /// LH-01 PSN pairing: dc_rx requests of flows without a source QP,
    /// wan_rx acknowledgements.
    psn_pairer: PsnPairer,
    /// PSN [23:0] and "a request to track" [24] of each flow-table request
    /// in flight (five clocks, beside `pipe`).
    psn_pipe: Vec<DFF<Bits<25>>>,
    psn_pipe_in: Signal<Local, Bits<25>>,
    dc_psn_request: Signal<Local, Bit>,
    wan_psn_ack: Signal<Local, Bit>,
    psn_learn_req: Signal<Local, Bit>,
    csr: CsrBlock,
    queue_depth: DFF<Bits<32>>,
    /// LH-04 condition, registered: marking enabled and QD > K_min.
    above_k_min: DFF<Bit>,
    ce_marked_count: DFF<Bits<32>>,
    /// PE-03: two-threshold marking probabilities and draws.
    two_threshold: TwoThreshold,
    pe_marking: Signal<Local, Bit>,
    pe_ect1_count: DFF<Bits<32>>,
    pe_ce_count: DFF<Bits<32>>,
    /// FCN-03/PE-04: the congested WAN node's Fast CNPs, from the draws.
    fcn: FastCnpSource,
    fcn_wan: Signal<Local, Bit>,
    fcn_light: Signal<Local, Bit>,
    fcn_severe: Signal<Local, Bit>,
    fcn_bucket_depth: Signal<Local, Bits<4>>,
    /// FCN-05: the ingress PE's Fast CNP recogniser on wan_rx, the filter
    /// that keeps the Fast CNPs it claims from dc_tx, and the translation
    /// into standard CNPs (a flow-table read of the label's place).
    fcn_rx: FastCnpReceiver,
    wan_filter: FrameFilter,
    fcn_tr: FcnTranslator,
    fcn_ingress: Signal<Local, Bit>,
    fcn_rx_depth: Signal<Local, Bits<4>>,
    fcn_req: Signal<Local, Bit>,
    fcn_rx_count: DFF<Bits<32>>,
    /// PX-02/PX-04: the proxy's CN message recogniser on wan_rx (its
    /// claims go to the same frame filter), the translation into standard
    /// CNPs (a flow-table look-up of the flow the message names), the
    /// received and busy counters.
    proxy_rx: CnReceiver,
    proxy_tr: ProxyTranslator,
    proxy_on: Signal<Local, Bit>,
    proxy_req: Signal<Local, Bit>,
    proxy_depth: Signal<Local, Bits<4>>,
    proxy_rx_count: DFF<Bits<32>>,
    proxy_busy_count: DFF<Bits<32>>,
    /// PX-03: the prefix -> proxy table.
    proxy_table: ProxyTable,
    /// PX-01: CN messages to the senders' proxies, merged into dc_tx.
    cn_gen: CnGenerator,
    cn_mux: FrameMux,
    px_depth: Signal<Local, Bits<4>>,
    /// FCN_RX_DOMn_PREFIX_0..3 and FCN_CNP_MAC_HI/LO in lane order.
    dom_lanes: Vec<Signal<Local, Bits<32>>>,
    fcn_cnp_mac: Signal<Local, Bits<48>>,
    /// PE-02/PE-06: the egress PE's decapsulation between the frame filter
    /// and wan_out (bypassed unless `TUNNEL_CONTROL.egress_pe`), its
    /// counters (VXLAN, SRv6, ECN drops, light marks, alarms, runts).
    decap: TunnelDecap,
    egress: Signal<Local, Bit>,
    decap_counts: Vec<DFF<Bits<32>>>,
    tunnel_lanes: Vec<Signal<Local, Bits<32>>>,
    /// FCN-01/FCN-02/PE-01: the ingress PE's store-and-forward queue and
    /// encapsulation between the CE marker and dc_out (bypassed unless
    /// `TUNNEL_CONTROL.ingress_pe`); "a dc_rx frame's header" through the
    /// five look-up clocks; its label; the tunnel registers in lane order
    /// (next-hop MAC, remote PE, SID0, SID1); the counters (encapsulated,
    /// not IP, MTU, trimmed, truncated, cut).
    ingress_q: IngressQueue,
    /// PE-05: the per-flow shaper between queue and encapsulation; light
    /// Fast CNPs handed to it; the probed slot's state word and tokens
    /// (sign-extended).
    shaper: FlowShaper,
    light_local: Signal<Local, Bit>,
    probe_state: Signal<Local, Bits<32>>,
    probe_label: Signal<Local, Bits<32>>,
    probe_tokens: Signal<Local, Bits<32>>,
    encap: TunnelEncap,
    ingress: Signal<Local, Bit>,
    dc_mid_ready: Signal<Local, Bit>,
    frame_pipe: Vec<DFF<Bit>>,
    flow_label: Signal<Local, Bits<20>>,
    encap_counts: Vec<DFF<Bits<32>>>,
    tun_lanes: Vec<Signal<Local, Bits<32>>>,
    // Second level.
    flow_table: GatewayFlowTable,
    queue_kb: QueueKb,
    /// LH-02: virtual egress queue, average queue, ECN marking rate.
    meter: QueueMeter,
    /// The depth the telemetry input last reported.
    ext_depth: DFF<Bits<32>>,
    /// LH-06: bytes of the frame entering dc_rx so far, and of the last
    /// complete one (what its parsed header is looked up with).
    dc_acc: DFF<Bits<17>>,
    dc_frame_bytes: DFF<Bits<16>>,
    dc_keep_count: Signal<Local, Bits<7>>,
    dc_acc_sum: Signal<Local, Bits<18>>,
    /// LH-06 observation windows: microseconds into the window, its number
    /// (the flow table's epoch), the port's RoCEv2 bytes in this window and
    /// the last, and the top-contributor threshold (a serial product).
    obs_us: DFF<Bits<32>>,
    obs_epoch: DFF<Bits<8>>,
    obs_end: Signal<Local, Bit>,
    port_bytes: DFF<Bits<32>>,
    port_sum: Signal<Local, Bits<33>>,
    port_prev: DFF<Bits<32>>,
    mul_busy: DFF<Bit>,
    mul_step: DFF<Bits<4>>,
    mul_acc: DFF<Bits<40>>,
    mul_share: DFF<Bits<8>>,
    mul_next: Signal<Local, Bits<40>>,
    top_threshold: DFF<Bits<32>>,
    lh: LhController,
    /// LH-15: which format each sender accepts.
    formats: FormatTable,
    builder: NotifyBuilder,
    dc_tx_mux: FrameMux,
    /// Microsecond time base.
    us_div: DFF<Bits<32>>,
    now_us: DFF<Bits<32>>,
    /// Flow-table requests in flight (five clocks): SIP [127:0], source MAC
    /// [175:128], P_Key [191:176], IPv6 [192], data request [193], CSR
    /// request [194], Fast CNP translation read [195].
    /// `reset`, registered (see the module documentation).
    reset_reg: DFF<Bit>,
    pipe: Vec<DFF<Bits<199>>>,
    cmd_pending: DFF<Bit>,
    cmd_op: DFF<Bits<3>>,
    flow_status: DFF<Bits<32>>,
    flow_result_sqp: DFF<Bits<32>>,
    flow_result_key: DFF<Bits<280>>,
    result_words: Vec<Signal<Local, Bits<32>>>,
    result_swapped: Vec<Signal<Local, Bits<32>>>,
    notify_count: DFF<Bits<32>>,
    /// LH-02 queue growth: microseconds into the interval, the depth at the
    /// last two interval ends, the growth between them, V_growth exceeded.
    qgr_us: DFF<Bits<32>>,
    qgr_sample: DFF<Bits<32>>,
    qgr_samples: DFF<Bits<2>>,
    qgr_growth: DFF<Bits<32>>,
    qgr_high: DFF<Bit>,
    us_tick: Signal<Local, Bit>,
    data_req: Signal<Local, Bit>,
    learn_req: Signal<Local, Bit>,
    csr_req: Signal<Local, Bit>,
    status_word: Signal<Local, Bits<32>>,
    csr_sip: Signal<Local, Bits<128>>,
    csr_dip: Signal<Local, Bits<128>>,
    pipe_in: Signal<Local, Bits<199>>,
    location: Signal<Local, Bits<16>>,
    bucket_depth: Signal<Local, Bits<4>>,
    gw_mac: Signal<Local, Bits<48>>,
    gw_ipv4: Signal<Local, Bits<128>>,
    gw_ipv6: Signal<Local, Bits<128>>,
    word_lanes: Vec<Signal<Local, Bits<32>>>,
    /// Time of day (LH-12/LH-13 timestamp object).
    tod: TimeOfDay,
    /// Extension identifiers: register words in lane order.
    ext_lanes: Vec<Signal<Local, Bits<32>>>,
    ext_device_id: Signal<Local, Bits<128>>,
    ext_path_id: Signal<Local, Bits<64>>,
    /// RA-01..RA-03: the port's advised rate (per RA_INTERVAL_US: its
    /// RoCEv2 bytes toward the WAN, the queue), the per-flow decision.
    ra_law: RateLaw,
    advisor: RateAdvisor,
    ra_us: DFF<Bits<32>>,
    ra_bytes: DFF<Bits<32>>,
    ra_sum: Signal<Local, Bits<33>>,
    ra_end: Signal<Local, Bit>,
    /// RA_CAPn / RA_POLICYn prefix words in lane order.
    ra_lanes: Vec<Signal<Local, Bits<32>>>,
    /// RA-04 remote mode. Egress role: the data-centre port's law (RoCEv2
    /// bytes from wan_rx per interval, the `qd_dc_*` depth), its advice to
    /// the peers after each interval (`rs_*`, jobs for the builder), the
    /// builder's wan_tx frames merged into wan_tx. Source role: the peers'
    /// advice from wan_rx (`ra_rx`).
    ra_law_dc: RateLaw,
    ra_rx: RemoteAdviceReceiver,
    wan_tx_mux: FrameMux,
    dc_depth: DFF<Bits<32>>,
    wan_acc: DFF<Bits<17>>,
    wan_frame_bytes: DFF<Bits<16>>,
    wan_keep_count: Signal<Local, Bits<7>>,
    wan_acc_sum: Signal<Local, Bits<18>>,
    ra_dc_bytes: DFF<Bits<32>>,
    ra_dc_sum: Signal<Local, Bits<33>>,
    rs_wait: DFF<Bits<8>>,
    /// `LAW_CLOCKS + 1`: from an interval's end to the clock the egress
    /// law's new rate is seen.
    rs_wait_clocks: Constant<Bits<8>>,
    rs_pend: DFF<Bits<2>>,
    rs_rate: DFF<Bits<32>>,
    rs_count: DFF<Bits<32>>,
    rs_peer1: Signal<Local, Bit>,
    rs_take: Signal<Local, Bit>,
    rs_mask: Signal<Local, Bits<2>>,
    rs_dst: Signal<Local, Bits<128>>,
    rs_v6: Signal<Local, Bit>,
    rr_received: DFF<Bits<32>>,
    rr_refused: DFF<Bits<32>>,
    ra_on: Signal<Local, Bit>,
    /// RA_PEERn_ADDR / _PREFIX words in lane order.
    peer_lanes: Vec<Signal<Local, Bits<32>>>,
    peer0_addr: Signal<Local, Bits<128>>,
    peer1_addr: Signal<Local, Bits<128>>,
    next_hop_mac: Signal<Local, Bits<48>>,
}

impl Default for Gateway {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            dc_rx: Default::default(),
            wan_tx: Default::default(),
            wan_rx: Default::default(),
            dc_tx: Default::default(),
            s_axil: Default::default(),
            qd_ext_bytes: Default::default(),
            qd_ext_valid: Default::default(),
            qd_dc_bytes: Default::default(),
            qd_dc_valid: Default::default(),
            dc_hdr: Default::default(),
            wan_hdr: Default::default(),
            dc_in: Default::default(),
            dc_out: Default::default(),
            ce_marker: Default::default(),
            wan_in: Default::default(),
            wan_out: Default::default(),
            dc_parser: Default::default(),
            wan_parser: Default::default(),
            dc_counters: Default::default(),
            wan_counters: Default::default(),
            dc_snoop: Default::default(),
            wan_snoop: Default::default(),
            learner: Default::default(),
            psn_pairer: Default::default(),
            psn_pipe: (0..5).map(|_| Default::default()).collect(),
            psn_pipe_in: Default::default(),
            dc_psn_request: Default::default(),
            wan_psn_ack: Default::default(),
            psn_learn_req: Default::default(),
            csr: Default::default(),
            queue_depth: Default::default(),
            above_k_min: Default::default(),
            ce_marked_count: Default::default(),
            two_threshold: Default::default(),
            pe_marking: Default::default(),
            pe_ect1_count: Default::default(),
            pe_ce_count: Default::default(),
            fcn: Default::default(),
            fcn_wan: Default::default(),
            fcn_light: Default::default(),
            fcn_severe: Default::default(),
            fcn_bucket_depth: Default::default(),
            fcn_rx: Default::default(),
            wan_filter: Default::default(),
            fcn_tr: Default::default(),
            fcn_ingress: Default::default(),
            fcn_rx_depth: Default::default(),
            fcn_req: Default::default(),
            fcn_rx_count: Default::default(),
            proxy_rx: Default::default(),
            proxy_tr: Default::default(),
            proxy_on: Default::default(),
            proxy_req: Default::default(),
            proxy_depth: Default::default(),
            proxy_rx_count: Default::default(),
            proxy_busy_count: Default::default(),
            proxy_table: Default::default(),
            cn_gen: Default::default(),
            cn_mux: Default::default(),
            px_depth: Default::default(),
            dom_lanes: (0..10).map(|_| Default::default()).collect(),
            fcn_cnp_mac: Default::default(),
            decap: Default::default(),
            egress: Default::default(),
            decap_counts: (0..6).map(|_| Default::default()).collect(),
            tunnel_lanes: (0..2).map(|_| Default::default()).collect(),
            ingress_q: Default::default(),
            shaper: Default::default(),
            light_local: Default::default(),
            probe_state: Default::default(),
            probe_label: Default::default(),
            probe_tokens: Default::default(),
            encap: Default::default(),
            ingress: Default::default(),
            dc_mid_ready: Default::default(),
            frame_pipe: (0..5).map(|_| Default::default()).collect(),
            flow_label: Default::default(),
            encap_counts: (0..6).map(|_| Default::default()).collect(),
            tun_lanes: (0..22).map(|_| Default::default()).collect(),
            flow_table: Default::default(),
            queue_kb: Default::default(),
            meter: Default::default(),
            ext_depth: Default::default(),
            dc_acc: Default::default(),
            dc_frame_bytes: Default::default(),
            dc_keep_count: Default::default(),
            dc_acc_sum: Default::default(),
            obs_us: Default::default(),
            obs_epoch: Default::default(),
            obs_end: Default::default(),
            port_bytes: Default::default(),
            port_sum: Default::default(),
            port_prev: Default::default(),
            mul_busy: Default::default(),
            mul_step: Default::default(),
            mul_acc: Default::default(),
            mul_share: Default::default(),
            mul_next: Default::default(),
            top_threshold: Default::default(),
            lh: Default::default(),
            formats: Default::default(),
            builder: Default::default(),
            dc_tx_mux: Default::default(),
            us_div: Default::default(),
            now_us: Default::default(),
            reset_reg: Default::default(),
            pipe: (0..5).map(|_| Default::default()).collect(),
            cmd_pending: Default::default(),
            cmd_op: Default::default(),
            flow_status: Default::default(),
            flow_result_sqp: Default::default(),
            flow_result_key: Default::default(),
            result_words: (0..8).map(|_| Default::default()).collect(),
            result_swapped: (0..8).map(|_| Default::default()).collect(),
            notify_count: Default::default(),
            qgr_us: Default::default(),
            qgr_sample: Default::default(),
            qgr_samples: Default::default(),
            qgr_growth: Default::default(),
            qgr_high: Default::default(),
            us_tick: Default::default(),
            data_req: Default::default(),
            learn_req: Default::default(),
            csr_req: Default::default(),
            status_word: Default::default(),
            csr_sip: Default::default(),
            csr_dip: Default::default(),
            pipe_in: Default::default(),
            location: Default::default(),
            bucket_depth: Default::default(),
            gw_mac: Default::default(),
            gw_ipv4: Default::default(),
            gw_ipv6: Default::default(),
            word_lanes: (0..15).map(|_| Default::default()).collect(),
            tod: Default::default(),
            ext_lanes: (0..6).map(|_| Default::default()).collect(),
            ext_device_id: Default::default(),
            ext_path_id: Default::default(),
            ra_law: Default::default(),
            advisor: Default::default(),
            ra_us: Default::default(),
            ra_bytes: Default::default(),
            ra_sum: Default::default(),
            ra_end: Default::default(),
            ra_lanes: (0..16).map(|_| Default::default()).collect(),
            ra_law_dc: Default::default(),
            ra_rx: Default::default(),
            wan_tx_mux: Default::default(),
            dc_depth: Default::default(),
            wan_acc: Default::default(),
            wan_frame_bytes: Default::default(),
            wan_keep_count: Default::default(),
            wan_acc_sum: Default::default(),
            ra_dc_bytes: Default::default(),
            ra_dc_sum: Default::default(),
            rs_wait: Default::default(),
            rs_wait_clocks: Constant::new(bits::<8>(crate::ra::LAW_CLOCKS + 1)),
            rs_pend: Default::default(),
            rs_rate: Default::default(),
            rs_count: Default::default(),
            rs_peer1: Default::default(),
            rs_take: Default::default(),
            rs_mask: Default::default(),
            rs_dst: Default::default(),
            rs_v6: Default::default(),
            rr_received: Default::default(),
            rr_refused: Default::default(),
            ra_on: Default::default(),
            peer_lanes: (0..16).map(|_| Default::default()).collect(),
            peer0_addr: Default::default(),
            peer1_addr: Default::default(),
            next_hop_mac: Default::default(),
        }
    }
}

impl Logic for Gateway {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(
            self,
            clock,
            dc_in,
            dc_out,
            ce_marker,
            wan_in,
            wan_out,
            dc_parser,
            wan_parser,
            dc_counters,
            wan_counters,
            dc_snoop,
            wan_snoop,
            learner,
            psn_pairer,
            two_threshold,
            fcn,
            fcn_rx,
            wan_filter,
            fcn_tr,
            proxy_rx,
            proxy_tr,
            proxy_table,
            decap,
            ingress_q,
            shaper,
            encap,
            csr,
            flow_table,
            queue_kb,
            meter,
            lh,
            formats,
            builder,
            dc_tx_mux,
            cn_gen,
            cn_mux,
            tod,
            ra_law,
            advisor,
            ra_law_dc,
            ra_rx,
            wan_tx_mux
        );
        dff_setup!(
            self,
            clock,
            reset_reg,
            queue_depth,
            ext_depth,
            dc_acc,
            dc_frame_bytes,
            obs_us,
            obs_epoch,
            port_bytes,
            port_prev,
            mul_busy,
            mul_step,
            mul_acc,
            mul_share,
            top_threshold,
            above_k_min,
            ce_marked_count,
            pe_ect1_count,
            pe_ce_count,
            fcn_rx_count,
            proxy_rx_count,
            proxy_busy_count,
            us_div,
            now_us,
            cmd_pending,
            cmd_op,
            flow_status,
            flow_result_sqp,
            flow_result_key,
            notify_count,
            qgr_us,
            qgr_sample,
            qgr_samples,
            qgr_growth,
            qgr_high,
            ra_us,
            ra_bytes,
            dc_depth,
            wan_acc,
            wan_frame_bytes,
            ra_dc_bytes,
            rs_wait,
            rs_pend,
            rs_rate,
            rs_count,
            rr_received,
            rr_refused
        );
        self.reset_reg.d.next = self.reset.val();
        for i in 0..6 {
            self.decap_counts[i].clock.next = self.clock.val();
            self.encap_counts[i].clock.next = self.clock.val();
        }
        for i in 0..5 {
            self.pipe[i].clock.next = self.clock.val();
            self.psn_pipe[i].clock.next = self.clock.val();
            self.frame_pipe[i].clock.next = self.clock.val();
        }
        self.flow_table.reset.next = self.reset_reg.q.val();
        self.meter.reset.next = self.reset_reg.q.val();
        self.lh.reset.next = self.reset_reg.q.val();
        self.formats.reset.next = self.reset_reg.q.val();
        self.builder.reset.next = self.reset_reg.q.val();
        self.dc_tx_mux.reset.next = self.reset_reg.q.val();
        self.cn_gen.reset.next = self.reset_reg.q.val();
        self.cn_mux.reset.next = self.reset_reg.q.val();
        self.dc_in.reset.next = self.reset_reg.q.val();
        self.dc_out.reset.next = self.reset_reg.q.val();
        self.ce_marker.reset.next = self.reset_reg.q.val();
        self.wan_in.reset.next = self.reset_reg.q.val();
        self.wan_out.reset.next = self.reset_reg.q.val();
        self.dc_parser.reset.next = self.reset_reg.q.val();
        self.wan_parser.reset.next = self.reset_reg.q.val();
        self.dc_counters.reset.next = self.reset_reg.q.val();
        self.wan_counters.reset.next = self.reset_reg.q.val();
        self.dc_snoop.reset.next = self.reset_reg.q.val();
        self.wan_snoop.reset.next = self.reset_reg.q.val();
        self.learner.reset.next = self.reset_reg.q.val();
        self.csr.reset.next = self.reset_reg.q.val();

        // dc_rx -> wan_tx: the parser watches what enters the CE marker.
        // FCN-02/PE-01: in the ingress-PE role the marked frames wait in
        // the ingress queue for their labels and are encapsulated.
        AxisSink::link(&mut self.dc_rx, &mut self.dc_in.s);
        AxisSource::join(&mut self.dc_in.m, &mut self.ce_marker.s);
        // RA-04: the builder's frames for the WAN (remote advice) join
        // between data frames (a combinational mux: no added latency).
        AxisSource::join(&mut self.dc_out.m, &mut self.wan_tx_mux.a);
        AxisSource::link(&mut self.wan_tx, &mut self.wan_tx_mux.m);
        self.wan_tx_mux.reset.next = self.reset_reg.q.val();
        self.ingress.next = self.csr.values[198].val().get_bit(2);
        self.dc_mid_ready.next = self.dc_out.s.tready.val();
        if self.ingress.val() {
            self.dc_mid_ready.next = self.ingress_q.s.tready.val();
        }
        self.ce_marker.m.tready.next = self.dc_mid_ready.val();
        self.ingress_q.reset.next = self.reset_reg.q.val() | !self.ingress.val();
        self.ingress_q.s.tdata.next = self.ce_marker.m.tdata.val();
        self.ingress_q.s.tkeep.next = self.ce_marker.m.tkeep.val();
        self.ingress_q.s.tlast.next = self.ce_marker.m.tlast.val();
        self.ingress_q.s.tuser.next = self.ce_marker.m.tuser.val();
        self.ingress_q.s.tvalid.next = self.ce_marker.m.tvalid.val() & self.ingress.val();
        // PE-05: the shaper takes each frame with its label (offered only
        // with it) and hands it on with its label and path.
        self.shaper.reset.next = self.reset_reg.q.val() | !self.ingress.val();
        self.shaper.s.tdata.next = self.ingress_q.m.tdata.val();
        self.shaper.s.tkeep.next = self.ingress_q.m.tkeep.val();
        self.shaper.s.tlast.next = self.ingress_q.m.tlast.val();
        self.shaper.s.tuser.next = self.ingress_q.m.tuser.val();
        self.shaper.s.tvalid.next = self.ingress_q.m.tvalid.val();
        self.shaper.s_label.next = self.ingress_q.m_label.val();
        self.ingress_q.m.tready.next = self.shaper.s.tready.val();
        self.encap.reset.next = self.reset_reg.q.val() | !self.ingress.val();
        self.encap.s.tdata.next = self.shaper.m.tdata.val();
        self.encap.s.tkeep.next = self.shaper.m.tkeep.val();
        self.encap.s.tlast.next = self.shaper.m.tlast.val();
        self.encap.s.tuser.next = self.shaper.m.tuser.val();
        self.encap.s.tvalid.next = self.shaper.m.tvalid.val();
        self.shaper.m.tready.next = self.encap.s.tready.val();
        // The shaper's beats carry their label and path through each
        // frame: the first beat's are the frame's command.
        self.encap.cmd_valid.next = self.shaper.m.tvalid.val();
        self.encap.cmd_encap.next = true;
        self.encap.cmd_label.next = self.shaper.m_label.val();
        self.encap.m.tready.next = self.dc_out.s.tready.val() & self.ingress.val();
        self.dc_out.s.tdata.next = self.ce_marker.m.tdata.val();
        self.dc_out.s.tkeep.next = self.ce_marker.m.tkeep.val();
        self.dc_out.s.tlast.next = self.ce_marker.m.tlast.val();
        self.dc_out.s.tuser.next = self.ce_marker.m.tuser.val();
        self.dc_out.s.tvalid.next = self.ce_marker.m.tvalid.val();
        if self.ingress.val() {
            self.dc_out.s.tdata.next = self.encap.m.tdata.val();
            self.dc_out.s.tkeep.next = self.encap.m.tkeep.val();
            self.dc_out.s.tlast.next = self.encap.m.tlast.val();
            self.dc_out.s.tuser.next = self.encap.m.tuser.val();
            self.dc_out.s.tvalid.next = self.encap.m.tvalid.val();
        }
        self.dc_parser.tap.tdata.next = self.dc_in.m.tdata.val();
        self.dc_parser.tap.tkeep.next = self.dc_in.m.tkeep.val();
        self.dc_parser.tap.tlast.next = self.dc_in.m.tlast.val();
        self.dc_parser.tap.tvalid.next = self.dc_in.m.tvalid.val();
        self.dc_parser.tap.tready.next = self.dc_mid_ready.val();

        // LH-04: first level, CE marking while the queue is above K_min.
        self.above_k_min.d.next = self.csr.values[4].val().get_bit(0)
            & (self.queue_depth.q.val() > self.csr.values[10].val());
        self.ce_marker.congested.next = self.above_k_min.q.val();

        if self.ce_marker.marked.val() {
            self.ce_marked_count.d.next = self.ce_marked_count.q.val() + 1;
        }
        if self.reset_reg.q.val() | self.csr.values[5].val().get_bit(0) {
            self.ce_marked_count.d.next = 0.into();
        }
        HeaderSource::link(&mut self.dc_hdr, &mut self.dc_parser.hdr);

        // wan_rx -> dc_tx.
        AxisSink::link(&mut self.wan_rx, &mut self.wan_in.s);
        AxisSource::join(&mut self.wan_in.m, &mut self.wan_filter.s);
        // PE-02: the egress PE's decapsulation, or straight through.
        self.egress.next = self.csr.values[198].val().get_bit(0);
        self.decap.s.tdata.next = self.wan_filter.m.tdata.val();
        self.decap.s.tkeep.next = self.wan_filter.m.tkeep.val();
        self.decap.s.tlast.next = self.wan_filter.m.tlast.val();
        self.decap.s.tuser.next = self.wan_filter.m.tuser.val();
        self.decap.s.tvalid.next = self.wan_filter.m.tvalid.val() & self.egress.val();
        self.decap.m.tready.next = self.wan_out.s.tready.val() & self.egress.val();
        self.wan_filter.m.tready.next = self.wan_out.s.tready.val();
        self.wan_out.s.tdata.next = self.wan_filter.m.tdata.val();
        self.wan_out.s.tkeep.next = self.wan_filter.m.tkeep.val();
        self.wan_out.s.tlast.next = self.wan_filter.m.tlast.val();
        self.wan_out.s.tuser.next = self.wan_filter.m.tuser.val();
        self.wan_out.s.tvalid.next = self.wan_filter.m.tvalid.val();
        if self.egress.val() {
            self.wan_filter.m.tready.next = self.decap.s.tready.val();
            self.wan_out.s.tdata.next = self.decap.m.tdata.val();
            self.wan_out.s.tkeep.next = self.decap.m.tkeep.val();
            self.wan_out.s.tlast.next = self.decap.m.tlast.val();
            self.wan_out.s.tuser.next = self.decap.m.tuser.val();
            self.wan_out.s.tvalid.next = self.decap.m.tvalid.val();
        }
        AxisSource::join(&mut self.wan_out.m, &mut self.dc_tx_mux.a);
        // The builder's frames go to dc_tx, its RA-04 frames to wan_tx.
        AxisSource::join(&mut self.builder.m, &mut self.dc_tx_mux.b);
        AxisSource::join(&mut self.builder.w, &mut self.wan_tx_mux.b);
        AxisSource::join(&mut self.dc_tx_mux.m, &mut self.cn_mux.a);
        AxisSource::join(&mut self.cn_gen.m, &mut self.cn_mux.b);
        AxisSource::link(&mut self.dc_tx, &mut self.cn_mux.m);
        self.wan_parser.tap.tdata.next = self.wan_in.m.tdata.val();
        self.wan_parser.tap.tkeep.next = self.wan_in.m.tkeep.val();
        self.wan_parser.tap.tlast.next = self.wan_in.m.tlast.val();
        self.wan_parser.tap.tvalid.next = self.wan_in.m.tvalid.val();
        self.wan_parser.tap.tready.next = self.wan_filter.s.tready.val();
        HeaderSource::link(&mut self.wan_hdr, &mut self.wan_parser.hdr);

        // LH-01: the CM snoopers watch what the parsers watch and take their
        // results; the learner pairs REQs and REPs of both inputs.
        self.dc_snoop.tdata.next = self.dc_in.m.tdata.val();
        self.dc_snoop.tlast.next = self.dc_in.m.tlast.val();
        self.dc_snoop.tvalid.next = self.dc_in.m.tvalid.val();
        self.dc_snoop.tready.next = self.dc_mid_ready.val();
        self.dc_snoop.hdr_valid.next = self.dc_hdr.valid.val();
        self.dc_snoop.hdr_class.next = self.dc_hdr.class.val();
        self.dc_snoop.hdr_opcode.next = self.dc_hdr.opcode.val();
        self.dc_snoop.hdr_dest_qp.next = self.dc_hdr.dest_qp.val();
        self.dc_snoop.hdr_src_ip.next = self.dc_hdr.src_ip.val();
        self.dc_snoop.hdr_dst_ip.next = self.dc_hdr.dst_ip.val();
        self.wan_snoop.tdata.next = self.wan_in.m.tdata.val();
        self.wan_snoop.tlast.next = self.wan_in.m.tlast.val();
        self.wan_snoop.tvalid.next = self.wan_in.m.tvalid.val();
        self.wan_snoop.tready.next = self.wan_filter.s.tready.val();
        self.wan_snoop.hdr_valid.next = self.wan_hdr.valid.val();
        self.wan_snoop.hdr_class.next = self.wan_hdr.class.val();
        self.wan_snoop.hdr_opcode.next = self.wan_hdr.opcode.val();
        self.wan_snoop.hdr_dest_qp.next = self.wan_hdr.dest_qp.val();
        self.wan_snoop.hdr_src_ip.next = self.wan_hdr.src_ip.val();
        self.wan_snoop.hdr_dst_ip.next = self.wan_hdr.dst_ip.val();
        CmEventSource::join(&mut self.dc_snoop.event, &mut self.learner.dc);
        CmEventSource::join(&mut self.wan_snoop.event, &mut self.learner.wan);
        self.learner.enable.next = self.csr.values[83].val().get_bit(0);
        self.learner.clear_counters.next = self.csr.values[5].val().get_bit(0);

        // Counters. (A block's interface linked to a port of this one has no
        // wire of its own in Verilog: read the port.)
        self.dc_counters.clear.next = self.csr.values[5].val().get_bit(0);
        self.dc_counters.hdr_valid.next = self.dc_hdr.valid.val();
        self.dc_counters.hdr_class.next = self.dc_hdr.class.val();
        self.dc_counters.tx_frame.next =
            self.wan_tx.tvalid.val() & self.wan_tx.tready.val() & self.wan_tx.tlast.val();
        self.wan_counters.clear.next = self.csr.values[5].val().get_bit(0);
        self.wan_counters.hdr_valid.next = self.wan_hdr.valid.val();
        self.wan_counters.hdr_class.next = self.wan_hdr.class.val();
        self.wan_counters.tx_frame.next =
            self.dc_tx.tvalid.val() & self.dc_tx.tready.val() & self.dc_tx.tlast.val();

        // Microsecond time base (CLOCKS_PER_US clocks per tick).
        self.us_div.d.next = self.us_div.q.val() + 1;
        self.us_tick.next = self.us_div.q.val() + 1 >= self.csr.values[14].val();
        if self.us_tick.val() {
            self.us_div.d.next = 0.into();
            self.now_us.d.next = self.now_us.q.val() + 1;
        }

        // Time of day (the timestamp object, LH-12/LH-13): uptime = clocks
        // since reset x LH_TOD_INCREMENT (2^-56 s), plus the base the host
        // set (LH_TOD_CONTROL.set); `capture` latches the uptime for the
        // host. A notification carries the time of day of the clock it was
        // decided in (the controller keeps it with the job).
        self.tod.reset.next = self.reset_reg.q.val();
        self.tod.increment.next = self.csr.values[143].val();
        self.tod.base.next = (bit_cast::<64, 32>(self.csr.values[144].val()) << 32)
            | bit_cast::<64, 32>(self.csr.values[145].val());
        self.tod.set_base.next = self.csr.values[146].val().get_bit(1);
        self.tod.capture.next = self.csr.values[146].val().get_bit(0);

        // LH-02 queue growth: at the last clock of every PORT0_QGR_INTERVAL_US
        // microseconds, the depth the controller sees is sampled; growth =
        // this sample - the previous one (0 if it shrank), compared with
        // V_growth once two samples exist.
        if self.us_tick.val() {
            self.qgr_us.d.next = self.qgr_us.q.val() + 1;
            if self.qgr_us.q.val() + 1 >= self.csr.values[80].val() {
                self.qgr_us.d.next = 0.into();
                self.qgr_sample.d.next = self.queue_kb.qd_out.val();
                self.qgr_growth.d.next = 0.into();
                if self.queue_kb.qd_out.val() > self.qgr_sample.q.val() {
                    self.qgr_growth.d.next = self.queue_kb.qd_out.val() - self.qgr_sample.q.val();
                }
                self.qgr_high.d.next = (self.qgr_samples.q.val() != 0)
                    & (self.queue_kb.qd_out.val() > self.qgr_sample.q.val())
                    & ((self.queue_kb.qd_out.val() - self.qgr_sample.q.val())
                        > self.csr.values[81].val());
                if self.qgr_samples.q.val() != 2 {
                    self.qgr_samples.d.next = self.qgr_samples.q.val() + 1;
                }
            }
        }
        if self.reset_reg.q.val() {
            self.us_div.d.next = 0.into();
            self.now_us.d.next = 0.into();
            self.qgr_us.d.next = 0.into();
            self.qgr_sample.d.next = 0.into();
            self.qgr_samples.d.next = 0.into();
            self.qgr_growth.d.next = 0.into();
            self.qgr_high.d.next = false;
        }

        // LH-02 queue meter: frames leaving on wan_tx fill the virtual queue;
        // the marker reports ECN-capable and CE frames for the EMR.
        // (Data frames only: RA-04's remote advice is not metered.)
        self.meter.tx_beat.next = self.wan_tx_mux.a.tvalid.val() & self.wan_tx_mux.a.tready.val();
        self.meter.tx_last.next = self.wan_tx_mux.a.tlast.val();
        self.meter.tx_keep.next = self.wan_tx_mux.a.tkeep.val();
        self.meter.drain_q16.next = self.csr.values[89].val();
        self.meter.us_tick.next = self.us_tick.val();
        // PE-03: two-threshold marking on the average queue; one draw per
        // ECT(0)/ECT(1) frame.
        self.pe_marking.next =
            self.csr.values[4].val().get_bit(3) & self.csr.values[159].val().get_bit(0);
        self.two_threshold.reset.next = self.reset_reg.q.val();
        self.two_threshold.avg.next = self.meter.avg.val();
        self.two_threshold.tick.next = self.us_tick.val();
        self.two_threshold.t1.next = self.csr.values[160].val();
        self.two_threshold.t2.next = self.csr.values[161].val();
        self.two_threshold.tmax.next = self.csr.values[162].val();
        // FCN-03: the congested WAN node's Fast CNPs use the same draws.
        self.fcn_wan.next =
            self.csr.values[4].val().get_bit(2) & self.csr.values[168].val().get_bit(0);
        self.two_threshold.enable.next = self.pe_marking.val() | self.fcn_wan.val();
        self.two_threshold.seed.next = self.csr.values[163].val().get_bits::<16>(0);
        self.two_threshold.draw.next = self.ce_marker.draw.val();
        self.ce_marker.pe_ce.next = self.pe_marking.val()
            & (bit_cast::<17, 16>(self.two_threshold.lfsr_value.val())
                < self.two_threshold.p_ce.val());
        self.ce_marker.pe_ect1.next = self.pe_marking.val()
            & (bit_cast::<17, 16>(self.two_threshold.lfsr_value.val())
                < self.two_threshold.p_ect1.val());
        // FCN-03/PE-04: a draw that marks (CE: severe, else ECT(1): light)
        // asks for a Fast CNP to the frame's outer source.
        self.fcn_severe.next =
            bit_cast::<17, 16>(self.two_threshold.lfsr_value.val()) < self.two_threshold.p_ce.val();
        self.fcn_light.next = bit_cast::<17, 16>(self.two_threshold.lfsr_value.val())
            < self.two_threshold.p_ect1.val();
        self.fcn.reset.next = self.reset_reg.q.val();
        self.fcn.enable.next = self.fcn_wan.val();
        self.fcn.ev_valid.next =
            self.ce_marker.draw.val() & (self.fcn_light.val() | self.fcn_severe.val());
        self.fcn.ev_severe.next = self.fcn_severe.val();
        self.fcn.ev_p.next = self.two_threshold.p_ect1.val();
        if self.fcn_severe.val() {
            self.fcn.ev_p.next = self.two_threshold.p_ce.val();
        }
        self.fcn.ev_ipv6.next = self.ce_marker.draw_ipv6.val();
        self.fcn.ev_label.next = self.ce_marker.v6_label.val();
        self.fcn.ev_src_ip.next = self.ce_marker.v6_src.val();
        self.fcn.ev_src_mac.next = self.ce_marker.src_mac.val();
        self.fcn.udp_port.next = self.csr.values[169].val().get_bits::<16>(0);
        self.fcn.copy_label.next = self.csr.values[168].val().get_bit(1);
        self.fcn.refill_clocks.next = self.csr.values[170].val();
        self.fcn_bucket_depth.next = self.csr.values[171].val().get_bits::<4>(0);
        if self.csr.values[171].val() > 8 {
            self.fcn_bucket_depth.next = 8.into();
        }
        self.fcn.bucket_depth.next = self.fcn_bucket_depth.val();
        self.fcn.clear_counters.next = self.csr.values[5].val().get_bit(0);
        // FCN-05/FCN-06: the ingress PE's Fast CNP reception.
        self.fcn_ingress.next =
            self.csr.values[4].val().get_bit(2) & self.csr.values[168].val().get_bit(2);
        for i in 0..4 {
            self.dom_lanes[i].next = (self.csr.values[176 + i].val() >> 24)
                | ((self.csr.values[176 + i].val() >> 8) & 0xFF00)
                | ((self.csr.values[176 + i].val() << 8) & 0xFF_0000)
                | (self.csr.values[176 + i].val() << 24);
            self.dom_lanes[4 + i].next = (self.csr.values[181 + i].val() >> 24)
                | ((self.csr.values[181 + i].val() >> 8) & 0xFF00)
                | ((self.csr.values[181 + i].val() << 8) & 0xFF_0000)
                | (self.csr.values[181 + i].val() << 24);
        }
        self.dom_lanes[8].next =
            (self.csr.values[188].val() >> 8) & 0xFF | ((self.csr.values[188].val() << 8) & 0xFF00);
        self.dom_lanes[9].next = (self.csr.values[189].val() >> 24)
            | ((self.csr.values[189].val() >> 8) & 0xFF00)
            | ((self.csr.values[189].val() << 8) & 0xFF_0000)
            | (self.csr.values[189].val() << 24);
        self.fcn_cnp_mac.next = bit_cast::<48, 32>(self.dom_lanes[8].val())
            | (bit_cast::<48, 32>(self.dom_lanes[9].val()) << 16);
        self.fcn_rx.reset.next = self.reset_reg.q.val();
        self.fcn_rx.tdata.next = self.wan_in.m.tdata.val();
        self.fcn_rx.tkeep.next = self.wan_in.m.tkeep.val();
        self.fcn_rx.tlast.next = self.wan_in.m.tlast.val();
        self.fcn_rx.tvalid.next = self.wan_in.m.tvalid.val();
        self.fcn_rx.tready.next = self.wan_filter.s.tready.val();
        self.fcn_rx.enable.next = self.fcn_ingress.val();
        self.fcn_rx.udp_port.next = self.csr.values[169].val().get_bits::<16>(0);
        self.fcn_rx.dom0_prefix.next = bit_cast::<128, 32>(self.dom_lanes[0].val())
            | (bit_cast::<128, 32>(self.dom_lanes[1].val()) << 32)
            | (bit_cast::<128, 32>(self.dom_lanes[2].val()) << 64)
            | (bit_cast::<128, 32>(self.dom_lanes[3].val()) << 96);
        self.fcn_rx.dom0_len.next = self.csr.values[180].val().get_bits::<8>(8);
        self.fcn_rx.dom0_valid.next = self.csr.values[180].val().get_bit(0);
        self.fcn_rx.dom1_prefix.next = bit_cast::<128, 32>(self.dom_lanes[4].val())
            | (bit_cast::<128, 32>(self.dom_lanes[5].val()) << 32)
            | (bit_cast::<128, 32>(self.dom_lanes[6].val()) << 64)
            | (bit_cast::<128, 32>(self.dom_lanes[7].val()) << 96);
        self.fcn_rx.dom1_len.next = self.csr.values[185].val().get_bits::<8>(8);
        self.fcn_rx.dom1_valid.next = self.csr.values[185].val().get_bit(0);
        self.wan_filter.reset.next = self.reset_reg.q.val();
        self.wan_filter.drop.next =
            self.fcn_rx.claim.val() | self.proxy_rx.claim.val() | self.ra_rx.claim.val();
        if self.wan_filter.dropped.val() & self.fcn_rx.claim.val() {
            self.fcn_rx_count.d.next = self.fcn_rx_count.q.val() + 1;
        }
        if self.wan_filter.dropped.val() & !self.fcn_rx.claim.val() & self.proxy_rx.claim.val() {
            self.proxy_rx_count.d.next = self.proxy_rx_count.q.val() + 1;
        }
        if self.proxy_rx.busy_drop.val() {
            self.proxy_busy_count.d.next = self.proxy_busy_count.q.val() + 1;
        }
        if self.reset_reg.q.val() | self.csr.values[5].val().get_bit(0) {
            self.fcn_rx_count.d.next = 0.into();
            self.proxy_rx_count.d.next = 0.into();
            self.proxy_busy_count.d.next = 0.into();
        }
        // PX-02/PX-04: the proxy (FEATURE_ENABLE.proxy_cn, PROXY_CONTROL).
        self.proxy_on.next =
            self.csr.values[4].val().get_bit(4) & self.csr.values[253].val().get_bit(0);
        self.proxy_rx.reset.next = self.reset_reg.q.val();
        self.proxy_rx.tdata.next = self.wan_in.m.tdata.val();
        self.proxy_rx.tkeep.next = self.wan_in.m.tkeep.val();
        self.proxy_rx.tlast.next = self.wan_in.m.tlast.val();
        self.proxy_rx.tvalid.next = self.wan_in.m.tvalid.val();
        self.proxy_rx.tready.next = self.wan_filter.s.tready.val();
        self.proxy_rx.enable.next = self.proxy_on.val();
        self.proxy_rx.udp_port.next = self.csr.values[254].val().get_bits::<16>(0);
        self.proxy_tr.reset.next = self.reset_reg.q.val();
        self.proxy_tr.enable.next = self.proxy_on.val();
        self.proxy_tr.filter.next = self.csr.values[253].val().get_bit(1);
        self.proxy_tr.msg_valid.next = self.proxy_rx.msg_valid.val();
        self.proxy_tr.msg_verdict.next = self.proxy_rx.msg_verdict.val();
        self.proxy_tr.msg_src.next = self.proxy_rx.msg_src.val();
        self.proxy_tr.msg_sip.next = self.proxy_rx.msg_sip.val();
        self.proxy_tr.msg_dip.next = self.proxy_rx.msg_dip.val();
        self.proxy_tr.msg_dqp.next = self.proxy_rx.msg_dqp.val();
        self.proxy_tr.msg_level.next = self.proxy_rx.msg_level.val();
        self.proxy_tr.tod.next = self.tod.now.val();
        self.proxy_tr.sev_action.next = self.csr.values[18].val().get_bits::<2>(22);
        self.proxy_tr.sev_parameter.next = self.csr.values[18].val().get_bits::<16>(0);
        self.proxy_tr.resp_fmt_hit.next = self.formats.hit.val();
        self.proxy_tr.resp_fmt.next = self.formats.format.val();
        self.proxy_tr.dom0_prefix.next = self.fcn_rx.dom0_prefix.val();
        self.proxy_tr.dom0_len.next = self.fcn_rx.dom0_len.val();
        self.proxy_tr.dom0_valid.next = self.fcn_rx.dom0_valid.val();
        self.proxy_tr.dom1_prefix.next = self.fcn_rx.dom1_prefix.val();
        self.proxy_tr.dom1_len.next = self.fcn_rx.dom1_len.val();
        self.proxy_tr.dom1_valid.next = self.fcn_rx.dom1_valid.val();
        self.proxy_tr.refill_clocks.next = self.csr.values[255].val();
        self.proxy_depth.next = self.csr.values[256].val().get_bits::<4>(0);
        if self.csr.values[256].val() > 8 {
            self.proxy_depth.next = 8.into();
        }
        self.proxy_tr.bucket_depth.next = self.proxy_depth.val();
        self.proxy_tr.clear_counters.next = self.csr.values[5].val().get_bit(0);
        self.proxy_tr.resp_valid.next =
            self.flow_table.resp_valid.val() & self.pipe[4].q.val().get_bit(196);
        self.proxy_tr.resp_hit.next = self.flow_table.resp_entry.val().valid;
        self.proxy_tr.resp_sqp_valid.next = self.flow_table.resp_sqp_valid.val();
        self.proxy_tr.resp_sqp.next = self.flow_table.resp_sqp.val();
        self.proxy_tr.resp_sip.next = self.flow_table.resp_entry.val().key.get_bits::<128>(152);
        // PX-03: the prefix -> proxy table (indirect access; the look-up
        // port serves PROXY_LOOKUP_ADDR).
        self.proxy_table.reset.next = self.reset_reg.q.val();
        self.proxy_table.index.next = self.csr.values[278].val().get_bits::<4>(0);
        self.proxy_table.commit.next = self.csr.values[279].val().get_bit(0);
        self.proxy_table.stage_valid.next = self.csr.values[277].val().get_bit(0);
        self.proxy_table.stage_len.next = self.csr.values[277].val().get_bits::<8>(8);
        // Network order: word 0 (the first bytes) in bits 127..96.
        self.proxy_table.stage_prefix.next = (bit_cast::<128, 32>(self.csr.values[269].val())
            << 96)
            | (bit_cast::<128, 32>(self.csr.values[270].val()) << 64)
            | (bit_cast::<128, 32>(self.csr.values[271].val()) << 32)
            | bit_cast::<128, 32>(self.csr.values[272].val());
        self.proxy_table.stage_addr.next = (bit_cast::<128, 32>(self.csr.values[273].val()) << 96)
            | (bit_cast::<128, 32>(self.csr.values[274].val()) << 64)
            | (bit_cast::<128, 32>(self.csr.values[275].val()) << 32)
            | bit_cast::<128, 32>(self.csr.values[276].val());
        self.proxy_table.addr.next = (bit_cast::<128, 32>(self.csr.values[289].val()) << 96)
            | (bit_cast::<128, 32>(self.csr.values[290].val()) << 64)
            | (bit_cast::<128, 32>(self.csr.values[291].val()) << 32)
            | bit_cast::<128, 32>(self.csr.values[292].val());

        self.fcn_tr.reset.next = self.reset_reg.q.val();
        self.fcn_tr.enable.next = self.fcn_ingress.val();
        self.fcn_tr.msg_valid.next = self.fcn_rx.msg_valid.val();
        self.fcn_tr.msg_label.next = self.fcn_rx.msg_label.val();
        self.fcn_tr.msg_ok.next =
            self.fcn_rx.msg_well_formed.val() & self.fcn_rx.msg_checksum_ok.val();
        self.fcn_tr.msg_in_domain.next = self.fcn_rx.msg_in_domain.val();
        // PE-05: with the shaper on, a light Fast CNP (level 1..3) is the
        // PE's own business: checked and rate-limited like any, then a
        // notification to the shaper instead of a CNP.
        self.light_local.next = self.ingress.val()
            & self.csr.values[239].val().get_bit(0)
            & (self.fcn_rx.msg_level.val() != 0)
            & (self.fcn_rx.msg_level.val() < 4);
        self.fcn_tr.msg_local.next = self.light_local.val();
        self.shaper.note_valid.next = self.fcn_tr.note_valid.val();
        self.shaper.note_label.next = self.fcn_tr.note_label.val();
        self.fcn_tr.refill_clocks.next = self.csr.values[186].val();
        self.fcn_rx_depth.next = self.csr.values[187].val().get_bits::<4>(0);
        if self.csr.values[187].val() > 8 {
            self.fcn_rx_depth.next = 8.into();
        }
        self.fcn_tr.bucket_depth.next = self.fcn_rx_depth.val();
        self.fcn_tr.clear_counters.next = self.csr.values[5].val().get_bit(0);
        self.fcn_tr.resp_valid.next =
            self.flow_table.resp_valid.val() & self.pipe[4].q.val().get_bit(195);
        self.fcn_tr.resp_hit.next = self.flow_table.resp_entry.val().valid;
        self.fcn_tr.resp_sqp_valid.next = self.flow_table.resp_sqp_valid.val();
        self.fcn_tr.resp_sqp.next = self.flow_table.resp_sqp.val();
        self.fcn_tr.resp_sip.next = self.flow_table.resp_entry.val().key.get_bits::<128>(152);
        if self.ce_marker.pe_ect1_marked.val() {
            self.pe_ect1_count.d.next = self.pe_ect1_count.q.val() + 1;
        }
        if self.ce_marker.pe_ce_marked.val() {
            self.pe_ce_count.d.next = self.pe_ce_count.q.val() + 1;
        }
        if self.reset_reg.q.val() | self.csr.values[5].val().get_bit(0) {
            self.pe_ect1_count.d.next = 0.into();
            self.pe_ce_count.d.next = 0.into();
        }
        self.meter.qd.next = self.queue_depth.q.val();
        self.meter.avg_shift.next = self.csr.values[91].val();
        self.meter.window_us.next = self.csr.values[93].val();
        self.meter.v_ecn.next = self.csr.values[94].val();
        self.meter.ect.next = self.ce_marker.ect_frame.val();
        self.meter.ce.next = self.ce_marker.ce_frame.val();

        // LH-06: the bytes of each frame entering dc_rx (the sum of its tkeep
        // bits, saturating at 65535), ready when its parsed header appears.
        self.dc_keep_count.next = 0.into();
        self.dc_acc_sum.next = bit_cast::<18, 17>(self.dc_acc.q.val());
        if self.dc_in.m.tvalid.val() & self.dc_mid_ready.val() {
            for i in 0..64 {
                if self.dc_in.m.tkeep.val().get_bit(i) {
                    self.dc_keep_count.next = self.dc_keep_count.val() + 1;
                }
            }
            self.dc_acc_sum.next = bit_cast::<18, 17>(self.dc_acc.q.val())
                + bit_cast::<18, 7>(self.dc_keep_count.val());
            if self.dc_acc_sum.val() > 0xFFFF {
                self.dc_acc_sum.next = 0xFFFF.into();
            }
            self.dc_acc.d.next = bit_cast::<17, 18>(self.dc_acc_sum.val());
            if self.dc_in.m.tlast.val() {
                self.dc_acc.d.next = 0.into();
                self.dc_frame_bytes.d.next = bit_cast::<16, 18>(self.dc_acc_sum.val());
            }
        }
        // Observation windows of LH_OBS_WINDOW_US microseconds from reset:
        // the port's RoCEv2 bytes toward the WAN per window; at a window's
        // end a serial product (8 clocks) gives the top-contributor
        // threshold share * bytes / 256 of the window that ended.
        self.obs_end.next =
            self.us_tick.val() & (self.obs_us.q.val() + 1 >= self.csr.values[149].val());
        if self.us_tick.val() {
            self.obs_us.d.next = self.obs_us.q.val() + 1;
        }
        self.port_sum.next = bit_cast::<33, 32>(self.port_bytes.q.val());
        if self.dc_hdr.valid.val() & (self.dc_hdr.class.val() == 1) {
            self.port_sum.next = bit_cast::<33, 32>(self.port_bytes.q.val())
                + bit_cast::<33, 16>(self.dc_frame_bytes.q.val());
        }
        if self.port_sum.val().get_bit(32) {
            self.port_sum.next = 0xFFFF_FFFF_u64.into();
        }
        self.port_bytes.d.next = bit_cast::<32, 33>(self.port_sum.val());
        self.mul_next.next = self.mul_acc.q.val() << 1;
        if self.mul_share.q.val().get_bit(7) {
            self.mul_next.next =
                (self.mul_acc.q.val() << 1) + bit_cast::<40, 32>(self.port_prev.q.val());
        }
        if self.mul_busy.q.val() {
            // Share bits 7..0, most significant first.
            self.mul_acc.d.next = self.mul_next.val();
            self.mul_share.d.next = self.mul_share.q.val() << 1;
            self.mul_step.d.next = self.mul_step.q.val() + 1;
            if self.mul_step.q.val() == 7 {
                self.mul_busy.d.next = false;
                self.top_threshold.d.next = self.mul_next.val().get_bits::<32>(8);
            }
        }
        if self.obs_end.val() {
            self.obs_us.d.next = 0.into();
            self.obs_epoch.d.next = self.obs_epoch.q.val() + 1;
            self.port_bytes.d.next = 0.into();
            self.port_prev.d.next = bit_cast::<32, 33>(self.port_sum.val());
            self.mul_busy.d.next = true;
            self.mul_step.d.next = 0.into();
            self.mul_acc.d.next = 0.into();
            self.mul_share.d.next = self.csr.values[150].val().get_bits::<8>(0);
        }
        if self.reset_reg.q.val() {
            self.dc_acc.d.next = 0.into();
            self.obs_us.d.next = 0.into();
            self.obs_epoch.d.next = 0.into();
            self.port_bytes.d.next = 0.into();
            self.port_prev.d.next = 0.into();
            self.mul_busy.d.next = false;
            self.top_threshold.d.next = 0.into();
        }

        // CSR words (network order, first byte in bits 31..24) in lane order.
        for i in 0..4 {
            self.word_lanes[i].next = (self.csr.values[50 + i].val() >> 24)
                | ((self.csr.values[50 + i].val() >> 8) & 0xFF00)
                | ((self.csr.values[50 + i].val() << 8) & 0xFF_0000)
                | (self.csr.values[50 + i].val() << 24);
            self.word_lanes[4 + i].next = (self.csr.values[54 + i].val() >> 24)
                | ((self.csr.values[54 + i].val() >> 8) & 0xFF00)
                | ((self.csr.values[54 + i].val() << 8) & 0xFF_0000)
                | (self.csr.values[54 + i].val() << 24);
            self.word_lanes[8 + i].next = (self.csr.values[28 + i].val() >> 24)
                | ((self.csr.values[28 + i].val() >> 8) & 0xFF00)
                | ((self.csr.values[28 + i].val() << 8) & 0xFF_0000)
                | (self.csr.values[28 + i].val() << 24);
        }
        self.word_lanes[12].next = (self.csr.values[27].val() >> 24)
            | ((self.csr.values[27].val() >> 8) & 0xFF00)
            | ((self.csr.values[27].val() << 8) & 0xFF_0000)
            | (self.csr.values[27].val() << 24);
        self.word_lanes[13].next = (self.csr.values[26].val() >> 24)
            | ((self.csr.values[26].val() >> 8) & 0xFF00)
            | ((self.csr.values[26].val() << 8) & 0xFF_0000)
            | (self.csr.values[26].val() << 24);
        self.word_lanes[14].next =
            (self.csr.values[25].val() >> 8) & 0xFF | ((self.csr.values[25].val() << 8) & 0xFF00);
        self.csr_sip.next = bit_cast::<128, 32>(self.word_lanes[0].val())
            | (bit_cast::<128, 32>(self.word_lanes[1].val()) << 32)
            | (bit_cast::<128, 32>(self.word_lanes[2].val()) << 64)
            | (bit_cast::<128, 32>(self.word_lanes[3].val()) << 96);
        self.csr_dip.next = bit_cast::<128, 32>(self.word_lanes[4].val())
            | (bit_cast::<128, 32>(self.word_lanes[5].val()) << 32)
            | (bit_cast::<128, 32>(self.word_lanes[6].val()) << 64)
            | (bit_cast::<128, 32>(self.word_lanes[7].val()) << 96);
        self.gw_ipv6.next = bit_cast::<128, 32>(self.word_lanes[8].val())
            | (bit_cast::<128, 32>(self.word_lanes[9].val()) << 32)
            | (bit_cast::<128, 32>(self.word_lanes[10].val()) << 64)
            | (bit_cast::<128, 32>(self.word_lanes[11].val()) << 96);
        self.gw_ipv4.next = bit_cast::<128, 32>(self.word_lanes[12].val()) << 96;
        self.gw_mac.next = bit_cast::<48, 32>(self.word_lanes[14].val())
            | (bit_cast::<48, 32>(self.word_lanes[13].val()) << 16);

        // Flow-table requests, one per clock: RoCEv2 headers from dc_rx first
        // (their answer is due five clocks later), then learned source QPs,
        // then a CSR command.
        if self.csr.values[60].val().any() {
            self.cmd_pending.d.next = true;
            self.cmd_op.d.next = 0.into();
            if self.csr.values[60].val().get_bit(1) {
                self.cmd_op.d.next = 3.into();
            }
            if self.csr.values[60].val().get_bit(2) {
                self.cmd_op.d.next = 4.into();
            }
            if self.csr.values[60].val().get_bit(3) {
                self.cmd_op.d.next = 5.into();
            }
            self.flow_status.d.next = 0.into();
        }
        self.data_req.next = self.dc_hdr.valid.val() & (self.dc_hdr.class.val() == 1);
        self.learner.learn_ready.next = !self.data_req.val() & !self.flow_table.busy.val();
        self.learn_req.next = self.learner.learn_valid.val() & self.learner.learn_ready.val();
        self.psn_pairer.learn_ready.next =
            !self.data_req.val() & !self.flow_table.busy.val() & !self.learner.learn_valid.val();
        self.psn_learn_req.next =
            self.psn_pairer.learn_valid.val() & self.psn_pairer.learn_ready.val();
        // FCN-05: a Fast CNP translation reads its label's place after the
        // learning requests, before the CSR.
        self.fcn_req.next = self.fcn_tr.rd_valid.val()
            & !self.data_req.val()
            & !self.learner.learn_valid.val()
            & !self.psn_pairer.learn_valid.val()
            & !self.flow_table.busy.val();
        self.fcn_tr.rd_taken.next = self.fcn_req.val();
        // PX-02: a proxy look-up after the Fast CNP reads.
        self.proxy_req.next = self.proxy_tr.rd_valid.val()
            & !self.data_req.val()
            & !self.learner.learn_valid.val()
            & !self.psn_pairer.learn_valid.val()
            & !self.fcn_tr.rd_valid.val()
            & !self.flow_table.busy.val();
        self.proxy_tr.rd_taken.next = self.proxy_req.val();
        self.csr_req.next = self.cmd_pending.q.val()
            & !self.data_req.val()
            & !self.learner.learn_valid.val()
            & !self.psn_pairer.learn_valid.val()
            & !self.fcn_tr.rd_valid.val()
            & !self.proxy_tr.rd_valid.val()
            & !self.flow_table.busy.val();
        if self.csr_req.val() {
            self.cmd_pending.d.next = false;
        }
        self.flow_table.req_valid.next = self.data_req.val()
            | self.learn_req.val()
            | self.psn_learn_req.val()
            | self.fcn_req.val()
            | self.proxy_req.val()
            | self.csr_req.val();
        self.flow_table.req_fill.next = self.psn_learn_req.val();
        self.flow_table.req_op.next = 1.into();
        self.flow_table.req_sip.next = self.dc_hdr.src_ip.val();
        self.flow_table.req_dip.next = self.dc_hdr.dst_ip.val();
        self.flow_table.req_dqp.next = self.dc_hdr.dest_qp.val();
        self.flow_table.req_sqp.next = self.csr.values[59].val().get_bits::<24>(0);
        if !self.data_req.val() {
            self.flow_table.req_op.next = self.cmd_op.q.val();
            self.flow_table.req_sip.next = self.csr_sip.val();
            self.flow_table.req_dip.next = self.csr_dip.val();
            self.flow_table.req_dqp.next = self.csr.values[58].val().get_bits::<24>(0);
        }
        if self.learn_req.val() {
            self.flow_table.req_op.next = 2.into();
            self.flow_table.req_sip.next = self.learner.learn_sip.val();
            self.flow_table.req_dip.next = self.learner.learn_dip.val();
            self.flow_table.req_dqp.next = self.learner.learn_dqp.val();
            self.flow_table.req_sqp.next = self.learner.learn_sqp.val();
        }
        if self.psn_learn_req.val() {
            self.flow_table.req_op.next = 2.into();
            self.flow_table.req_sip.next = self.psn_pairer.learn_sip.val();
            self.flow_table.req_dip.next = self.psn_pairer.learn_dip.val();
            self.flow_table.req_dqp.next = self.psn_pairer.learn_dqp.val();
            self.flow_table.req_sqp.next = self.psn_pairer.learn_sqp.val();
        }
        self.flow_table.req_bytes.next = self.dc_frame_bytes.q.val();
        self.flow_table.req_bucket.next = self.csr.values[67].val().get_bits::<12>(4);
        self.flow_table.req_slot.next = self.csr.values[67].val().get_bits::<4>(0);
        self.flow_table.req_in_stash.next = self.csr.values[67].val().get_bit(16);
        if self.fcn_req.val() {
            self.flow_table.req_op.next = 5.into();
            self.flow_table.req_bucket.next = self.fcn_tr.rd_bucket.val();
            self.flow_table.req_slot.next = self.fcn_tr.rd_slot.val();
            self.flow_table.req_in_stash.next = self.fcn_tr.rd_in_stash.val();
        }
        if self.proxy_req.val() {
            self.flow_table.req_op.next = 0.into();
            self.flow_table.req_sip.next = self.proxy_tr.rd_sip.val();
            self.flow_table.req_dip.next = self.proxy_tr.rd_dip.val();
            self.flow_table.req_dqp.next = self.proxy_tr.rd_dqp.val();
        }
        self.flow_table.now.next = self.now_us.q.val();
        self.flow_table.window_epoch.next = self.obs_epoch.q.val();
        self.flow_table.aging_enable.next = self.csr.values[68].val().any();
        self.flow_table.age_timeout.next = self.csr.values[68].val();
        self.flow_table.clear_counters.next = self.csr.values[5].val().get_bit(0);

        // What each request needs five clocks later.
        self.pipe_in.next = bit_cast::<199, 128>(self.dc_hdr.src_ip.val())
            | (bit_cast::<199, 48>(self.dc_hdr.src_mac.val()) << 128)
            | (bit_cast::<199, 16>(self.dc_hdr.pkey.val()) << 176);
        if self.dc_hdr.is_ipv6.val() {
            self.pipe_in.next = self.pipe_in.val() | (bits::<199>(1) << 192);
        }
        if self.data_req.val() {
            self.pipe_in.next = self.pipe_in.val() | (bits::<199>(1) << 193);
        }
        if self.csr_req.val() {
            self.pipe_in.next = self.pipe_in.val() | (bits::<199>(1) << 194);
        }
        if self.fcn_req.val() {
            self.pipe_in.next = self.pipe_in.val() | (bits::<199>(1) << 195);
        }
        if self.proxy_req.val() {
            self.pipe_in.next = self.pipe_in.val() | (bits::<199>(1) << 196);
        }
        if self.dc_hdr.vlan_present.val() {
            self.pipe_in.next = self.pipe_in.val() | (bits::<199>(1) << 197);
        }
        // RA-01: the frame's capability bit (BTH byte 4 bit 4).
        if self.dc_parser.bth_flags.val().get_bit(4) {
            self.pipe_in.next = self.pipe_in.val() | (bits::<199>(1) << 198);
        }
        self.pipe[0].d.next = self.pipe_in.val();
        // LH-01 PSN pairing: an RC request whose PSN the responder
        // acknowledges (SEND, RDMA WRITE, READ request 0x00..=0x0C,
        // COMPARE_SWAP 0x13, FETCH_ADD 0x14, SEND with invalidate 0x16/0x17)
        // rides beside its look-up; an acknowledgement (ACKNOWLEDGE 0x11,
        // ATOMIC ACKNOWLEDGE 0x12, READ RESPONSE FIRST 0x0D / ONLY 0x10)
        // from wan_rx goes straight to the pairer.
        self.dc_psn_request.next = (self.dc_hdr.opcode.val() < bits::<8>(0x0D))
            | (self.dc_hdr.opcode.val() == 0x13)
            | (self.dc_hdr.opcode.val() == 0x14)
            | (self.dc_hdr.opcode.val() == 0x16)
            | (self.dc_hdr.opcode.val() == 0x17);
        self.psn_pipe_in.next = bit_cast::<25, 24>(self.dc_hdr.psn.val());
        if self.data_req.val() & self.dc_psn_request.val() {
            self.psn_pipe_in.next = self.psn_pipe_in.val() | (bits::<25>(1) << 24);
        }
        self.psn_pipe[0].d.next = self.psn_pipe_in.val();
        self.psn_pipe[1].d.next = self.psn_pipe[0].q.val();
        self.psn_pipe[2].d.next = self.psn_pipe[1].q.val();
        self.psn_pipe[3].d.next = self.psn_pipe[2].q.val();
        self.psn_pipe[4].d.next = self.psn_pipe[3].q.val();
        self.psn_pairer.reset.next = self.reset_reg.q.val();
        self.psn_pairer.enable.next = self.csr.values[83].val().get_bit(1);
        self.psn_pairer.clear_counters.next = self.csr.values[5].val().get_bit(0);
        self.psn_pairer.window.next = self.csr.values[154].val().get_bits::<24>(0);
        // Tracked: a request whose look-up found (or inserted) its flow
        // without a source QP.
        self.psn_pairer.req_valid.next = self.psn_pipe[4].q.val().get_bit(24)
            & self.flow_table.resp_valid.val()
            & !self.flow_table.resp_dropped.val()
            & !self.flow_table.resp_failed.val()
            & !self.flow_table.resp_sqp_valid.val();
        self.psn_pairer.req_sip.next = self.flow_table.resp_entry.val().key.get_bits::<128>(152);
        self.psn_pairer.req_dip.next = self.flow_table.resp_entry.val().key.get_bits::<128>(24);
        self.psn_pairer.req_dqp.next = self.flow_table.resp_entry.val().key.get_bits::<24>(0);
        self.psn_pairer.req_psn.next = self.psn_pipe[4].q.val().get_bits::<24>(0);
        self.wan_psn_ack.next = (self.wan_hdr.opcode.val() == 0x11)
            | (self.wan_hdr.opcode.val() == 0x12)
            | (self.wan_hdr.opcode.val() == 0x0D)
            | (self.wan_hdr.opcode.val() == 0x10);
        self.psn_pairer.ack_valid.next =
            self.wan_hdr.valid.val() & (self.wan_hdr.class.val() == 1) & self.wan_psn_ack.val();
        self.psn_pairer.ack_requester.next = self.wan_hdr.dst_ip.val();
        self.psn_pairer.ack_responder.next = self.wan_hdr.src_ip.val();
        self.psn_pairer.ack_dqp.next = self.wan_hdr.dest_qp.val();
        self.psn_pairer.ack_psn.next = self.wan_hdr.psn.val();
        self.pipe[1].d.next = self.pipe[0].q.val();
        self.pipe[2].d.next = self.pipe[1].q.val();
        self.pipe[3].d.next = self.pipe[2].q.val();
        self.pipe[4].d.next = self.pipe[3].q.val();
        // FCN-01/FCN-02: every dc_rx frame's label, in frame order, five
        // clocks after its header: its flow's place from the data-path
        // look-up (RoCEv2 frames whose flow is in the table), else 0.
        self.frame_pipe[0].d.next = self.dc_hdr.valid.val();
        self.frame_pipe[1].d.next = self.frame_pipe[0].q.val();
        self.frame_pipe[2].d.next = self.frame_pipe[1].q.val();
        self.frame_pipe[3].d.next = self.frame_pipe[2].q.val();
        self.frame_pipe[4].d.next = self.frame_pipe[3].q.val();
        self.flow_label.next = (bit_cast::<20, 12>(self.flow_table.resp_bucket.val()) << 2)
            + bit_cast::<20, 2>(self.flow_table.resp_slot.val().get_bits::<2>(0))
            + 1;
        if self.flow_table.resp_in_stash.val() {
            self.flow_label.next = bit_cast::<20, 4>(self.flow_table.resp_slot.val()) + 16385;
        }
        if !(self.flow_table.resp_valid.val()
            & self.pipe[4].q.val().get_bit(193)
            & !self.flow_table.resp_dropped.val()
            & !self.flow_table.resp_failed.val())
        {
            self.flow_label.next = 0.into();
        }
        self.ingress_q.lbl_valid.next = self.frame_pipe[4].q.val();
        self.ingress_q.lbl_label.next = self.flow_label.val();
        if self.reset_reg.q.val() {
            for i in 0..5 {
                self.pipe[i].d.next = 0.into();
                self.psn_pipe[i].d.next = 0.into();
                self.frame_pipe[i].d.next = false;
            }
            self.cmd_pending.d.next = false;
        }

        // CSR command results.
        self.status_word.next = bits::<32>(1);
        if self.flow_table.resp_hit.val()
            | ((self.cmd_op.q.val() == 5) & self.flow_table.resp_entry.val().valid)
        {
            self.status_word.next = self.status_word.val() | 2;
        }
        if self.flow_table.resp_failed.val() | self.flow_table.resp_dropped.val() {
            self.status_word.next = self.status_word.val() | 4;
        }
        if self.flow_table.resp_sqp_valid.val() {
            self.status_word.next = self.status_word.val() | 8;
        }
        if self.flow_table.resp_pinned.val() {
            self.status_word.next = self.status_word.val() | 16;
        }
        if self.flow_table.resp_valid.val() & self.pipe[4].q.val().get_bit(194) {
            self.flow_status.d.next = self.status_word.val();
            self.flow_result_sqp.d.next = bit_cast::<32, 24>(self.flow_table.resp_sqp.val());
            self.flow_result_key.d.next = self.flow_table.resp_entry.val().key;
        }
        // Reset clears the last command's result with the table it described
        // (the table is flushed after reset), as FLOW_STATUS's reset value says.
        if self.reset_reg.q.val() {
            self.flow_status.d.next = 0.into();
            self.flow_result_sqp.d.next = 0.into();
            self.flow_result_key.d.next = 0.into();
        }
        // The result key in network-order words (its addresses are in lane order).
        for i in 0..8 {
            self.result_words[i].next = self.flow_result_key.q.val().get_bits::<32>(24 + 32 * i);
            self.result_swapped[i].next = (self.result_words[i].val() >> 24)
                | ((self.result_words[i].val() >> 8) & 0xFF00)
                | ((self.result_words[i].val() << 8) & 0xFF_0000)
                | (self.result_words[i].val() << 24);
        }

        // Second level.
        self.queue_kb.qd.next = self.queue_depth.q.val();
        self.location.next = (bit_cast::<16, 12>(self.flow_table.resp_bucket.val()) << 2)
            | bit_cast::<16, 2>(self.flow_table.resp_slot.val().get_bits::<2>(0));
        if self.flow_table.resp_in_stash.val() {
            self.location.next =
                bits::<16>(0x8000) | bit_cast::<16, 4>(self.flow_table.resp_slot.val());
        }
        self.bucket_depth.next = self.csr.values[16].val().get_bits::<4>(0);
        if self.csr.values[16].val() > 8 {
            self.bucket_depth.next = 8.into();
        }
        self.lh.enable.next = self.csr.values[4].val().get_bit(1);
        self.lh.growth_high.next = self.qgr_high.q.val() | self.meter.emr_high.val();
        self.lh.now_us.next = self.now_us.q.val();
        self.lh.qd.next = self.queue_kb.qd_out.val();
        self.lh.qd_kb.next = self.queue_kb.kb.val();
        self.lh.k_min.next = self.csr.values[10].val();
        self.lh.k_max.next = self.csr.values[11].val();
        self.lh.sev_action0.next = self.csr.values[18].val();
        self.lh.sev1_threshold.next = self.csr.values[19].val();
        self.lh.sev_action1.next = self.csr.values[20].val();
        self.lh.sev2_threshold.next = self.csr.values[21].val();
        self.lh.sev_action2.next = self.csr.values[22].val();
        self.lh.resume_action.next = self.csr.values[23].val();
        self.lh.interval_us.next = self.csr.values[13].val();
        if !self.csr.values[13].val().any() {
            self.lh.interval_us.next = self.csr.values[7].val();
        }
        self.lh.rtt_us.next = self.csr.values[7].val();
        self.lh.refill_clocks.next = self.csr.values[15].val();
        self.lh.bucket_depth.next = self.bucket_depth.val();
        self.lh.hide_metric.next = self.csr.values[17].val().get_bit(0);
        self.lh.ipv4_longhaul.next = self.csr.values[17].val().get_bit(1);
        self.lh.ipv6_longhaul.next = self.csr.values[17].val().get_bit(2);
        self.lh.tod.next = self.tod.now.val();
        self.lh.clear_counters.next = self.csr.values[5].val().get_bit(0);
        self.lh.res_valid.next = self.flow_table.resp_valid.val()
            & self.pipe[4].q.val().get_bit(193)
            & !self.flow_table.resp_dropped.val()
            & !self.flow_table.resp_failed.val();
        self.lh.res_sqp_valid.next = self.flow_table.resp_sqp_valid.val();
        // LH-10: the flow's rate fell in its last complete window.
        self.lh.res_fell.next = self.flow_table.resp_entry.val().notify_state.get_bit(0);
        self.lh.defer.next = self.csr.values[17].val().get_bit(3);
        // LH-06: the flow's bytes in this window (this packet's included).
        self.lh.res_top.next =
            self.flow_table.resp_entry.val().window_bytes >= self.top_threshold.q.val();
        self.lh.res_sqp.next = self.flow_table.resp_sqp.val();
        self.lh.res_location.next = self.location.val();
        self.lh.res_src_ip.next = self.pipe[4].q.val().get_bits::<128>(0);
        self.lh.res_src_mac.next = self.pipe[4].q.val().get_bits::<48>(128);
        self.lh.res_pkey.next = self.pipe[4].q.val().get_bits::<16>(176);
        self.lh.res_ipv6.next = self.pipe[4].q.val().get_bit(192);
        // LH-15: the format table looks the sender up alongside the flow
        // table (same latency): LH_FORMATi_PREFIX_0..3 are registers
        // 96 + 5i..99 + 5i, LH_FORMATi_CONTROL 100 + 5i.
        for i in 0..8 {
            for w in 0..4 {
                self.formats.prefix_words[4 * i + w].next = self.csr.values[96 + 5 * i + w].val();
            }
            self.formats.valid[i].next = self.csr.values[100 + 5 * i].val().get_bit(0);
            self.formats.format_code[i].next = self.csr.values[100 + 5 * i].val().get_bits::<2>(1);
            self.formats.prefix_len[i].next = self.csr.values[100 + 5 * i].val().get_bits::<8>(8);
        }
        // The proxy's flow-table reads (PX-02) look their sender up too.
        self.formats.addr_valid.next = self.data_req.val() | self.proxy_req.val();
        self.formats.addr.next = self.dc_hdr.src_ip.val();
        if !self.data_req.val() {
            self.formats.addr.next = self.proxy_tr.rd_sip.val();
        }
        self.lh.res_fmt_hit.next = self.formats.hit.val();
        self.lh.res_fmt.next = self.formats.format.val();
        // PX-01: the prefix -> proxy table's data port looks the sender up
        // two clocks before the answer (its latency); an untagged frame of
        // a covered sender goes to the CN generator while generation is on
        // (FEATURE_ENABLE.proxy_cn, PROXY_CONTROL.generate).
        self.proxy_table.d_addr.next = self.pipe[2].q.val().get_bits::<128>(0);
        self.lh.res_proxy.next = self.csr.values[4].val().get_bit(4)
            & self.csr.values[253].val().get_bit(2)
            & self.proxy_table.d_hit.val()
            & !self.pipe[4].q.val().get_bit(197);
        self.cn_gen.clear_counters.next = self.csr.values[5].val().get_bit(0);
        self.cn_gen.tap_tdata.next = self.dc_in.m.tdata.val();
        self.cn_gen.tap_tkeep.next = self.dc_in.m.tkeep.val();
        self.cn_gen.tap_tlast.next = self.dc_in.m.tlast.val();
        self.cn_gen.tap_take.next = self.dc_in.m.tvalid.val() & self.dc_mid_ready.val();
        self.cn_gen.hdr_valid.next = self.dc_hdr.valid.val();
        self.cn_gen.go.next = self.lh.px_go.val();
        self.cn_gen.go_ipv6.next = self.pipe[4].q.val().get_bit(192);
        self.cn_gen.go_level.next = self.lh.px_level.val();
        self.cn_gen.go_proxy.next = self.proxy_table.d_proxy.val();
        self.cn_gen.filter.next = self.csr.values[253].val().get_bit(1);
        self.cn_gen.dom0_prefix.next = self.fcn_rx.dom0_prefix.val();
        self.cn_gen.dom0_len.next = self.fcn_rx.dom0_len.val();
        self.cn_gen.dom0_valid.next = self.fcn_rx.dom0_valid.val();
        self.cn_gen.dom1_prefix.next = self.fcn_rx.dom1_prefix.val();
        self.cn_gen.dom1_len.next = self.fcn_rx.dom1_len.val();
        self.cn_gen.dom1_valid.next = self.fcn_rx.dom1_valid.val();
        self.cn_gen.refill_clocks.next = self.csr.values[294].val();
        self.px_depth.next = self.csr.values[295].val().get_bits::<4>(0);
        if self.csr.values[295].val() > 8 {
            self.px_depth.next = 8.into();
        }
        self.cn_gen.bucket_depth.next = self.px_depth.val();
        self.cn_gen.gw_mac.next = self.gw_mac.val();
        self.cn_gen.gw_ipv4.next = self.gw_ipv4.val().get_bits::<32>(96);
        self.cn_gen.gw_ipv6.next = self.gw_ipv6.val();
        self.cn_gen.dscp.next = self.csr.values[24].val().get_bits::<6>(0);
        self.cn_gen.udp_port.next = self.csr.values[254].val().get_bits::<16>(0);

        // RA-02: control intervals of RA_INTERVAL_US microseconds from
        // reset; the port's RoCEv2 bytes toward the WAN during each (like
        // LH-06's window bytes) and the queue the controller sees at its
        // last clock go to the law.
        self.ra_end.next =
            self.us_tick.val() & (self.ra_us.q.val() + 1 >= self.csr.values[304].val());
        if self.us_tick.val() {
            self.ra_us.d.next = self.ra_us.q.val() + 1;
        }
        self.ra_sum.next = bit_cast::<33, 32>(self.ra_bytes.q.val());
        if self.dc_hdr.valid.val() & (self.dc_hdr.class.val() == 1) {
            self.ra_sum.next = bit_cast::<33, 32>(self.ra_bytes.q.val())
                + bit_cast::<33, 16>(self.dc_frame_bytes.q.val());
        }
        if self.ra_sum.val().get_bit(32) {
            self.ra_sum.next = 0xFFFF_FFFF_u64.into();
        }
        self.ra_bytes.d.next = bit_cast::<32, 33>(self.ra_sum.val());
        if self.ra_end.val() {
            self.ra_us.d.next = 0.into();
            self.ra_bytes.d.next = 0.into();
        }
        self.ra_law.reset.next = self.reset_reg.q.val();
        self.ra_law.law.next = self.csr.values[301].val().get_bit(0);
        self.ra_law.start.next = self.ra_end.val();
        self.ra_law.arrived.next = bit_cast::<32, 33>(self.ra_sum.val());
        self.ra_law.depth.next = self.queue_kb.qd_out.val();
        self.ra_law.capacity.next = self.csr.values[303].val().get_bits::<20>(0);
        self.ra_law.interval.next = self.csr.values[304].val().get_bits::<24>(0);
        self.ra_law.alpha.next = self.csr.values[305].val().get_bits::<9>(0);
        self.ra_law.beta.next = self.csr.values[305].val().get_bits::<9>(16);
        self.ra_law.t_over_d.next = self.csr.values[306].val();
        self.ra_law.inv_dc.next = self.csr.values[307].val();
        self.ra_law.min_rate.next = self.csr.values[308].val();
        // RA-04 remote mode (RA_REMOTE_CONTROL 337; RA_DC_* 338..340;
        // RA_REMOTE_TIMEOUT_US 341; counters 342..344; RA_PEERn_* 345..364).
        self.ra_on.next = self.csr.values[4].val().get_bit(5);
        for i in 0..4 {
            self.peer_lanes[i].next = (self.csr.values[345 + i].val() >> 24)
                | ((self.csr.values[345 + i].val() >> 8) & 0xFF00)
                | ((self.csr.values[345 + i].val() << 8) & 0xFF_0000)
                | (self.csr.values[345 + i].val() << 24);
            self.peer_lanes[4 + i].next = (self.csr.values[349 + i].val() >> 24)
                | ((self.csr.values[349 + i].val() >> 8) & 0xFF00)
                | ((self.csr.values[349 + i].val() << 8) & 0xFF_0000)
                | (self.csr.values[349 + i].val() << 24);
            self.peer_lanes[8 + i].next = (self.csr.values[355 + i].val() >> 24)
                | ((self.csr.values[355 + i].val() >> 8) & 0xFF00)
                | ((self.csr.values[355 + i].val() << 8) & 0xFF_0000)
                | (self.csr.values[355 + i].val() << 24);
            self.peer_lanes[12 + i].next = (self.csr.values[359 + i].val() >> 24)
                | ((self.csr.values[359 + i].val() >> 8) & 0xFF00)
                | ((self.csr.values[359 + i].val() << 8) & 0xFF_0000)
                | (self.csr.values[359 + i].val() << 24);
        }
        self.peer0_addr.next = bit_cast::<128, 32>(self.peer_lanes[0].val())
            | (bit_cast::<128, 32>(self.peer_lanes[1].val()) << 32)
            | (bit_cast::<128, 32>(self.peer_lanes[2].val()) << 64)
            | (bit_cast::<128, 32>(self.peer_lanes[3].val()) << 96);
        self.peer1_addr.next = bit_cast::<128, 32>(self.peer_lanes[8].val())
            | (bit_cast::<128, 32>(self.peer_lanes[9].val()) << 32)
            | (bit_cast::<128, 32>(self.peer_lanes[10].val()) << 64)
            | (bit_cast::<128, 32>(self.peer_lanes[11].val()) << 96);
        // Egress role: the bytes of each frame entering wan_rx (like
        // dc_rx's), the RoCEv2 ones summed per control interval.
        self.wan_keep_count.next = 0.into();
        self.wan_acc_sum.next = bit_cast::<18, 17>(self.wan_acc.q.val());
        if self.wan_in.m.tvalid.val() & self.wan_filter.s.tready.val() {
            for i in 0..64 {
                if self.wan_in.m.tkeep.val().get_bit(i) {
                    self.wan_keep_count.next = self.wan_keep_count.val() + 1;
                }
            }
            self.wan_acc_sum.next = bit_cast::<18, 17>(self.wan_acc.q.val())
                + bit_cast::<18, 7>(self.wan_keep_count.val());
            if self.wan_acc_sum.val() > 0xFFFF {
                self.wan_acc_sum.next = 0xFFFF.into();
            }
            self.wan_acc.d.next = bit_cast::<17, 18>(self.wan_acc_sum.val());
            if self.wan_in.m.tlast.val() {
                self.wan_acc.d.next = 0.into();
                self.wan_frame_bytes.d.next = bit_cast::<16, 18>(self.wan_acc_sum.val());
            }
        }
        if self.qd_dc_valid.val() {
            self.dc_depth.d.next = self.qd_dc_bytes.val();
        }
        self.ra_dc_sum.next = bit_cast::<33, 32>(self.ra_dc_bytes.q.val());
        if self.wan_hdr.valid.val() & (self.wan_hdr.class.val() == 1) {
            self.ra_dc_sum.next = bit_cast::<33, 32>(self.ra_dc_bytes.q.val())
                + bit_cast::<33, 16>(self.wan_frame_bytes.q.val());
        }
        if self.ra_dc_sum.val().get_bit(32) {
            self.ra_dc_sum.next = 0xFFFF_FFFF_u64.into();
        }
        self.ra_dc_bytes.d.next = bit_cast::<32, 33>(self.ra_dc_sum.val());
        if self.ra_end.val() {
            self.ra_dc_bytes.d.next = 0.into();
        }
        self.ra_law_dc.reset.next = self.reset_reg.q.val();
        self.ra_law_dc.law.next = self.csr.values[301].val().get_bit(0);
        self.ra_law_dc.start.next = self.ra_end.val();
        self.ra_law_dc.arrived.next = bit_cast::<32, 33>(self.ra_dc_sum.val());
        self.ra_law_dc.depth.next = self.dc_depth.q.val();
        self.ra_law_dc.capacity.next = self.csr.values[338].val().get_bits::<20>(0);
        self.ra_law_dc.interval.next = self.csr.values[304].val().get_bits::<24>(0);
        self.ra_law_dc.alpha.next = self.csr.values[305].val().get_bits::<9>(0);
        self.ra_law_dc.beta.next = self.csr.values[305].val().get_bits::<9>(16);
        self.ra_law_dc.t_over_d.next = self.csr.values[306].val();
        self.ra_law_dc.inv_dc.next = self.csr.values[339].val();
        self.ra_law_dc.min_rate.next = self.csr.values[308].val();
        // The law's new rate is seen LAW_CLOCKS + 1 clocks after the
        // interval's end: then one message per valid peer waits for the
        // builder (a later interval's replaces one still waiting).
        if self.ra_end.val() {
            self.rs_wait.d.next = self.rs_wait_clocks.val();
        } else if self.rs_wait.q.val() != 0 {
            self.rs_wait.d.next = self.rs_wait.q.val() - 1;
        }
        self.rs_peer1.next = !self.rs_pend.q.val().get_bit(0);
        self.rs_dst.next = self.peer0_addr.val();
        if self.rs_peer1.val() {
            self.rs_dst.next = self.peer1_addr.val();
        }
        self.rs_v6.next = self.rs_dst.val().get_bits::<96>(0) != (bits::<96>(0xffff) << 80);
        self.rs_mask.next = 0.into();
        if self.csr.values[353].val().get_bit(0) {
            self.rs_mask.next = 1.into();
        }
        if self.csr.values[363].val().get_bit(0) {
            self.rs_mask.next = self.rs_mask.val() | 2;
        }
        // Source role: the peers' advice from wan_rx.
        self.ra_rx.reset.next = self.reset_reg.q.val();
        self.ra_rx.enable.next = self.ra_on.val() & self.csr.values[337].val().get_bit(1);
        self.ra_rx.others.next = self.fcn_rx.claim.val() | self.proxy_rx.claim.val();
        self.ra_rx.tdata.next = self.wan_in.m.tdata.val();
        self.ra_rx.tkeep.next = self.wan_in.m.tkeep.val();
        self.ra_rx.tlast.next = self.wan_in.m.tlast.val();
        self.ra_rx.tvalid.next = self.wan_in.m.tvalid.val();
        self.ra_rx.tready.next = self.wan_filter.s.tready.val();
        self.ra_rx.gw_ipv4.next = self.gw_ipv4.val().get_bits::<32>(96);
        self.ra_rx.gw_ipv6.next = self.gw_ipv6.val();
        self.ra_rx.opcode.next = self.csr.values[302].val().get_bits::<8>(0);
        self.ra_rx.peer0_addr.next = self.peer0_addr.val();
        self.ra_rx.peer0_valid.next = self.csr.values[353].val().get_bit(0);
        self.ra_rx.peer1_addr.next = self.peer1_addr.val();
        self.ra_rx.peer1_valid.next = self.csr.values[363].val().get_bit(0);
        self.ra_rx.now_us.next = self.now_us.q.val();
        self.ra_rx.timeout.next = self.csr.values[341].val();
        if self.ra_rx.received.val() {
            self.rr_received.d.next = self.rr_received.q.val() + 1;
        }
        if self.ra_rx.refused.val() {
            self.rr_refused.d.next = self.rr_refused.q.val() + 1;
        }
        if self.reset_reg.q.val() | self.csr.values[5].val().get_bit(0) {
            self.rr_received.d.next = 0.into();
            self.rr_refused.d.next = 0.into();
        }
        self.advisor.res_dst_ip.next = self.flow_table.resp_entry.val().key.get_bits::<128>(24);
        self.advisor.rem0_prefix.next = bit_cast::<128, 32>(self.peer_lanes[4].val())
            | (bit_cast::<128, 32>(self.peer_lanes[5].val()) << 32)
            | (bit_cast::<128, 32>(self.peer_lanes[6].val()) << 64)
            | (bit_cast::<128, 32>(self.peer_lanes[7].val()) << 96);
        self.advisor.rem0_len.next = self.csr.values[353].val().get_bits::<8>(8);
        self.advisor.rem0_live.next = self.ra_rx.peer0_live.val();
        self.advisor.rem0_mbps.next = self.ra_rx.peer0_mbps.val();
        self.advisor.rem1_prefix.next = bit_cast::<128, 32>(self.peer_lanes[12].val())
            | (bit_cast::<128, 32>(self.peer_lanes[13].val()) << 32)
            | (bit_cast::<128, 32>(self.peer_lanes[14].val()) << 64)
            | (bit_cast::<128, 32>(self.peer_lanes[15].val()) << 96);
        self.advisor.rem1_len.next = self.csr.values[363].val().get_bits::<8>(8);
        self.advisor.rem1_live.next = self.ra_rx.peer1_live.val();
        self.advisor.rem1_mbps.next = self.ra_rx.peer1_mbps.val();
        // RA-01/RA-03: the flow-table answer of a RoCEv2 frame from dc_rx
        // (the Long-haul controller's decision clock).
        for i in 0..4 {
            self.ra_lanes[i].next = (self.csr.values[315 + i].val() >> 24)
                | ((self.csr.values[315 + i].val() >> 8) & 0xFF00)
                | ((self.csr.values[315 + i].val() << 8) & 0xFF_0000)
                | (self.csr.values[315 + i].val() << 24);
            self.ra_lanes[4 + i].next = (self.csr.values[320 + i].val() >> 24)
                | ((self.csr.values[320 + i].val() >> 8) & 0xFF00)
                | ((self.csr.values[320 + i].val() << 8) & 0xFF_0000)
                | (self.csr.values[320 + i].val() << 24);
            self.ra_lanes[8 + i].next = (self.csr.values[325 + i].val() >> 24)
                | ((self.csr.values[325 + i].val() >> 8) & 0xFF00)
                | ((self.csr.values[325 + i].val() << 8) & 0xFF_0000)
                | (self.csr.values[325 + i].val() << 24);
            self.ra_lanes[12 + i].next = (self.csr.values[331 + i].val() >> 24)
                | ((self.csr.values[331 + i].val() >> 8) & 0xFF00)
                | ((self.csr.values[331 + i].val() << 8) & 0xFF_0000)
                | (self.csr.values[331 + i].val() << 24);
        }
        self.advisor.reset.next = self.reset_reg.q.val();
        self.advisor.enable.next = self.csr.values[4].val().get_bit(5);
        self.advisor.clear_counters.next = self.csr.values[5].val().get_bit(0);
        self.advisor.res_valid.next = self.lh.res_valid.val();
        self.advisor.res_inserted.next = self.flow_table.resp_inserted.val();
        self.advisor.res_sqp_valid.next = self.flow_table.resp_sqp_valid.val();
        self.advisor.res_sqp.next = self.flow_table.resp_sqp.val();
        self.advisor.res_location.next = self.location.val();
        self.advisor.res_dqp.next = self.flow_table.resp_entry.val().key.get_bits::<24>(0);
        self.advisor.res_src_ip.next = self.pipe[4].q.val().get_bits::<128>(0);
        self.advisor.res_src_mac.next = self.pipe[4].q.val().get_bits::<48>(128);
        self.advisor.res_pkey.next = self.pipe[4].q.val().get_bits::<16>(176);
        self.advisor.res_ipv6.next = self.pipe[4].q.val().get_bit(192);
        self.advisor.res_flagged.next =
            self.csr.values[301].val().get_bit(1) & self.pipe[4].q.val().get_bit(198);
        self.advisor.port_rate.next = self.ra_law.rate.val();
        self.advisor.now_us.next = self.now_us.q.val();
        self.advisor.spacing.next = self.csr.values[309].val();
        self.advisor.cap0_prefix.next = bit_cast::<128, 32>(self.ra_lanes[0].val())
            | (bit_cast::<128, 32>(self.ra_lanes[1].val()) << 32)
            | (bit_cast::<128, 32>(self.ra_lanes[2].val()) << 64)
            | (bit_cast::<128, 32>(self.ra_lanes[3].val()) << 96);
        self.advisor.cap0_len.next = self.csr.values[319].val().get_bits::<8>(8);
        self.advisor.cap0_valid.next = self.csr.values[319].val().get_bit(0);
        self.advisor.cap1_prefix.next = bit_cast::<128, 32>(self.ra_lanes[4].val())
            | (bit_cast::<128, 32>(self.ra_lanes[5].val()) << 32)
            | (bit_cast::<128, 32>(self.ra_lanes[6].val()) << 64)
            | (bit_cast::<128, 32>(self.ra_lanes[7].val()) << 96);
        self.advisor.cap1_len.next = self.csr.values[324].val().get_bits::<8>(8);
        self.advisor.cap1_valid.next = self.csr.values[324].val().get_bit(0);
        self.advisor.pol0_prefix.next = bit_cast::<128, 32>(self.ra_lanes[8].val())
            | (bit_cast::<128, 32>(self.ra_lanes[9].val()) << 32)
            | (bit_cast::<128, 32>(self.ra_lanes[10].val()) << 64)
            | (bit_cast::<128, 32>(self.ra_lanes[11].val()) << 96);
        self.advisor.pol0_len.next = self.csr.values[329].val().get_bits::<8>(8);
        self.advisor.pol0_valid.next = self.csr.values[329].val().get_bit(0);
        self.advisor.pol0_mbps.next = self.csr.values[330].val();
        self.advisor.pol1_prefix.next = bit_cast::<128, 32>(self.ra_lanes[12].val())
            | (bit_cast::<128, 32>(self.ra_lanes[13].val()) << 32)
            | (bit_cast::<128, 32>(self.ra_lanes[14].val()) << 64)
            | (bit_cast::<128, 32>(self.ra_lanes[15].val()) << 96);
        self.advisor.pol1_len.next = self.csr.values[335].val().get_bits::<8>(8);
        self.advisor.pol1_valid.next = self.csr.values[335].val().get_bit(0);
        self.advisor.pol1_mbps.next = self.csr.values[336].val();

        // Notification frames: Long-haul CNP jobs first, then Fast CNPs,
        // then the ingress PE's standard CNPs from received Fast CNPs, the
        // proxy's, and last Rate Advice messages.
        self.builder.job_valid.next = self.lh.job_valid.val()
            | self.fcn.job_valid.val()
            | self.fcn_tr.job_valid.val()
            | self.proxy_tr.job_valid.val()
            | self.advisor.job_valid.val()
            | self.rs_pend.q.val().any();
        self.lh.job_ready.next = self.builder.job_ready.val();
        self.fcn.job_ready.next = self.builder.job_ready.val() & !self.lh.job_valid.val();
        self.fcn_tr.job_ready.next =
            self.builder.job_ready.val() & !self.lh.job_valid.val() & !self.fcn.job_valid.val();
        self.proxy_tr.job_ready.next = self.builder.job_ready.val()
            & !self.lh.job_valid.val()
            & !self.fcn.job_valid.val()
            & !self.fcn_tr.job_valid.val();
        self.advisor.job_ready.next = self.builder.job_ready.val()
            & !self.lh.job_valid.val()
            & !self.fcn.job_valid.val()
            & !self.fcn_tr.job_valid.val()
            & !self.proxy_tr.job_valid.val();
        // RA-04: the remote advice to the peers, last of all.
        self.rs_take.next = self.builder.job_ready.val()
            & !self.lh.job_valid.val()
            & !self.fcn.job_valid.val()
            & !self.fcn_tr.job_valid.val()
            & !self.proxy_tr.job_valid.val()
            & !self.advisor.job_valid.val()
            & self.rs_pend.q.val().any();
        // RA_REMOTE_SENT counts messages as they leave.
        if self.builder.w_sent.val() {
            self.rs_count.d.next = self.rs_count.q.val() + 1;
        }
        if self.rs_take.val() {
            if self.rs_peer1.val() {
                self.rs_pend.d.next = 0.into();
            } else {
                self.rs_pend.d.next = self.rs_pend.q.val() & 2;
            }
        }
        if (self.rs_wait.q.val() == 1) & self.ra_on.val() & self.csr.values[337].val().get_bit(0) {
            self.rs_pend.d.next = self.rs_mask.val();
            self.rs_rate.d.next = self.ra_law_dc.rate.val();
        }
        if self.reset_reg.q.val() {
            self.rs_wait.d.next = 0.into();
            self.rs_pend.d.next = 0.into();
        }
        if self.reset_reg.q.val() | self.csr.values[5].val().get_bit(0) {
            self.rs_count.d.next = 0.into();
        }
        self.fcn.gw_ipv6.next = self.gw_ipv6.val();
        self.fcn_rx.gw_ipv6.next = self.gw_ipv6.val();
        self.proxy_rx.gw_ipv4.next = self.gw_ipv4.val().get_bits::<32>(96);
        self.proxy_rx.gw_ipv6.next = self.gw_ipv6.val();
        // PE-02/PE-06 decapsulation settings and counters.
        self.decap.reset.next = self.reset_reg.q.val();
        self.decap.pe_ipv6.next = self.gw_ipv6.val();
        self.decap.pe_src_mac.next = self.gw_mac.val();
        self.tunnel_lanes[0].next =
            (self.csr.values[199].val() >> 8) & 0xFF | ((self.csr.values[199].val() << 8) & 0xFF00);
        self.tunnel_lanes[1].next = (self.csr.values[200].val() >> 24)
            | ((self.csr.values[200].val() >> 8) & 0xFF00)
            | ((self.csr.values[200].val() << 8) & 0xFF_0000)
            | (self.csr.values[200].val() << 24);
        self.decap.pe_dst_mac.next = bit_cast::<48, 32>(self.tunnel_lanes[0].val())
            | (bit_cast::<48, 32>(self.tunnel_lanes[1].val()) << 16);
        self.decap.pre_ecn.next = !self.csr.values[198].val().get_bit(1);
        self.decap_counts[0].d.next = self.decap_counts[0].q.val();
        if self.decap.decap_vxlan.val() {
            self.decap_counts[0].d.next = self.decap_counts[0].q.val() + 1;
        }
        self.decap_counts[1].d.next = self.decap_counts[1].q.val();
        if self.decap.decap_srv6.val() {
            self.decap_counts[1].d.next = self.decap_counts[1].q.val() + 1;
        }
        self.decap_counts[2].d.next = self.decap_counts[2].q.val();
        if self.decap.ecn_dropped.val() {
            self.decap_counts[2].d.next = self.decap_counts[2].q.val() + 1;
        }
        self.decap_counts[3].d.next = self.decap_counts[3].q.val();
        if self.decap.light.val() {
            self.decap_counts[3].d.next = self.decap_counts[3].q.val() + 1;
        }
        self.decap_counts[4].d.next = self.decap_counts[4].q.val();
        if self.decap.alarm.val() {
            self.decap_counts[4].d.next = self.decap_counts[4].q.val() + 1;
        }
        self.decap_counts[5].d.next = self.decap_counts[5].q.val();
        if self.decap.runt_dropped.val() {
            self.decap_counts[5].d.next = self.decap_counts[5].q.val() + 1;
        }
        if self.reset_reg.q.val() | self.csr.values[5].val().get_bit(0) {
            for i in 0..6 {
                self.decap_counts[i].d.next = 0.into();
            }
        }
        // FCN-02/PE-01: the ingress PE's tunnel (TUNNEL_CONTROL bits 3..5,
        // TUNNEL_NEXT_HOP_MAC_*, _REMOTE_*, _VNI, _UDP_SPORT, _HOP_LIMIT,
        // _MTU, _SID0_*, _SID1_*: registers 207..224) and counters.
        self.tun_lanes[0].next =
            (self.csr.values[207].val() >> 8) & 0xFF | ((self.csr.values[207].val() << 8) & 0xFF00);
        self.tun_lanes[1].next = (self.csr.values[208].val() >> 24)
            | ((self.csr.values[208].val() >> 8) & 0xFF00)
            | ((self.csr.values[208].val() << 8) & 0xFF_0000)
            | (self.csr.values[208].val() << 24);
        for i in 0..4 {
            self.tun_lanes[2 + i].next = (self.csr.values[209 + i].val() >> 24)
                | ((self.csr.values[209 + i].val() >> 8) & 0xFF00)
                | ((self.csr.values[209 + i].val() << 8) & 0xFF_0000)
                | (self.csr.values[209 + i].val() << 24);
            self.tun_lanes[6 + i].next = (self.csr.values[217 + i].val() >> 24)
                | ((self.csr.values[217 + i].val() >> 8) & 0xFF00)
                | ((self.csr.values[217 + i].val() << 8) & 0xFF_0000)
                | (self.csr.values[217 + i].val() << 24);
            self.tun_lanes[10 + i].next = (self.csr.values[221 + i].val() >> 24)
                | ((self.csr.values[221 + i].val() >> 8) & 0xFF00)
                | ((self.csr.values[221 + i].val() << 8) & 0xFF_0000)
                | (self.csr.values[221 + i].val() << 24);
            self.tun_lanes[14 + i].next = (self.csr.values[231 + i].val() >> 24)
                | ((self.csr.values[231 + i].val() >> 8) & 0xFF00)
                | ((self.csr.values[231 + i].val() << 8) & 0xFF_0000)
                | (self.csr.values[231 + i].val() << 24);
            self.tun_lanes[18 + i].next = (self.csr.values[235 + i].val() >> 24)
                | ((self.csr.values[235 + i].val() >> 8) & 0xFF00)
                | ((self.csr.values[235 + i].val() << 8) & 0xFF_0000)
                | (self.csr.values[235 + i].val() << 24);
        }
        self.encap.tun_srv6.next = self.csr.values[198].val().get_bit(3);
        self.encap.tun_two_sids.next = self.csr.values[198].val().get_bit(4);
        if self.shaper.m_alt.val() {
            self.encap.tun_two_sids.next = self.csr.values[239].val().get_bit(2);
        }
        self.encap.tun_compat.next = self.csr.values[198].val().get_bit(5);
        // RA-04: the remote advice goes to the same WAN next hop.
        self.next_hop_mac.next = bit_cast::<48, 32>(self.tun_lanes[0].val())
            | (bit_cast::<48, 32>(self.tun_lanes[1].val()) << 16);
        self.encap.tun_dst_mac.next = bit_cast::<48, 32>(self.tun_lanes[0].val())
            | (bit_cast::<48, 32>(self.tun_lanes[1].val()) << 16);
        self.encap.tun_src_mac.next = self.gw_mac.val();
        self.encap.tun_src_ipv6.next = self.gw_ipv6.val();
        self.encap.tun_remote_ipv6.next = bit_cast::<128, 32>(self.tun_lanes[2].val())
            | (bit_cast::<128, 32>(self.tun_lanes[3].val()) << 32)
            | (bit_cast::<128, 32>(self.tun_lanes[4].val()) << 64)
            | (bit_cast::<128, 32>(self.tun_lanes[5].val()) << 96);
        self.encap.tun_sid0.next = bit_cast::<128, 32>(self.tun_lanes[6].val())
            | (bit_cast::<128, 32>(self.tun_lanes[7].val()) << 32)
            | (bit_cast::<128, 32>(self.tun_lanes[8].val()) << 64)
            | (bit_cast::<128, 32>(self.tun_lanes[9].val()) << 96);
        self.encap.tun_sid1.next = bit_cast::<128, 32>(self.tun_lanes[10].val())
            | (bit_cast::<128, 32>(self.tun_lanes[11].val()) << 32)
            | (bit_cast::<128, 32>(self.tun_lanes[12].val()) << 64)
            | (bit_cast::<128, 32>(self.tun_lanes[13].val()) << 96);
        // PE-05: a frame the shaper sends on the alternate path takes the
        // alternate segment list (TUNNEL_ALT_SID*, PE_SHAPER_CONTROL bit 2).
        if self.shaper.m_alt.val() {
            self.encap.tun_sid0.next = bit_cast::<128, 32>(self.tun_lanes[14].val())
                | (bit_cast::<128, 32>(self.tun_lanes[15].val()) << 32)
                | (bit_cast::<128, 32>(self.tun_lanes[16].val()) << 64)
                | (bit_cast::<128, 32>(self.tun_lanes[17].val()) << 96);
            self.encap.tun_sid1.next = bit_cast::<128, 32>(self.tun_lanes[18].val())
                | (bit_cast::<128, 32>(self.tun_lanes[19].val()) << 32)
                | (bit_cast::<128, 32>(self.tun_lanes[20].val()) << 64)
                | (bit_cast::<128, 32>(self.tun_lanes[21].val()) << 96);
        }
        // PE-05: the shaper's registers (239..244).
        self.shaper.us_tick.next = self.us_tick.val();
        self.shaper.enable.next = self.csr.values[239].val().get_bit(0);
        self.shaper.alt_enable.next = self.csr.values[239].val().get_bit(1);
        self.shaper.cut_shift.next = self.csr.values[239].val().get_bits::<4>(8);
        self.shaper.max_rate.next = self.csr.values[240].val().get_bits::<16>(0);
        self.shaper.min_rate.next = self.csr.values[240].val().get_bits::<16>(16);
        self.shaper.recover_us.next = self.csr.values[241].val().get_bits::<16>(0);
        self.shaper.recover_step.next = self.csr.values[241].val().get_bits::<16>(16);
        self.shaper.burst.next = self.csr.values[242].val().get_bits::<24>(0);
        self.shaper.alt_below.next = self.csr.values[243].val().get_bits::<16>(0);
        self.shaper.alt_above.next = self.csr.values[243].val().get_bits::<16>(16);
        self.shaper.probe_slot.next = self.csr.values[244].val().get_bits::<3>(0);
        self.shaper.clear_counters.next = self.csr.values[5].val().get_bit(0);
        // A free slot reads 0 in every probe register (its other fields
        // keep whatever its last flow left).
        self.probe_state.next = 0.into();
        if self.shaper.probe_used.val() {
            self.probe_state.next = (bit_cast::<32, 16>(self.shaper.probe_rate.val()) << 16)
                | (bit_cast::<32, 9>(self.shaper.probe_waiting.val()) << 4)
                | 1;
        }
        if self.shaper.probe_used.val() & self.shaper.probe_alt.val() {
            self.probe_state.next = (bit_cast::<32, 16>(self.shaper.probe_rate.val()) << 16)
                | (bit_cast::<32, 9>(self.shaper.probe_waiting.val()) << 4)
                | 3;
        }
        self.probe_label.next = 0.into();
        self.probe_tokens.next = 0.into();
        if self.shaper.probe_used.val() {
            self.probe_label.next = bit_cast::<32, 20>(self.shaper.probe_label.val());
            self.probe_tokens.next = bit_cast::<32, 26>(self.shaper.probe_tokens.val());
        }
        if self.shaper.probe_used.val() & self.shaper.probe_tokens.val().get_bit(25) {
            self.probe_tokens.next =
                bit_cast::<32, 26>(self.shaper.probe_tokens.val()) | (bits::<32>(0x3F) << 26);
        }
        self.encap.tun_vni.next = self.csr.values[213].val().get_bits::<24>(0);
        self.encap.tun_udp_base.next = self.csr.values[214].val().get_bits::<16>(0);
        self.encap.tun_udp_mask.next = self.csr.values[214].val().get_bits::<16>(16);
        self.encap.tun_hop_limit.next = self.csr.values[215].val().get_bits::<8>(0);
        self.encap.tun_mtu.next = self.csr.values[216].val().get_bits::<16>(0);
        self.encap_counts[0].d.next = self.encap_counts[0].q.val();
        if self.encap.encapsulated.val() {
            self.encap_counts[0].d.next = self.encap_counts[0].q.val() + 1;
        }
        self.encap_counts[1].d.next = self.encap_counts[1].q.val();
        if self.encap.dropped_not_ip.val() {
            self.encap_counts[1].d.next = self.encap_counts[1].q.val() + 1;
        }
        self.encap_counts[2].d.next = self.encap_counts[2].q.val();
        if self.encap.dropped_mtu.val() {
            self.encap_counts[2].d.next = self.encap_counts[2].q.val() + 1;
        }
        self.encap_counts[3].d.next = self.encap_counts[3].q.val();
        if self.encap.trimmed.val() {
            self.encap_counts[3].d.next = self.encap_counts[3].q.val() + 1;
        }
        self.encap_counts[4].d.next = self.encap_counts[4].q.val();
        if self.encap.truncated.val() {
            self.encap_counts[4].d.next = self.encap_counts[4].q.val() + 1;
        }
        self.encap_counts[5].d.next = self.encap_counts[5].q.val();
        if self.ingress_q.cut.val() {
            self.encap_counts[5].d.next = self.encap_counts[5].q.val() + 1;
        }
        if self.reset_reg.q.val() | self.csr.values[5].val().get_bit(0) {
            for i in 0..6 {
                self.encap_counts[i].d.next = 0.into();
            }
        }
        self.builder.job_kind.next = self.lh.job_kind.val();
        self.builder.job_ipv6.next = self.lh.job_ipv6.val();
        self.builder.job_dst_mac.next = self.lh.job_dst_mac.val();
        self.builder.job_src_mac.next = self.gw_mac.val();
        self.builder.job_dst_ip.next = self.lh.job_dst_ip.val();
        self.builder.job_src_ip.next = self.gw_ipv4.val();
        if self.lh.job_ipv6.val() {
            self.builder.job_src_ip.next = self.gw_ipv6.val();
        }
        self.builder.job_dscp.next = self.csr.values[24].val().get_bits::<6>(0);
        self.builder.job_pkey.next = self.lh.job_pkey.val();
        self.builder.job_dqp.next = self.lh.job_dqp.val();
        self.builder.job_body.next = self.lh.job_body.val();
        self.builder.job_icmp_type.next = self.csr.values[79].val().get_bits::<8>(0);
        // LH-12/LH-13 extension objects (LH_EXT_*), identifiers in lane order.
        self.builder.job_timestamp.next = self.lh.job_timestamp.val();
        self.builder.job_flow_label.next = 0.into();
        self.builder.job_rate_advice.next = false;
        self.builder.job_wan.next = false;
        self.builder.job_opcode.next = self.csr.values[302].val().get_bits::<8>(0);
        if !self.lh.job_valid.val() {
            self.builder.job_kind.next = 3.into();
            self.builder.job_dst_mac.next = self.fcn.job_dst_mac.val();
            self.builder.job_dst_ip.next = self.fcn.job_dst_ip.val();
            self.builder.job_src_ip.next = self.gw_ipv6.val();
            self.builder.job_body.next = self.fcn.job_body.val();
            self.builder.job_flow_label.next = self.fcn.job_flow_label.val();
            if !self.fcn.job_valid.val() {
                // FCN-05: a standard CNP (kind 0) to the flow's sender, its
                // DestQP the flow's source QP, default P_Key.
                self.builder.job_kind.next = 0.into();
                self.builder.job_ipv6.next = self.fcn_tr.job_ipv6.val();
                self.builder.job_dst_mac.next = self.fcn_cnp_mac.val();
                self.builder.job_dst_ip.next = self.fcn_tr.job_dst_ip.val();
                self.builder.job_src_ip.next = self.gw_ipv4.val();
                if self.fcn_tr.job_ipv6.val() {
                    self.builder.job_src_ip.next = self.gw_ipv6.val();
                }
                self.builder.job_pkey.next = 0xFFFF.into();
                self.builder.job_dqp.next = self.fcn_tr.job_dqp.val();
                self.builder.job_flow_label.next = 0.into();
                if !self.fcn_tr.job_valid.val() {
                    // PX-02: the proxy's standard CNP, built alike, or
                    // the Long-haul CNP the format table names.
                    self.builder.job_kind.next = self.proxy_tr.job_kind.val();
                    self.builder.job_body.next = self.proxy_tr.job_body.val();
                    self.builder.job_timestamp.next = self.proxy_tr.job_timestamp.val();
                    self.builder.job_ipv6.next = self.proxy_tr.job_ipv6.val();
                    self.builder.job_dst_ip.next = self.proxy_tr.job_dst_ip.val();
                    self.builder.job_src_ip.next = self.gw_ipv4.val();
                    if self.proxy_tr.job_ipv6.val() {
                        self.builder.job_src_ip.next = self.gw_ipv6.val();
                    }
                    self.builder.job_dqp.next = self.proxy_tr.job_dqp.val();
                    if !self.proxy_tr.job_valid.val() {
                        // RA-03: a Rate Advice message to the sender.
                        self.builder.job_kind.next = 0.into();
                        self.builder.job_rate_advice.next = true;
                        self.builder.job_ipv6.next = self.advisor.job_ipv6.val();
                        self.builder.job_dst_mac.next = self.advisor.job_dst_mac.val();
                        self.builder.job_dst_ip.next = self.advisor.job_dst_ip.val();
                        self.builder.job_src_ip.next = self.gw_ipv4.val();
                        if self.advisor.job_ipv6.val() {
                            self.builder.job_src_ip.next = self.gw_ipv6.val();
                        }
                        self.builder.job_pkey.next = self.advisor.job_pkey.val();
                        self.builder.job_dqp.next = self.advisor.job_dqp.val();
                        self.builder.job_body.next = self.advisor.job_body.val();
                        if !self.advisor.job_valid.val() {
                            // RA-04: the data-centre port's advice to a
                            // peer gateway, on wan_tx.
                            self.builder.job_wan.next = true;
                            self.builder.job_dst_mac.next = self.next_hop_mac.val();
                            self.builder.job_dst_ip.next = self.rs_dst.val();
                            self.builder.job_ipv6.next = self.rs_v6.val();
                            self.builder.job_src_ip.next = self.gw_ipv4.val();
                            if self.rs_v6.val() {
                                self.builder.job_src_ip.next = self.gw_ipv6.val();
                            }
                            self.builder.job_pkey.next = 0xFFFF.into();
                            self.builder.job_dqp.next = 0.into();
                            self.builder.job_body.next =
                                bit_cast::<96, 8>(self.rs_rate.q.val().get_bits::<8>(24))
                                    | (bit_cast::<96, 8>(self.rs_rate.q.val().get_bits::<8>(16))
                                        << 8)
                                    | (bit_cast::<96, 8>(self.rs_rate.q.val().get_bits::<8>(8))
                                        << 16)
                                    | (bit_cast::<96, 8>(self.rs_rate.q.val().get_bits::<8>(0))
                                        << 24);
                        }
                    }
                }
            }
        }
        for i in 0..6 {
            self.ext_lanes[i].next = (self.csr.values[137 + i].val() >> 24)
                | ((self.csr.values[137 + i].val() >> 8) & 0xFF00)
                | ((self.csr.values[137 + i].val() << 8) & 0xFF_0000)
                | (self.csr.values[137 + i].val() << 24);
        }
        self.ext_device_id.next = bit_cast::<128, 32>(self.ext_lanes[0].val())
            | (bit_cast::<128, 32>(self.ext_lanes[1].val()) << 32)
            | (bit_cast::<128, 32>(self.ext_lanes[2].val()) << 64)
            | (bit_cast::<128, 32>(self.ext_lanes[3].val()) << 96);
        self.ext_path_id.next = bit_cast::<64, 32>(self.ext_lanes[4].val())
            | (bit_cast::<64, 32>(self.ext_lanes[5].val()) << 32);
        self.builder.ext_enable.next = self.csr.values[136].val().get_bits::<3>(0);
        self.builder.ext_class_num.next = self.csr.values[136].val().get_bits::<8>(8);
        self.builder.ext_device_id_len.next = self.csr.values[136].val().get_bits::<5>(16);
        self.builder.ext_path_id_len.next = self.csr.values[136].val().get_bits::<4>(24);
        self.builder.ext_device_id.next = self.ext_device_id.val();
        self.builder.ext_path_id.next = self.ext_path_id.val();
        if self.dc_tx_mux.b.tvalid.val()
            & self.dc_tx_mux.b.tready.val()
            & self.dc_tx_mux.b.tlast.val()
        {
            self.notify_count.d.next = self.notify_count.q.val() + 1;
        }
        if self.reset_reg.q.val() | self.csr.values[5].val().get_bit(0) {
            self.notify_count.d.next = 0.into();
        }

        // CSR.
        AxiLiteSlave::link(&mut self.s_axil, &mut self.csr.s_axil);
        for i in 0..REGISTERS.len() {
            self.csr.status[i].next = 0.into();
        }
        // LH-02: the depth the gateway acts on is the telemetry input's or,
        // with PORT0_METER_CONTROL.internal_queue, the virtual queue's.
        if self.qd_ext_valid.val() {
            self.ext_depth.d.next = self.qd_ext_bytes.val();
            self.queue_depth.d.next = self.qd_ext_bytes.val();
        } else {
            self.queue_depth.d.next = self.ext_depth.q.val();
        }
        if self.csr.values[88].val().get_bit(0) {
            self.queue_depth.d.next = self.meter.vq_depth.val();
        }
        if self.reset_reg.q.val() {
            self.queue_depth.d.next = 0.into();
            self.ext_depth.d.next = 0.into();
        }
        self.csr.status[12].next = self.queue_depth.q.val();
        self.csr.status[90].next = self.meter.vq_depth.val();
        self.csr.status[92].next = self.meter.avg.val();
        self.csr.status[95].next = self.meter.emr_q16.val();
        self.csr.status[151].next = self.lh.not_top.val();
        self.csr.status[152].next = self.port_prev.q.val();
        self.csr.status[153].next = self.lh.deferred.val();
        self.csr.status[32].next = self.dc_counters.rx_frames.val();
        self.csr.status[33].next = self.dc_counters.roce_frames.val();
        self.csr.status[34].next = self.dc_counters.non_roce_frames.val();
        self.csr.status[35].next = self.dc_counters.malformed_frames.val();
        self.csr.status[36].next = self.dc_counters.tx_frames.val();
        self.csr.status[37].next = self.wan_counters.rx_frames.val();
        self.csr.status[38].next = self.wan_counters.roce_frames.val();
        self.csr.status[39].next = self.wan_counters.non_roce_frames.val();
        self.csr.status[40].next = self.wan_counters.malformed_frames.val();
        self.csr.status[41].next = self.wan_counters.tx_frames.val();
        self.csr.status[42].next = self.ce_marked_count.q.val();
        self.csr.status[43].next = self.lh.cnp_sent.val();
        self.csr.status[44].next = self.lh.resume_sent.val();
        self.csr.status[45].next = self.lh.suppressed.val();
        self.csr.status[46].next = self.lh.rate_limited.val();
        self.csr.status[47].next = self.lh.tracker_full.val();
        self.csr.status[48].next = self.lh.no_sqp.val();
        self.csr.status[49].next = self.notify_count.q.val();
        self.csr.status[61].next = self.flow_status.q.val();
        self.csr.status[62].next = self.flow_result_sqp.q.val();
        self.csr.status[63].next = self.flow_table.occupancy.val();
        self.csr.status[64].next = self.flow_table.learned.val();
        self.csr.status[65].next = self.flow_table.insert_failures.val();
        self.csr.status[66].next = self.flow_table.lookups_without_sqp.val();
        self.csr.status[69].next = self.flow_table.aged.val();
        self.csr.status[82].next = self.qgr_growth.q.val();
        self.csr.status[70].next = self.result_swapped[4].val();
        self.csr.status[71].next = self.result_swapped[5].val();
        self.csr.status[72].next = self.result_swapped[6].val();
        self.csr.status[73].next = self.result_swapped[7].val();
        self.csr.status[74].next = self.result_swapped[0].val();
        self.csr.status[75].next = self.result_swapped[1].val();
        self.csr.status[76].next = self.result_swapped[2].val();
        self.csr.status[77].next = self.result_swapped[3].val();
        self.csr.status[78].next =
            bit_cast::<32, 24>(self.flow_result_key.q.val().get_bits::<24>(0));
        self.csr.status[84].next = self.learner.bindings.val();
        self.csr.status[85].next = self.learner.req_evictions.val();
        self.csr.status[86].next = self.learner.rep_unmatched.val();
        self.csr.status[87].next = self.learner.queue_drops.val();
        self.csr.status[155].next = self.psn_pairer.bindings.val();
        self.csr.status[156].next = self.psn_pairer.ambiguous.val();
        self.csr.status[157].next = self.psn_pairer.evictions.val();
        self.csr.status[158].next = self.psn_pairer.queue_drops.val();
        self.csr.status[164].next = self.pe_ect1_count.q.val();
        self.csr.status[165].next = self.pe_ce_count.q.val();
        self.csr.status[166].next = bit_cast::<32, 17>(self.two_threshold.p_ect1.val());
        self.csr.status[167].next = bit_cast::<32, 17>(self.two_threshold.p_ce.val());
        self.csr.status[172].next = self.fcn.sent.val();
        self.csr.status[173].next = self.fcn.rate_limited.val();
        self.csr.status[174].next = self.fcn.no_label.val();
        self.csr.status[175].next = self.fcn.queue_drops.val();
        self.csr.status[190].next = self.fcn_rx_count.q.val();
        self.csr.status[191].next = self.fcn_tr.cnp_sent.val();
        self.csr.status[192].next = self.fcn_tr.malformed.val();
        self.csr.status[193].next = self.fcn_tr.out_of_domain.val();
        self.csr.status[194].next = self.fcn_tr.unknown_label.val();
        self.csr.status[195].next = self.fcn_tr.rate_limited.val();
        self.csr.status[196].next = self.fcn_tr.queue_drops.val();
        self.csr.status[197].next = self.fcn_tr.no_sqp.val();
        for i in 0..6 {
            self.csr.status[201 + i].next = self.decap_counts[i].q.val();
            self.csr.status[225 + i].next = self.encap_counts[i].q.val();
        }
        self.csr.status[245].next = self.probe_state.val();
        self.csr.status[246].next = self.probe_label.val();
        self.csr.status[247].next = self.probe_tokens.val();
        self.csr.status[248].next = self.shaper.shaped_frames.val();
        self.csr.status[249].next = self.shaper.notes_taken.val();
        self.csr.status[250].next = self.shaper.notes_dropped.val();
        self.csr.status[251].next = self.shaper.reroutes.val();
        self.csr.status[252].next = self.shaper.returns.val();
        self.csr.status[257].next = self.proxy_rx_count.q.val();
        self.csr.status[258].next = self.proxy_busy_count.q.val();
        self.csr.status[259].next = self.proxy_tr.cnp_sent.val();
        self.csr.status[260].next = self.proxy_tr.malformed.val();
        self.csr.status[261].next = self.proxy_tr.out_of_domain.val();
        self.csr.status[262].next = self.proxy_tr.not_roce.val();
        self.csr.status[263].next = self.proxy_tr.no_bth.val();
        self.csr.status[264].next = self.proxy_tr.mismatch.val();
        self.csr.status[265].next = self.proxy_tr.rate_limited.val();
        self.csr.status[266].next = self.proxy_tr.queue_drops.val();
        self.csr.status[267].next = self.proxy_tr.unknown_flow.val();
        self.csr.status[268].next = self.proxy_tr.no_sqp.val();
        for i in 0..4 {
            self.csr.status[280 + i].next =
                self.proxy_table.rd_prefix.val().get_bits::<32>(96 - 32 * i);
            self.csr.status[284 + i].next =
                self.proxy_table.rd_addr.val().get_bits::<32>(96 - 32 * i);
        }
        self.csr.status[288].next = bit_cast::<32, 1>(self.proxy_table.rd_valid.val().into())
            | (bit_cast::<32, 8>(self.proxy_table.rd_len.val()) << 8);
        self.csr.status[293].next = bit_cast::<32, 1>(self.proxy_table.hit.val().into())
            | (bit_cast::<32, 4>(self.proxy_table.hit_index.val()) << 8);
        self.csr.status[296].next = self.cn_gen.sent.val();
        self.csr.status[297].next = self.cn_gen.out_of_domain.val();
        self.csr.status[298].next = self.cn_gen.busy.val();
        self.csr.status[299].next = self.cn_gen.rate_limited.val();
        self.csr.status[300].next = self.cn_gen.queue_drops.val();
        self.csr.status[310].next = self.ra_law.rate.val();
        self.csr.status[311].next = self.advisor.sent.val();
        self.csr.status[312].next = self.advisor.held.val();
        self.csr.status[313].next = self.advisor.no_sqp.val();
        self.csr.status[314].next = self.advisor.queue_drops.val();
        self.csr.status[340].next = self.ra_law_dc.rate.val();
        self.csr.status[342].next = self.rs_count.q.val();
        self.csr.status[343].next = self.rr_received.q.val();
        self.csr.status[344].next = self.rr_refused.q.val();
        self.csr.status[354].next = self.ra_rx.peer0_mbps.val();
        self.csr.status[364].next = self.ra_rx.peer1_mbps.val();
        self.csr.status[147].next = self.tod.captured.val().get_bits::<32>(32);
        self.csr.status[148].next = self.tod.captured.val().get_bits::<32>(0);
    }
}

// The format table answers with the flow table (the five `pipe` stages).
const _: () = assert!(crate::lh::format_table::LATENCY == 5);

/// The gateway's Verilog, as rust-hdl emits it (top module `top`).
pub fn gateway_verilog() -> String {
    let mut uut = Gateway::default();
    uut.connect_all();
    crate::verilog::restructure(&generate_verilog(&uut))
        .unwrap_or_else(|e| panic!("cannot restructure the gateway's Verilog: {e}"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn hw_01_gateway_emits_verilog() {
        let v = super::gateway_verilog();
        std::fs::write(std::env::temp_dir().join("cngw_gateway.v"), &v).unwrap();
        assert!(v.contains("module top"));
    }
}
