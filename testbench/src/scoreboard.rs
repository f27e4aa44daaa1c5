//! Compares what the RTL did with what the reference model says, frame for
//! frame, parser result for parser result and counter for counter.

use crate::harness::Capture;
use cngw_model::{Frame, GatewayModel, InPort, OutPort};
use cngw_packet::parsed::{FrameClass, ParsedHeader};
use cngw_regmap::offset;
use cngw_sim::Gateway;
use std::collections::BTreeMap;
use std::fmt;

/// The first difference between RTL and model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mismatch {
    Timeout,
    FrameCount {
        port: OutPort,
        rtl: usize,
        model: usize,
    },
    FrameBytes {
        port: OutPort,
        index: usize,
        rtl: Frame,
        model: Frame,
    },
    ParsedCount {
        port: InPort,
        rtl: usize,
        model: usize,
    },
    Parsed {
        port: InPort,
        index: usize,
        rtl: ParsedHeader,
        model: ParsedHeader,
    },
    Counter {
        name: &'static str,
        rtl: Option<u32>,
        model: u32,
    },
    /// dc_tx held only the first `rtl_found` of the model's notifications
    /// (in order).
    Notifications {
        kind: &'static str,
        rtl_found: usize,
        model: usize,
    },
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Mismatch::Timeout => write!(f, "the RTL did not drain (wedged pipeline?)"),
            Mismatch::FrameCount { port, rtl, model } => {
                write!(f, "{}: RTL emitted {rtl} frames, model {model}", port.name())
            }
            Mismatch::FrameBytes { port, index, rtl, model } => write!(
                f,
                "{} frame #{index} differs: RTL {} bytes (user {}), model {} bytes (user {})\n  rtl:   {}\n  model: {}",
                port.name(),
                rtl.data.len(),
                rtl.user,
                model.data.len(),
                model.user,
                hex(&rtl.data),
                hex(&model.data)
            ),
            Mismatch::ParsedCount { port, rtl, model } => {
                write!(f, "{} parser: RTL reported {rtl} frames, model {model}", port.name())
            }
            Mismatch::Parsed { port, index, rtl, model } => {
                write!(f, "{} parser result #{index} differs:\n  rtl:   {rtl:?}\n  model: {model:?}", port.name())
            }
            Mismatch::Counter { name, rtl, model } => {
                write!(f, "counter {name}: RTL {rtl:?}, model {model}")
            }
            Mismatch::Notifications { kind, rtl_found, model } => write!(
                f,
                "dc_tx: the model decided {model} {kind}; the RTL sent the first {rtl_found} of them in order, then a different or no frame"
            ),
        }
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().take(96).map(|x| format!("{x:02x}")).collect()
}

/// Parser results agree: the class always, the fields when it is RoCEv2.
pub fn parsed_matches(rtl: &ParsedHeader, model: &ParsedHeader) -> bool {
    if rtl.class != model.class {
        return false;
    }
    rtl.class != FrameClass::Roce || rtl == model
}

/// What the model expects for a set of inputs (fed per port, in order).
pub struct Expected {
    pub outputs: BTreeMap<OutPort, Vec<Frame>>,
    pub parsed: BTreeMap<InPort, Vec<ParsedHeader>>,
    /// Notifications toward senders (LH-05..LH-09), in the order the model
    /// decided them. They share dc_tx with the WAN's data frames, which the
    /// RTL interleaves frame by frame: dc_tx must be a merge of
    /// `outputs[DcTx]` and these, each in its own order.
    pub notifications: Vec<Frame>,
    /// Fast CNPs of the congested WAN node (FCN-03), in the order the model
    /// decided them: a third sequence merged into dc_tx (the builder takes
    /// Long-haul jobs first, so only each sequence's own order is fixed).
    pub fast_cnps: Vec<Frame>,
    /// Standard CNPs of the ingress PE for received Fast CNPs (FCN-05): a
    /// fourth sequence merged into dc_tx, likewise.
    pub ingress_cnps: Vec<Frame>,
    /// Standard CNPs of the proxy for received CN messages (PX-02): a fifth
    /// sequence merged into dc_tx, likewise.
    pub proxy_cnps: Vec<Frame>,
    /// CN messages of the congested node to the senders' proxies (PX-01):
    /// a sixth sequence merged into dc_tx, likewise.
    pub proxy_messages: Vec<Frame>,
    /// Rate Advice messages to capable senders (RA-03): a seventh
    /// sequence merged into dc_tx, likewise.
    pub rate_advice: Vec<Frame>,
    /// The egress gateway's Rate Advice to its peers (RA-04): merged into
    /// wan_tx between the data frames, likewise.
    pub remote_advice: Vec<Frame>,
}

/// Runs the inputs through the model.
pub fn expect(model: &mut GatewayModel, inputs: &[(InPort, Vec<Frame>)]) -> Expected {
    let mut exp = Expected {
        outputs: BTreeMap::new(),
        parsed: BTreeMap::new(),
        notifications: Vec::new(),
        fast_cnps: Vec::new(),
        ingress_cnps: Vec::new(),
        proxy_cnps: Vec::new(),
        proxy_messages: Vec::new(),
        rate_advice: Vec::new(),
        remote_advice: Vec::new(),
    };
    for (port, frames) in inputs {
        for f in frames {
            let out = model.receive(*port, f);
            exp.parsed.entry(*port).or_default().push(out.parsed);
            for (o, frame) in out.emitted {
                exp.outputs.entry(o).or_default().push(frame);
            }
        }
    }
    exp
}

/// The most ways of splitting dc_tx's notifications into their kinds
/// [`compare`] follows at once (identical frames of two kinds in a row
/// multiply them).
const MAX_SPLITS: usize = 4096;

/// Compares a capture with the model's expectation.
pub fn compare(cap: &Capture, exp: &Expected) -> Result<(), Mismatch> {
    if cap.timed_out {
        return Err(Mismatch::Timeout);
    }
    let empty_f = Vec::new();
    for port in OutPort::ALL {
        let rtl_all = cap.outputs.get(&port).unwrap_or(&empty_f);
        let model = exp.outputs.get(&port).unwrap_or(&empty_f);
        // dc_tx: take the notifications out where the model expects them.
        let mut data_only = Vec::new();
        let none: Vec<Frame> = Vec::new();
        let sequences: [(&'static str, &Vec<Frame>); 6] = if port == OutPort::DcTx {
            [
                ("notifications", &exp.notifications),
                ("Fast CNPs", &exp.fast_cnps),
                ("ingress PE CNPs", &exp.ingress_cnps),
                ("proxy CNPs", &exp.proxy_cnps),
                ("CN messages to proxies", &exp.proxy_messages),
                ("Rate Advice messages", &exp.rate_advice),
            ]
        } else {
            [
                ("remote Rate Advice messages", &exp.remote_advice),
                ("", &none),
                ("", &none),
                ("", &none),
                ("", &none),
                ("", &none),
            ]
        };
        let notes = sequences.iter().any(|(_, s)| !s.is_empty());
        let rtl = if notes {
            // Every way the notifications seen so far split into the
            // sequences (two kinds can hold the same bytes: a proxy's CNP
            // and an ingress PE's CNP to one sender), as positions in each.
            let mut ways: Vec<[usize; 6]> = vec![[0; 6]];
            let mut next_data = 0;
            for r in rtl_all {
                if model.get(next_data) == Some(r) {
                    next_data += 1;
                    data_only.push(r.clone());
                    continue;
                }
                let mut taken: Vec<[usize; 6]> = Vec::new();
                for w in &ways {
                    for i in 0..sequences.len() {
                        if sequences[i].1.get(w[i]) == Some(r) {
                            let mut n = *w;
                            n[i] += 1;
                            if !taken.contains(&n) && taken.len() < MAX_SPLITS {
                                taken.push(n);
                            }
                        }
                    }
                }
                if taken.is_empty() {
                    data_only.push(r.clone());
                } else {
                    ways = taken;
                }
            }
            let complete = |w: &[usize; 6]| (0..6).all(|i| w[i] == sequences[i].1.len());
            let next = ways
                .iter()
                .find(|w| complete(w))
                .or_else(|| ways.iter().max_by_key(|w| w.iter().sum::<usize>()))
                .copied()
                .unwrap_or_default();
            for (i, (kind, seq)) in sequences.iter().enumerate() {
                if next[i] != seq.len() {
                    return Err(Mismatch::Notifications {
                        kind,
                        rtl_found: next[i],
                        model: seq.len(),
                    });
                }
            }
            &data_only
        } else {
            rtl_all
        };
        for (index, (r, m)) in rtl.iter().zip(model).enumerate() {
            if r != m {
                return Err(Mismatch::FrameBytes {
                    port,
                    index,
                    rtl: r.clone(),
                    model: m.clone(),
                });
            }
        }
        if rtl.len() != model.len() {
            return Err(Mismatch::FrameCount {
                port,
                rtl: rtl.len(),
                model: model.len(),
            });
        }
    }
    let empty_p = Vec::new();
    for port in InPort::ALL {
        let rtl = cap.parsed.get(&port).unwrap_or(&empty_p);
        let model = exp.parsed.get(&port).unwrap_or(&empty_p);
        for (index, (r, m)) in rtl.iter().zip(model).enumerate() {
            if !parsed_matches(r, m) {
                return Err(Mismatch::Parsed {
                    port,
                    index,
                    rtl: *r,
                    model: *m,
                });
            }
        }
        if rtl.len() != model.len() {
            return Err(Mismatch::ParsedCount {
                port,
                rtl: rtl.len(),
                model: model.len(),
            });
        }
    }
    Ok(())
}

/// Gauges that move with time alone, between two register reads: the
/// virtual queue drains, the average follows the depth every microsecond,
/// the marking rate and the port's byte count close a window, the growth
/// is resampled at every interval boundary, and in RA-04's remote mode a
/// message goes to each peer every interval (`RA_REMOTE_SENT`).
/// [`compare_counters`] leaves them out;
/// the queue-meter tests (`testbench/tests/queue_meter.rs`) check them
/// against the model at the clocks they are read in.
pub const MOVING_GAUGES: &[u32] = &[
    offset::PORT0_VQ_DEPTH_BYTES,
    offset::PORT0_QUEUE_AVG_BYTES,
    offset::PORT0_QUEUE_GROWTH_BYTES,
    offset::PORT0_EMR_Q16,
    offset::LH_PORT_WINDOW_BYTES,
    offset::PE_P_ECT1,
    offset::PE_P_CE,
    offset::RA_PORT_RATE_MBPS,
    offset::RA_DC_PORT_RATE_MBPS,
    offset::RA_PEER0_MBPS,
    offset::RA_PEER1_MBPS,
    offset::RA_REMOTE_SENT,
];

/// Reads every counter through the CSR port and compares it with the model
/// (all but [`MOVING_GAUGES`]).
pub fn compare_counters(gw: &mut Gateway, model: &GatewayModel) -> Result<(), Mismatch> {
    for (name, offset, value) in model.counters() {
        if MOVING_GAUGES.contains(&offset) {
            continue;
        }
        let rtl = gw.csr_read(offset).ok();
        if rtl != Some(value) {
            return Err(Mismatch::Counter {
                name,
                rtl,
                model: value,
            });
        }
    }
    Ok(())
}

/// Runs inputs through RTL and model and checks they agree in everything.
pub fn check(
    gw: &mut Gateway,
    model: &mut GatewayModel,
    inputs: &[(InPort, Vec<Frame>)],
    opts: crate::harness::StreamOptions,
) -> Result<Capture, Mismatch> {
    let cap = crate::harness::run(gw, inputs, opts);
    let exp = expect(model, inputs);
    compare(&cap, &exp)?;
    compare_counters(gw, model)?;
    Ok(cap)
}
