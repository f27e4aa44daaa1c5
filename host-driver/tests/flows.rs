//! LH-01 / HW-04: the driver's flow-table API. The protocol (idle check, key
//! before command, poll for `done`) and its errors against fake buses; look-up,
//! static insert, delete and iteration against the Verilated RTL.

use cngw_driver::flows::{flow_key, FlowEntry, FlowError, FlowKey, Location};
use cngw_driver::{BusError, Device, DeviceError, MemBus, RegisterBus};
use cngw_regmap::{flow_command, flow_status, offset};

fn v4(src: &str, dst: &str, dqp: u32) -> FlowKey {
    flow_key(src.parse().unwrap(), dst.parse().unwrap(), dqp).unwrap()
}

/// The command registers: any write to one while a command runs would change
/// its key.
fn is_command_register(off: u32) -> bool {
    (offset::FLOW_SIP_0..=offset::FLOW_COMMAND).contains(&off) || off == offset::FLOW_LOCATION
}

/// A MemBus whose flow-command port answers like the CSR block: `FLOW_STATUS`
/// reads 0 for `latency` reads after a command, then `answer`. It fails the
/// test if a command register is written while a command runs.
struct AnsweringBus {
    bus: MemBus,
    answer: u32,
    latency: u32,
    reads_left: Option<u32>,
}

impl AnsweringBus {
    fn new(answer: u32, latency: u32) -> AnsweringBus {
        AnsweringBus {
            bus: MemBus::new(),
            answer,
            latency,
            reads_left: None,
        }
    }
}

impl RegisterBus for AnsweringBus {
    fn read32(&mut self, off: u32) -> Result<u32, BusError> {
        if off == offset::FLOW_STATUS {
            if let Some(left) = self.reads_left {
                if left == 0 {
                    self.reads_left = None;
                    self.bus.poke(offset::FLOW_STATUS, self.answer);
                } else {
                    self.reads_left = Some(left - 1);
                }
            }
        }
        self.bus.read32(off)
    }

    fn write32(&mut self, off: u32, value: u32) -> Result<(), BusError> {
        assert!(
            !(self.reads_left.is_some() && is_command_register(off)),
            "write of {value:#x} to {off:#x} while a flow command runs"
        );
        if off == offset::FLOW_COMMAND {
            self.bus.poke(offset::FLOW_STATUS, 0);
            self.reads_left = Some(self.latency);
        }
        self.bus.write32(off, value)
    }
}

#[test]
fn lh_01_key_and_value_are_written_before_the_command() {
    let answer = flow_status::DONE | flow_status::SQP_VALID | flow_status::PINNED;
    let mut dev = Device::open(AnsweringBus::new(answer, 3)).unwrap();
    let key = v4("10.0.0.1", "10.0.0.4", 200);
    dev.flow_table().insert_static(&key, 100).unwrap();
    let log = dev.bus().bus.write_log().to_vec();
    assert_eq!(
        log,
        cngw_driver::flows::insert_static_writes(&key, 100),
        "key, SQP, then one command write"
    );
    assert_eq!(
        log.last(),
        Some(&(offset::FLOW_COMMAND, flow_command::INSERT_STATIC))
    );
    // A second command waits for nothing: done is set. A lookup that finds
    // the entry reads its SQP.
    dev.bus_mut().bus.poke(offset::FLOW_RESULT_SQP, 100);
    dev.bus_mut().answer =
        flow_status::DONE | flow_status::HIT | flow_status::SQP_VALID | flow_status::PINNED;
    assert_eq!(
        dev.flow_table().lookup(&key).unwrap(),
        Some(FlowEntry {
            sqp: Some(100),
            pinned: true
        })
    );
    dev.bus_mut().answer = flow_status::DONE;
    assert_eq!(dev.flow_table().lookup(&key).unwrap(), None);
    assert!(!dev.flow_table().delete(&key).unwrap());
}

#[test]
fn lh_01_insert_into_a_full_bucket_is_a_typed_error() {
    let mut dev = Device::open(AnsweringBus::new(
        flow_status::DONE | flow_status::FAILED,
        1,
    ))
    .unwrap();
    let key = v4("10.0.0.1", "10.0.0.4", 200);
    let err = dev.flow_table().insert_static(&key, 100).unwrap_err();
    assert!(
        matches!(err, DeviceError::Flow(FlowError::InsertFailed { key: k }) if k == key),
        "{err}"
    );
    assert!(
        err.to_string()
            .contains("cannot insert 10.0.0.1 -> 10.0.0.4 DQP 200: its 8 candidate buckets' 4 ways and the 8-slot stash are full"),
        "{err}"
    );
}

#[test]
fn lh_01_command_timeout_then_busy_writes_nothing_more() {
    // MemBus has no flow table: FLOW_STATUS stays 0, as after reset.
    let mut dev = Device::open(MemBus::new()).unwrap();
    dev.set_flow_poll_limit(5);
    let key = v4("10.0.0.1", "10.0.0.4", 200);
    let err = dev.flow_table().insert_static(&key, 100).unwrap_err();
    assert_eq!(
        err.to_string(),
        "flow-table command insert_static did not complete: FLOW_STATUS.done still clear after 5 polls"
    );
    assert!(matches!(
        err,
        DeviceError::Flow(FlowError::CommandTimeout {
            command: "insert_static",
            polls: 5
        })
    ));
    // Reset state (5 polls), then the operands and the command, then 5 polls.
    assert_eq!(
        dev.bus().read_count(),
        3 + 5 + 5,
        "ID, VERSION, CAPABILITIES, polls"
    );
    let writes = dev.bus().write_log().len();
    assert_eq!(writes, 11);
    // The command never finished: the next one must not touch the key.
    for attempt in 0..2 {
        let err = dev.flow_table().lookup(&key).unwrap_err();
        assert!(
            matches!(err, DeviceError::Flow(FlowError::Busy { polls: 5 })),
            "attempt {attempt}: {err}"
        );
        assert!(err.to_string().contains("nothing written"), "{err}");
        assert_eq!(dev.bus().write_log().len(), writes, "nothing written");
    }
    // Once the hardware answers, commands go on.
    dev.bus_mut().poke(offset::FLOW_STATUS, flow_status::DONE);
    assert_eq!(dev.flow_table().lookup(&key).unwrap(), None);
}

#[test]
fn lh_01_out_of_range_qps_write_nothing() {
    let mut dev = Device::open(MemBus::new()).unwrap();
    let key = v4("10.0.0.1", "10.0.0.4", 200);
    let err = dev.flow_table().insert_static(&key, 1 << 24).unwrap_err();
    assert!(
        matches!(
            err,
            DeviceError::Flow(FlowError::QpOutOfRange {
                what: "source QP",
                value: 0x100_0000
            })
        ),
        "{err}"
    );
    // FlowKey's fields are public: a DQP above 24 bits is refused, not cut.
    let wide = FlowKey {
        dqp: 1 << 24,
        ..key
    };
    for result in [
        dev.flow_table().lookup(&wide).map(|_| ()),
        dev.flow_table().delete(&wide).map(|_| ()),
        dev.flow_table().insert_static(&wide, 1).map(|_| ()),
    ] {
        assert!(
            matches!(
                result,
                Err(DeviceError::Flow(FlowError::QpOutOfRange {
                    what: "destination QP",
                    ..
                }))
            ),
            "{result:?}"
        );
    }
    assert!(dev.bus().write_log().is_empty());
    assert_eq!(dev.bus().read_count(), 3, "only the header was read");
}

#[cfg(feature = "sim")]
mod rtl {
    use super::*;
    use cngw_driver::SimBus;
    use cngw_model::{Frame, InPort};
    use cngw_packet::RoceFrameBuilder;
    use cngw_sim::Gateway;
    use cngw_testbench::{run, StreamOptions};
    use std::collections::BTreeMap;
    use std::net::Ipv4Addr;

    fn v6(src: &str, dst: &str, dqp: u32) -> FlowKey {
        flow_key(src.parse().unwrap(), dst.parse().unwrap(), dqp).unwrap()
    }

    #[test]
    fn lh_01_static_entries_lookup_delete_and_list_through_the_rtl() {
        let mut gateway = Gateway::new();
        // Flows the data path inserts, without a source QP.
        let learned: Vec<FlowKey> = (0..3u32)
            .map(|i| v4(&format!("192.168.1.{i}"), "192.168.2.1", 0x500 + i))
            .collect();
        let frames = (0..3u32)
            .map(|i| {
                Frame::new(
                    RoceFrameBuilder::ipv4(
                        Ipv4Addr::new(192, 168, 1, i as u8),
                        Ipv4Addr::new(192, 168, 2, 1),
                    )
                    .dest_qp(0x500 + i)
                    .payload_len(64)
                    .build(),
                )
            })
            .collect();
        run(
            &mut gateway,
            &[(InPort::DcRx, frames)],
            StreamOptions::random(0.0, 0.0, 0),
        );
        let mut dev = Device::open(SimBus::new(&mut gateway)).unwrap();
        let mut table = dev.flow_table();

        let statics = [
            (v4("10.0.0.1", "10.0.0.4", 200), 100),
            (v4("10.0.0.2", "10.0.0.4", 0xFF_FFFF), 0xFF_FFFF),
            (v6("fd00::1", "fd00::4", 200), 101),
            (v6("2001:db8::1", "2001:db8:ffff::2", 7), 0),
        ];
        for (key, sqp) in statics {
            assert!(!table.insert_static(&key, sqp).unwrap(), "{key} is new");
        }
        for (key, sqp) in statics {
            assert_eq!(
                table.lookup(&key).unwrap(),
                Some(FlowEntry {
                    sqp: Some(sqp),
                    pinned: true
                }),
                "{key}"
            );
        }
        for key in &learned {
            assert_eq!(
                table.lookup(key).unwrap(),
                Some(FlowEntry {
                    sqp: None,
                    pinned: false
                }),
                "{key}"
            );
        }
        // Another DQP, or the same hosts the other way round, is another flow.
        assert_eq!(
            table.lookup(&v4("10.0.0.1", "10.0.0.4", 201)).unwrap(),
            None
        );
        assert_eq!(
            table.lookup(&v4("10.0.0.4", "10.0.0.1", 200)).unwrap(),
            None
        );
        assert_eq!(table.lookup(&v6("fd00::4", "fd00::1", 200)).unwrap(), None);

        // A learned flow made static keeps its place and gets the SQP.
        assert!(table.insert_static(&learned[0], 42).unwrap(), "was there");
        // Re-inserting a static entry updates its SQP.
        assert!(table.insert_static(&statics[0].0, 99).unwrap());

        let mut expected: BTreeMap<FlowKey, FlowEntry> = statics
            .iter()
            .map(|&(key, sqp)| {
                (
                    key,
                    FlowEntry {
                        sqp: Some(sqp),
                        pinned: true,
                    },
                )
            })
            .collect();
        expected.insert(
            statics[0].0,
            FlowEntry {
                sqp: Some(99),
                pinned: true,
            },
        );
        for (i, key) in learned.iter().enumerate() {
            let entry = if i == 0 {
                FlowEntry {
                    sqp: Some(42),
                    pinned: true,
                }
            } else {
                FlowEntry {
                    sqp: None,
                    pinned: false,
                }
            };
            expected.insert(*key, entry);
        }
        let listed: BTreeMap<FlowKey, FlowEntry> = table.list().unwrap().into_iter().collect();
        assert_eq!(listed, expected);

        // Delete one static IPv6 entry and one learned IPv4 entry.
        assert!(table.delete(&statics[2].0).unwrap());
        assert!(table.delete(&learned[1]).unwrap());
        assert!(!table.delete(&learned[1]).unwrap(), "already gone");
        assert_eq!(table.lookup(&statics[2].0).unwrap(), None);
        expected.remove(&statics[2].0);
        expected.remove(&learned[1]);
        let listed: BTreeMap<FlowKey, FlowEntry> = table.list().unwrap().into_iter().collect();
        assert_eq!(listed, expected);
        assert_eq!(
            dev.read_by_name("FLOW_OCCUPANCY").unwrap() as usize,
            expected.len()
        );
    }

    /// Forty-one keys with the same 8 candidate buckets (the gateway's
    /// hash, `FlowKey::gateway_candidates`): thirty-two take the
    /// candidates' ways (the least loaded candidate each time, so one way
    /// of every bank per round), eight the stash, the forty-first finds no
    /// room. Iteration reaches the stash.
    #[test]
    fn lh_01_full_bucket_and_stash_through_the_rtl() {
        let first = v6("fd00::1", "fd00::4", 0);
        let same_bucket = first.with_same_candidates(12, 41, true);
        assert_eq!(same_bucket.len(), 41);
        let mut dev = Device::open(SimBus::with_new_gateway()).unwrap();
        let mut table = dev.flow_table();
        for (i, key) in same_bucket[..40].iter().enumerate() {
            table.insert_static(key, 1000 + i as u32).unwrap();
        }
        let err = table.insert_static(&same_bucket[40], 2000).unwrap_err();
        assert!(
            matches!(err, DeviceError::Flow(FlowError::InsertFailed { key }) if key == same_bucket[40]),
            "{err}"
        );
        assert_eq!(table.lookup(&same_bucket[40]).unwrap(), None);
        // Iteration: bucket by bucket (the banks in order: bank b's
        // candidate holds keys b, b + 8, b + 16, b + 24 in its ways), then
        // the stash (keys 32..39).
        let order: Vec<usize> = (0..8)
            .flat_map(|bank| (0..4).map(move |way| bank + 8 * way))
            .chain(32..40)
            .collect();
        let listed: Vec<(FlowKey, FlowEntry)> = table.list().unwrap();
        let keys: Vec<FlowKey> = listed.iter().map(|(k, _)| *k).collect();
        let want: Vec<FlowKey> = order.iter().map(|&i| same_bucket[i]).collect();
        assert_eq!(keys, want);
        for ((_, entry), &i) in listed.iter().zip(&order) {
            assert_eq!(
                *entry,
                FlowEntry {
                    sqp: Some(1000 + i as u32),
                    pinned: true
                }
            );
        }
        for slot in 0..8 {
            let (key, _) = table
                .read_location(Location::Stash { slot })
                .unwrap()
                .expect("stash slot taken");
            assert_eq!(key, same_bucket[32 + slot as usize]);
        }
        // Deleting one makes room.
        assert!(table.delete(&same_bucket[5]).unwrap());
        assert!(!table.insert_static(&same_bucket[40], 2000).unwrap());
    }
}
