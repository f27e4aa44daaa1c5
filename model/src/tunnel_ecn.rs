//! ECN across a WAN tunnel (PE-01, PE-02, PE-06): RFC 6040's encapsulation
//! and decapsulation tables and draft-hu-rtgwg-pre-ecn-wan's decapsulation
//! table, where an outer ECT(1) is a light congestion mark inside the
//! provider's domain. The reference of the ingress and egress PE roles.
//!
//! Encapsulation (RFC 6040 section 4.1; the draft's "New IP in IP
//! Encapsulation Behaviours"): normal mode copies the inner ECN field to the
//! outer header; compatibility mode (for decapsulators that do not know ECN)
//! sends Not-ECT outside.
//!
//! Decapsulation, RFC 6040 section 4.2 (`(!!!)` and `(!)` are the
//! combinations RFC 6040 says should be logged as unexpected):
//!
//! ```text
//!  inner \ outer | Not-ECT | ECT(0)       | ECT(1)       | CE
//!  Not-ECT       | Not-ECT | Not-ECT(!!!) | Not-ECT(!!!) | drop (!!!)
//!  ECT(0)        | ECT(0)  | ECT(0)       | ECT(1)       | CE
//!  ECT(1)        | ECT(1)  | ECT(1) (!)   | ECT(1)       | CE
//!  CE            | CE      | CE           | CE (!!!)     | CE
//! ```
//!
//! Inside the domain of draft-hu-rtgwg-pre-ecn-wan ("New IP in IP
//! Decapsulation Behaviour") the ECT(1) column changes: an outer ECT(1) is a
//! light mark ("light CE"), counted at the egress PE and not copied inward,
//! so the inner ECT(0) and ECT(1) leave as they came; everything else is
//! RFC 6040's (CE is copied, Not-ECT inner with CE outer is dropped). At an
//! egress PE whose output leaves the domain, RFC 6040 applies unchanged.

use cngw_packet::Ecn;

/// RFC 6040 encapsulation modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EncapMode {
    /// The outer ECN field is the inner one.
    Normal,
    /// The outer ECN field is Not-ECT.
    Compatibility,
}

/// The outer ECN field of a packet whose inner field is `inner`.
pub fn encapsulate(inner: Ecn, mode: EncapMode) -> Ecn {
    match mode {
        EncapMode::Normal => inner,
        EncapMode::Compatibility => Ecn::NotEct,
    }
}

/// What decapsulation does with a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decap {
    /// The inner ECN field to forward, or `None`: drop the packet.
    pub inner: Option<Ecn>,
    /// The combination is one RFC 6040 says to log as unexpected.
    pub alarm: bool,
    /// A light congestion mark (outer ECT(1) inside the pre-ECN domain).
    pub light: bool,
}

/// Which decapsulation table applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecapTable {
    /// RFC 6040 section 4.2: outside the pre-ECN domain.
    Rfc6040,
    /// draft-hu-rtgwg-pre-ecn-wan: inside the domain.
    PreEcn,
}

/// Decapsulates a packet with inner ECN `inner` and outer ECN `outer`.
pub fn decapsulate(inner: Ecn, outer: Ecn, table: DecapTable) -> Decap {
    use Ecn::*;
    let keep = |e: Ecn, alarm: bool| Decap {
        inner: Some(e),
        alarm,
        light: false,
    };
    match (inner, outer, table) {
        (NotEct, NotEct, _) => keep(NotEct, false),
        (NotEct, Ect0 | Ect1, _) => keep(NotEct, true),
        (NotEct, Ce, _) => Decap {
            inner: None,
            alarm: true,
            light: false,
        },
        (Ect0 | Ect1, Ect1, DecapTable::PreEcn) => Decap {
            inner: Some(inner),
            alarm: false,
            light: true,
        },
        (Ect0, NotEct | Ect0, _) => keep(Ect0, false),
        (Ect0, Ect1, DecapTable::Rfc6040) => keep(Ect1, false),
        (Ect1, NotEct | Ect1, _) => keep(Ect1, false),
        (Ect1, Ect0, _) => keep(Ect1, true),
        (Ect0 | Ect1, Ce, _) => keep(Ce, false),
        (Ce, Ect1, _) => keep(Ce, true),
        (Ce, _, _) => keep(Ce, false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Ecn::*;

    const ALL: [Ecn; 4] = [NotEct, Ect0, Ect1, Ce];

    /// PE-01: every cell of the encapsulation table.
    #[test]
    fn pe_01_encapsulation_table_cell_by_cell() {
        for inner in ALL {
            assert_eq!(encapsulate(inner, EncapMode::Normal), inner);
            assert_eq!(encapsulate(inner, EncapMode::Compatibility), NotEct);
        }
    }

    /// The decapsulation tables as the documents print them, row by row
    /// (inner), column by column (outer Not-ECT, ECT(0), ECT(1), CE):
    /// `Some(ecn)` forwarded, `None` dropped; `!` an alarm, `L` light.
    fn table(t: DecapTable) -> [[(Option<Ecn>, &'static str); 4]; 4] {
        match t {
            DecapTable::Rfc6040 => [
                [
                    (Some(NotEct), ""),
                    (Some(NotEct), "!"),
                    (Some(NotEct), "!"),
                    (None, "!"),
                ],
                [
                    (Some(Ect0), ""),
                    (Some(Ect0), ""),
                    (Some(Ect1), ""),
                    (Some(Ce), ""),
                ],
                [
                    (Some(Ect1), ""),
                    (Some(Ect1), "!"),
                    (Some(Ect1), ""),
                    (Some(Ce), ""),
                ],
                [
                    (Some(Ce), ""),
                    (Some(Ce), ""),
                    (Some(Ce), "!"),
                    (Some(Ce), ""),
                ],
            ],
            DecapTable::PreEcn => [
                [
                    (Some(NotEct), ""),
                    (Some(NotEct), "!"),
                    (Some(NotEct), "!"),
                    (None, "!"),
                ],
                [
                    (Some(Ect0), ""),
                    (Some(Ect0), ""),
                    (Some(Ect0), "L"),
                    (Some(Ce), ""),
                ],
                [
                    (Some(Ect1), ""),
                    (Some(Ect1), "!"),
                    (Some(Ect1), "L"),
                    (Some(Ce), ""),
                ],
                [
                    (Some(Ce), ""),
                    (Some(Ce), ""),
                    (Some(Ce), "!"),
                    (Some(Ce), ""),
                ],
            ],
        }
    }

    /// PE-02, PE-06: every cell of RFC 6040's table (outside the domain)
    /// and of the draft's (inside): outer ECT(1) is light and not copied
    /// inward, CE is copied, Not-ECT inner with CE outer is dropped.
    #[test]
    fn pe_02_pe_06_decapsulation_tables_cell_by_cell() {
        for t in [DecapTable::Rfc6040, DecapTable::PreEcn] {
            let want = table(t);
            for (i, inner) in ALL.into_iter().enumerate() {
                for (o, outer) in ALL.into_iter().enumerate() {
                    let (ecn, flags) = want[i][o];
                    let got = decapsulate(inner, outer, t);
                    assert_eq!(
                        got,
                        Decap {
                            inner: ecn,
                            alarm: flags.contains('!'),
                            light: flags.contains('L'),
                        },
                        "{t:?}: inner {inner:?}, outer {outer:?}"
                    );
                }
            }
        }
    }

    /// The two tables differ only where the outer field is ECT(1) and the
    /// inner one ECT(0) or ECT(1).
    #[test]
    fn pe_02_tables_differ_only_in_the_light_cells() {
        for inner in ALL {
            for outer in ALL {
                let a = decapsulate(inner, outer, DecapTable::Rfc6040);
                let b = decapsulate(inner, outer, DecapTable::PreEcn);
                let light = outer == Ect1 && matches!(inner, Ect0 | Ect1);
                assert_eq!(a != b, light, "{inner:?} {outer:?}");
                assert_eq!(b.light, light);
            }
        }
    }
}
