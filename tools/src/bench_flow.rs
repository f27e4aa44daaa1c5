//! `cngw bench --flow-table`: the flow table (LH-01) under random keys, on
//! the Verilated block (`cngw_sim::Unit` "flow_table", the gateway's
//! 4096 buckets (8 banks of 512; 8-choice d-left placement) x 4 ways + 8
//! stash slots).
//!
//! Each run presents one `LookupUpdate` of a new random flow every clock,
//! back to back, until the first insert failure, and records the occupancy
//! the table had reached (the load factor), the clocks taken and the
//! responses seen. The same requests go through the reference model
//! (`FlowTableModel`), which must fail at the same request. Cycle counts
//! are exact; the load factor depends on the keys (seeded).

use anyhow::{bail, Result};
use cngw_hdl::flow::flow_table_model::{FlowRequest, FlowTableModel};
use cngw_hdl::flow::{FlowKey, FlowOp};
use cngw_sim::Unit;

/// The gateway's table: 2^12 buckets of 4 ways (8 banks of 2^9), 8 stash
/// slots.
const BUCKET_BITS: usize = 12;
/// Index bits of a bank: the post-reset flush takes 2^INDEX_BITS clocks.
const INDEX_BITS: usize = BUCKET_BITS - 3;
const STASH: usize = 8;
const CAPACITY: u32 = (1 << BUCKET_BITS) * 4 + STASH as u32;
/// Clocks from a request to its response (FlowTable's documentation).
const LATENCY: u64 = 5;

/// A small deterministic generator (splitmix64): the keys of a seed are the
/// same on every host.
struct Keys(u64);

impl Keys {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn key(&mut self) -> FlowKey {
        let sip = (self.next_u64() as u128) << 64 | self.next_u64() as u128;
        let dip = (self.next_u64() as u128) << 64 | self.next_u64() as u128;
        FlowKey {
            sip,
            dip,
            dqp: (self.next_u64() & 0xff_ffff) as u32,
        }
    }
}

/// One run's result.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowRun {
    pub seed: u64,
    /// Flows inserted before the first failure.
    pub inserted: u32,
    /// `inserted / CAPACITY`.
    pub load: f64,
    /// Of those, how many went to the stash.
    pub in_stash: u32,
    /// Requests presented (the failing one included).
    pub requests: u64,
    /// Clocks from the first request to the failing request's response.
    pub clocks: u64,
    /// Clocks over which the requests were presented (first to last).
    pub request_clocks: u64,
    /// Responses seen, one per request.
    pub responses: u64,
}

fn words128(x: u128) -> [u32; 4] {
    [
        x as u32,
        (x >> 32) as u32,
        (x >> 64) as u32,
        (x >> 96) as u32,
    ]
}

fn unit_err(e: String) -> anyhow::Error {
    anyhow::anyhow!("flow table unit: {e}")
}

/// Inserts random flows until the first failure, on the RTL and the model.
pub fn run_seed(seed: u64) -> Result<FlowRun> {
    let mut u = Unit::new("flow_table").map_err(unit_err)?;
    u.set_u64("reset", 1).map_err(unit_err)?;
    u.step();
    u.set_u64("reset", 0).map_err(unit_err)?;
    // The post-reset flush: one index of every bank per clock.
    let mut flush = 0;
    while u.get_u64("busy").map_err(unit_err)? == 1 {
        u.step();
        flush += 1;
        if flush > (1 << INDEX_BITS) + 16 {
            bail!("the flow table stayed busy after its flush");
        }
    }
    let mut model = FlowTableModel::new(BUCKET_BITS, STASH);
    let mut keys = Keys(seed);
    // Requests in flight: (clock presented, model's answer).
    let mut pending = std::collections::VecDeque::new();
    let start = u.cycle();
    let mut requests = 0u64;
    let mut responses = 0u64;
    let mut in_stash = 0u32;
    let mut stop = false;
    let mut last_presented = start;
    loop {
        if !stop {
            let key = keys.key();
            let expected = model.execute(&FlowRequest::keyed(FlowOp::LookupUpdate, key), 0, 0);
            u.set_u64("req_valid", 1).map_err(unit_err)?;
            u.set_u64("req_op", FlowOp::LookupUpdate.code())
                .map_err(unit_err)?;
            u.set("req_sip", &words128(key.sip)).map_err(unit_err)?;
            u.set("req_dip", &words128(key.dip)).map_err(unit_err)?;
            u.set_u64("req_dqp", key.dqp as u64).map_err(unit_err)?;
            pending.push_back((u.cycle(), expected));
            last_presented = u.cycle();
            requests += 1;
            // Stop presenting once the model has failed: that request's
            // response ends the run.
            stop = expected.failed;
        } else {
            u.set_u64("req_valid", 0).map_err(unit_err)?;
        }
        u.step();
        if u.get_u64("resp_valid").map_err(unit_err)? == 1 {
            let Some((presented, expected)) = pending.pop_front() else {
                bail!("the flow table answered a request it was not given");
            };
            responses += 1;
            let latency = u.cycle() - presented;
            if latency != LATENCY {
                bail!("response after {latency} clocks, not {LATENCY}");
            }
            let failed = u.get_u64("resp_failed").map_err(unit_err)? == 1;
            let inserted = u.get_u64("resp_inserted").map_err(unit_err)? == 1;
            let stash = u.get_u64("resp_in_stash").map_err(unit_err)? == 1;
            let bucket = u.get_u64("resp_bucket").map_err(unit_err)? as u32;
            let slot = u.get_u64("resp_slot").map_err(unit_err)? as u8;
            if failed != expected.failed
                || inserted != expected.inserted
                || (inserted && stash != expected.in_stash)
                || (inserted && slot != expected.slot)
                || (inserted && !stash && bucket != expected.bucket)
            {
                bail!(
                    "request {responses}: RTL failed={failed} inserted={inserted} stash={stash} \
                     bucket={bucket} slot={slot}, model {expected:?}"
                );
            }
            in_stash += (inserted && stash) as u32;
            if failed {
                let occupancy = u.get_u64("occupancy").map_err(unit_err)? as u32;
                if occupancy != model.counters().occupancy {
                    bail!(
                        "occupancy {occupancy} in the RTL, {} in the model",
                        model.counters().occupancy
                    );
                }
                return Ok(FlowRun {
                    seed,
                    inserted: occupancy,
                    load: occupancy as f64 / CAPACITY as f64,
                    in_stash,
                    requests,
                    clocks: u.cycle() - start,
                    request_clocks: last_presented - start + 1,
                    responses,
                });
            }
        } else if !pending.is_empty() && u.cycle() - pending[0].0 > LATENCY {
            bail!("a request got no response");
        }
        if requests > CAPACITY as u64 + 1 {
            bail!("no insert failure after {requests} new flows");
        }
    }
}

pub fn run(seeds: u32, json: bool) -> Result<()> {
    let runs = (1..=seeds as u64)
        .map(run_seed)
        .collect::<Result<Vec<_>>>()?;
    let mut loads: Vec<f64> = runs.iter().map(|r| r.load).collect();
    loads.sort_by(f64::total_cmp);
    let median = loads[loads.len() / 2];
    if json {
        let items: Vec<String> = runs
            .iter()
            .map(|r| {
                format!(
                    "{{\"seed\":{},\"inserted\":{},\"load\":{:.4},\"in_stash\":{},\"requests\":{},\"clocks\":{},\"request_clocks\":{},\"responses\":{}}}",
                    r.seed,
                    r.inserted,
                    r.load,
                    r.in_stash,
                    r.requests,
                    r.clocks,
                    r.request_clocks,
                    r.responses
                )
            })
            .collect();
        println!(
            "{{\"capacity\":{CAPACITY},\"latency\":{LATENCY},\"median_load\":{median:.4},\"runs\":[{}]}}",
            items.join(",")
        );
        return Ok(());
    }
    println!(
        "cngw bench --flow-table: Verilated flow table (4096 buckets in 8 banks, 8-choice d-left, \
         x 4 ways + {STASH} stash = {CAPACITY} entries), one LookupUpdate of a new random flow \
         per clock until the first insert failure; every response checked against the \
         reference model"
    );
    println!();
    println!(" seed | flows inserted |   load | in stash | requests | clocks | lookups/clock");
    println!("------------------------------------------------------------------------------");
    for r in &runs {
        println!(
            "{:>5} | {:>14} | {:>5.1}% | {:>8} | {:>8} | {:>6} | {:>13.3}",
            r.seed,
            r.inserted,
            100.0 * r.load,
            r.in_stash,
            r.requests,
            r.clocks,
            r.requests as f64 / r.request_clocks as f64
        );
    }
    println!();
    println!(
        "load at the first insert failure: median {:.1}% (min {:.1}%, max {:.1}%) of {CAPACITY} entries",
        100.0 * median,
        100.0 * loads[0],
        100.0 * loads[loads.len() - 1]
    );
    println!(
        "lookups/clock: requests over the clocks they were presented in (1.000: one every clock, \
         none refused); each response came {LATENCY} clocks after its request"
    );
    Ok(())
}
