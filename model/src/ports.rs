//! The gateway's stream ports.

/// The gateway's stream inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum InPort {
    /// From the data-center side.
    DcRx = 0,
    /// From the WAN side.
    WanRx = 1,
}

/// The gateway's stream outputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OutPort {
    /// Toward the data-center side.
    DcTx = 0,
    /// Toward the WAN side.
    WanTx = 1,
}

impl InPort {
    pub const ALL: [InPort; 2] = [InPort::DcRx, InPort::WanRx];
    pub fn name(self) -> &'static str {
        match self {
            InPort::DcRx => "dc_rx",
            InPort::WanRx => "wan_rx",
        }
    }
    /// Where frames from this input go when no feature acts on them.
    pub fn forward_port(self) -> OutPort {
        match self {
            InPort::DcRx => OutPort::WanTx,
            InPort::WanRx => OutPort::DcTx,
        }
    }
}

impl OutPort {
    pub const ALL: [OutPort; 2] = [OutPort::DcTx, OutPort::WanTx];
    pub fn name(self) -> &'static str {
        match self {
            OutPort::DcTx => "dc_tx",
            OutPort::WanTx => "wan_tx",
        }
    }
}
