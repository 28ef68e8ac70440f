//! Who holds what before and after each collective: the four collectives run
//! on a one-way ring of `n` devices with labelled pieces instead of numbers,
//! so that the result says which device ends with which piece, or with which
//! reduction of whose pieces (the book's comparison figure of AllGather,
//! ReduceScatter and AllToAll on three devices, with AllReduce beside them).
//!
//! A piece is named by its index in the array (`0 … n−1`) and by the devices
//! whose contributions it holds: one device for a piece as it started, every
//! device for a fully reduced one.
//!
//! ```
//! use ridgeline_core::comms::collectives::Collective;
//! use ridgeline_core::comms::pieces::{pieces, Piece};
//!
//! let rs = pieces(Collective::ReduceScatter, 3).unwrap();
//! // Device 1 started with its own contribution to pieces 0, 1 and 2…
//! assert_eq!(rs.before[1], vec![Piece::own(0, 1), Piece::own(1, 1), Piece::own(2, 1)]);
//! // …and ends with piece 1 reduced over all three devices.
//! assert_eq!(rs.after[1], vec![Piece { index: 1, from: vec![0, 1, 2] }]);
//! ```
//!
//! The ring is simulated step by step (each device sends to the next, as on a
//! ring without the second direction), so the step and send counts are the
//! one-way ring's, which [`super::collectives::cost`] prices.

use super::collectives::Collective;

/// Fewest devices the comparison runs on.
pub const MIN_DEVICES: u32 = 2;
/// Most devices the comparison runs on (a piece's label grows with the count).
pub const MAX_DEVICES: u32 = 8;

/// One labelled piece a device holds.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Piece {
    /// Which piece of the array (`0 … n−1`).
    pub index: u32,
    /// The devices whose contributions it holds, ascending: one for a piece as
    /// it started, several for a reduction of theirs.
    pub from: Vec<u32>,
}

impl Piece {
    /// Piece `index` as device `device` started with it.
    pub fn own(index: u32, device: u32) -> Piece {
        Piece {
            index,
            from: vec![device],
        }
    }

    /// Whether it combines several devices' contributions.
    pub fn is_reduced(&self) -> bool {
        self.from.len() > 1
    }
}

/// What every device holds before and after one collective.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pieces {
    /// The collective.
    pub collective: Collective,
    /// Devices on the ring.
    pub devices: u32,
    /// Per device, the pieces it holds before, by index.
    pub before: Vec<Vec<Piece>>,
    /// Per device, the pieces it holds after, by index.
    pub after: Vec<Vec<Piece>>,
    /// Ring steps the one-way ring takes.
    pub steps: u32,
    /// Pieces sent from one device to the next, summed over every step.
    pub sends: u32,
}

/// Why the comparison cannot run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadDevices(pub u32);

impl std::fmt::Display for BadDevices {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "use {MIN_DEVICES} to {MAX_DEVICES} devices, not {}",
            self.0
        )
    }
}

impl std::error::Error for BadDevices {}

/// What each device holds before and after `collective` on a one-way ring of
/// `devices`.
///
/// Before an AllGather device `d` holds piece `d`; before the others it holds
/// its own contribution to every piece. The ring then runs: an AllGather
/// forwards the piece it received last; a ReduceScatter forwards its running
/// reduction of piece `d − 1 − s` at step `s`, which the next device combines
/// with its own; an AllReduce is a ReduceScatter followed by an AllGather of
/// the reduced pieces; an AllToAll forwards every piece not yet at its
/// destination (piece `i` is bound for device `i`).
#[allow(
    clippy::cast_possible_truncation,
    reason = "every list counted holds at most `devices` (a u32) pieces or devices"
)]
pub fn pieces(collective: Collective, devices: u32) -> Result<Pieces, BadDevices> {
    if !(MIN_DEVICES..=MAX_DEVICES).contains(&devices) {
        return Err(BadDevices(devices));
    }
    let n = devices;
    let next = |d: u32| (d + 1) % n;
    let all_own = |d: u32| (0..n).map(|i| Piece::own(i, d)).collect::<Vec<_>>();
    let before: Vec<Vec<Piece>> = match collective {
        Collective::AllGather => (0..n).map(|d| vec![Piece::own(d, d)]).collect(),
        _ => (0..n).map(all_own).collect(),
    };
    let mut held = before.clone();
    let mut steps = 0;
    let mut sends = 0;
    // An AllGather of what each device holds at index `d` (its own piece, or
    // its reduced one): n − 1 steps, each forwarding the piece received last.
    let gather = |held: &mut Vec<Vec<Piece>>, steps: &mut u32, sends: &mut u32| {
        for s in 0..n - 1 {
            let sent: Vec<(u32, Piece)> = (0..n)
                .filter_map(|d| {
                    let index = (d + n - s) % n;
                    let piece = held[d as usize].iter().find(|p| p.index == index)?;
                    Some((next(d), piece.clone()))
                })
                .collect();
            *sends += sent.len() as u32;
            for (to, piece) in sent {
                held[to as usize].push(piece);
            }
            *steps += 1;
        }
    };
    match collective {
        Collective::AllGather => gather(&mut held, &mut steps, &mut sends),
        Collective::ReduceScatter | Collective::AllReduce => {
            for s in 0..n - 1 {
                let sent: Vec<(u32, Piece)> = (0..n)
                    .map(|d| {
                        let index = (d + 2 * n - 1 - s) % n;
                        (next(d), held[d as usize][index as usize].clone())
                    })
                    .collect();
                sends += sent.len() as u32;
                for (to, piece) in sent {
                    let mine = &mut held[to as usize][piece.index as usize];
                    mine.from.extend(piece.from);
                    mine.from.sort_unstable();
                    mine.from.dedup();
                }
                steps += 1;
            }
            // Each device keeps the one piece it has reduced fully: its own index.
            for (d, h) in held.iter_mut().enumerate() {
                h.retain(|p| p.index == d as u32);
            }
            if collective == Collective::AllReduce {
                gather(&mut held, &mut steps, &mut sends);
            }
        }
        Collective::AllToAll => {
            // Pieces in transit on each device: those not bound for it.
            let mut kept: Vec<Vec<Piece>> = (0..n).map(|d| vec![Piece::own(d, d)]).collect();
            let mut transit: Vec<Vec<Piece>> = (0..n)
                .map(|d| all_own(d).into_iter().filter(|p| p.index != d).collect())
                .collect();
            while transit.iter().any(|t| !t.is_empty()) {
                let mut arriving: Vec<Vec<Piece>> = vec![Vec::new(); n as usize];
                for d in 0..n {
                    let out = std::mem::take(&mut transit[d as usize]);
                    sends += out.len() as u32;
                    arriving[next(d) as usize].extend(out);
                }
                for (d, pieces) in arriving.into_iter().enumerate() {
                    for p in pieces {
                        if p.index == d as u32 {
                            kept[d].push(p);
                        } else {
                            transit[d].push(p);
                        }
                    }
                }
                steps += 1;
            }
            held = kept;
        }
    }
    for h in &mut held {
        h.sort();
    }
    Ok(Pieces {
        collective,
        devices: n,
        before,
        after: held,
        steps,
        sends,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::comms::collectives::{cost, Network, RingAxis};
    use crate::hardware::chip;
    use crate::units::Bytes;

    fn p(index: u32, from: &[u32]) -> Piece {
        Piece {
            index,
            from: from.to_vec(),
        }
    }

    /// The book's figure, three devices: who ends with what.
    #[test]
    fn three_devices_as_the_book_draws_them() {
        let ag = pieces(Collective::AllGather, 3).unwrap();
        assert_eq!(
            ag.before,
            vec![vec![p(0, &[0])], vec![p(1, &[1])], vec![p(2, &[2])]]
        );
        for d in 0..3 {
            assert_eq!(ag.after[d], vec![p(0, &[0]), p(1, &[1]), p(2, &[2])]);
        }
        let rs = pieces(Collective::ReduceScatter, 3).unwrap();
        for d in 0..3u32 {
            assert_eq!(
                rs.before[d as usize],
                vec![p(0, &[d]), p(1, &[d]), p(2, &[d])]
            );
            assert_eq!(rs.after[d as usize], vec![p(d, &[0, 1, 2])]);
        }
        let ar = pieces(Collective::AllReduce, 3).unwrap();
        for d in 0..3 {
            assert_eq!(
                ar.after[d],
                vec![p(0, &[0, 1, 2]), p(1, &[0, 1, 2]), p(2, &[0, 1, 2])]
            );
        }
        let a2a = pieces(Collective::AllToAll, 3).unwrap();
        for d in 0..3u32 {
            assert_eq!(a2a.before[d as usize], rs.before[d as usize]);
            assert_eq!(
                a2a.after[d as usize],
                vec![p(d, &[0]), p(d, &[1]), p(d, &[2])]
            );
        }
        assert_eq!(
            [ag.steps, rs.steps, ar.steps, a2a.steps],
            [2, 2, 4, 2],
            "one-way ring steps"
        );
    }

    /// Every ring size: the results equal the definitions, and the pieces
    /// sent are the bytes the one-way cost model charges.
    #[test]
    fn every_size_matches_the_definitions_and_the_cost_model() {
        let net = Network::ici(chip("v5e").unwrap()).unwrap().one_way_only();
        for n in MIN_DEVICES..=MAX_DEVICES {
            let everyone: Vec<u32> = (0..n).collect();
            let ag = pieces(Collective::AllGather, n).unwrap();
            let rs = pieces(Collective::ReduceScatter, n).unwrap();
            let ar = pieces(Collective::AllReduce, n).unwrap();
            let a2a = pieces(Collective::AllToAll, n).unwrap();
            for d in 0..n {
                let du = d as usize;
                let gathered: Vec<Piece> = (0..n).map(|i| p(i, &[i])).collect();
                assert_eq!(ag.after[du], gathered, "AllGather n={n}");
                assert_eq!(rs.after[du], vec![p(d, &everyone)], "ReduceScatter n={n}");
                let reduced: Vec<Piece> = (0..n).map(|i| p(i, &everyone)).collect();
                assert_eq!(ar.after[du], reduced, "AllReduce n={n}");
                let collected: Vec<Piece> = (0..n).map(|s| p(d, &[s])).collect();
                assert_eq!(a2a.after[du], collected, "AllToAll n={n}");
            }
            // Pieces are V/n for the AllGather family (V the gathered or
            // unreduced array) and V/n² for an AllToAll (V the whole array).
            let v = 1e9;
            let nf = n as f64;
            let ring = [RingAxis::ring(n)];
            for (r, piece) in [(&ag, v / nf), (&rs, v / nf), (&ar, v / nf)] {
                let c = cost(r.collective, Bytes(v), &ring, &net).unwrap();
                assert_eq!(r.steps, c.steps, "{} n={n}", r.collective);
                let per_device = r.sends as f64 / nf * piece;
                assert!((per_device / c.bytes_per_device.0 - 1.0).abs() < 1e-12);
            }
            // An AllToAll's pieces travel 1, 2, … n−1 hops: every link carries
            // the busiest link's load.
            let c = cost(Collective::AllToAll, Bytes(v), &ring, &net).unwrap();
            let per_link = a2a.sends as f64 / nf * v / (nf * nf);
            assert!((per_link / c.bytes_per_link.0 - 1.0).abs() < 1e-12, "n={n}");
            assert_eq!(a2a.steps, n - 1);
        }
    }

    #[test]
    fn bad_counts_are_refused() {
        assert_eq!(pieces(Collective::AllGather, 1), Err(BadDevices(1)));
        assert_eq!(
            pieces(Collective::AllToAll, 9).unwrap_err().to_string(),
            "use 2 to 8 devices, not 9"
        );
    }
}
