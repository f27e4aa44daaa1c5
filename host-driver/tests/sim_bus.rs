//! HW-04: the typed driver API over the Verilated gateway's AXI4-Lite CSR port.
#![cfg(feature = "sim")]

use cngw_driver::config::{apply_config, Config};
use cngw_driver::{BusError, Device, DeviceError, RegisterBus, SimBus, ThresholdInput};
use cngw_regmap::{offset, Access, DEVICE_ID, REGISTERS};
use cngw_sim::Gateway;
use std::time::Duration;

#[test]
fn hw_04_sim_bus_opens_the_device_and_reads_reset_values() {
    let mut device = Device::open(SimBus::with_new_gateway()).unwrap();
    assert_eq!(device.num_ports(), 1);
    assert!(device.capabilities().parser());
    for (reg, value) in device.dump().unwrap() {
        let expected = if reg.access == Access::WritePulse {
            0
        } else {
            reg.reset
        };
        assert_eq!(value, expected, "{}", reg.name);
    }
    device.scratch_test().unwrap();
}

#[test]
fn hw_04_sim_bus_maps_axi_responses_to_bus_errors() {
    let mut bus = SimBus::with_new_gateway();
    assert!(matches!(
        bus.write32(offset::ID, 0),
        Err(BusError::SlaveError { offset: 0 })
    ));
    assert!(matches!(
        bus.read32(0x018),
        Err(BusError::Unmapped { offset: 0x018 })
    ));
    assert!(matches!(
        bus.read32(0x102),
        Err(BusError::Misaligned { offset: 0x102 })
    ));
    assert!(matches!(
        bus.read32(0x1000),
        Err(BusError::OutOfWindow { .. })
    ));
    assert_eq!(bus.read32(offset::ID).unwrap(), DEVICE_ID);
    // The typed API refuses the read-only write before it reaches the bus.
    let mut device = Device::open(bus).unwrap();
    assert!(matches!(
        device.write_by_name("ID", 0),
        Err(DeviceError::ReadOnly("ID"))
    ));
}

#[test]
fn lh_03_config_applied_to_a_borrowed_gateway_stays_there() {
    let mut gateway = Gateway::new();
    let config = Config::parse(
        r#"
        features = []
        [port.0]
        rate = "400G"
        rtt = "2ms"
        alpha = 1.0
        k_base = "64K"
        [registers]
        SCRATCH = 0x1234
        "#,
    )
    .unwrap();
    {
        let mut device = Device::open(SimBus::new(&mut gateway)).unwrap();
        apply_config(&mut device, &config).unwrap();
    }
    // Streaming would go on with the same model; its CSRs hold the configuration.
    assert_eq!(gateway.csr_read(offset::FEATURE_ENABLE), Ok(0));
    assert_eq!(gateway.csr_read(offset::PORT0_K_MAX_BYTES), Ok(100_000_000));
    assert_eq!(gateway.csr_read(offset::PORT0_K_MIN_BYTES), Ok(50_000_000));
    assert_eq!(gateway.csr_read(offset::PORT0_RATE_MBPS), Ok(400_000));
    assert_eq!(gateway.csr_read(offset::SCRATCH), Ok(0x1234));

    let mut device = Device::open(SimBus::new(&mut gateway)).unwrap();
    let input = ThresholdInput::new(100_000_000_000, Duration::from_millis(10), 1.0, 65_536);
    let t = device.set_port_thresholds(0, &input).unwrap();
    assert_eq!(device.port_thresholds(0).unwrap(), t);
}

#[test]
fn hw_04_sim_counters_clear() {
    let mut device = Device::open(SimBus::with_new_gateway()).unwrap();
    let counters = device.counters().unwrap();
    assert_eq!(
        counters.len(),
        REGISTERS.iter().filter(|r| r.volatile).count()
    );
    device.clear_counters().unwrap();
    // Status registers (cngw_regmap::NOT_CLEARED) keep their value.
    for (name, v) in device.counters().unwrap() {
        let reg = cngw_regmap::by_name(name).unwrap();
        if !cngw_regmap::NOT_CLEARED.contains(&reg.offset) {
            assert_eq!(v, 0, "{name}");
        }
    }
}
