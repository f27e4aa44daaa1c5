//! The ECN field of IPv4 and IPv6 (RFC 3168 section 5).

/// ECN codepoint: the two low bits of the IPv4 TOS / IPv6 traffic class.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Ecn {
    /// 00: not ECN-capable transport.
    #[default]
    NotEct = 0,
    /// 01: ECT(1); the early-warning mark of draft-hu-rtgwg-pre-ecn-wan.
    Ect1 = 1,
    /// 10: ECT(0), what RoCEv2 senders set.
    Ect0 = 2,
    /// 11: congestion experienced.
    Ce = 3,
}

impl Ecn {
    /// The codepoint of the two low bits of `bits`.
    pub fn from_bits(bits: u8) -> Self {
        match bits & 3 {
            0 => Ecn::NotEct,
            1 => Ecn::Ect1,
            2 => Ecn::Ect0,
            _ => Ecn::Ce,
        }
    }

    pub fn bits(self) -> u8 {
        self as u8
    }

    /// ECT(0), ECT(1) or CE: the transport reacts to congestion marks.
    pub fn is_ecn_capable(self) -> bool {
        self != Ecn::NotEct
    }
}
