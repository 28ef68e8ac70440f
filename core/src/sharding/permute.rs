//! Resharding by moving only the blocks that must move.
//!
//! When an array changes layout — `C[I, K_Y] → C[I, K_XY]`, or `C[I_X, K_Y] →
//! C[I, K_XY]` — every device needs a new block, but most of that block usually
//! lives on just one or a few other devices. Gathering the whole array and slicing
//! it would move far more than that. A collective permute instead sends each
//! device exactly the pieces of its new block it lacks, each from the nearest
//! device that holds it; whatever a device already holds stays put.
//!
//! [`permute_pieces`] lists those pieces; the planner prices them with
//! [`permute_cost`] and the emulator executes the same list, so the bytes the
//! emulator's trace records are the bytes the cost model charges. The time is the
//! busiest link's load over the one-way link bandwidth, routing each piece
//! dimension by dimension along the shortest way round each ring (a piece exactly
//! half way round is split between the two directions). For the exchange pattern
//! of an AllToAll this reproduces the book's AllToAll cost, which a test checks.
//!
//! ```
//! use ridgeline_core::sharding::Mesh;
//! use ridgeline_core::sharding::layout::Sharding;
//! use ridgeline_core::sharding::permute::permute_pieces;
//!
//! // C[I, K_Y] → C[I, K_XY] on X=2, Y=2: K-block y holds the new blocks of
//! // devices (y, 0) and (y, 1), so each device receives exactly one quarter of K.
//! let mesh = Mesh::parse("X=2, Y=2").unwrap();
//! let before = Sharding { rows: vec![], cols: vec![1], unreduced: vec![] };
//! let after = Sharding { rows: vec![], cols: vec![0, 1], unreduced: vec![] };
//! let pieces = permute_pieces([4, 8], &mesh, &before, &after, true);
//! // Devices (0, 0) and (1, 1) already hold theirs; the other two swap.
//! assert_eq!(pieces.len(), 2);
//! assert!(pieces.iter().all(|p| p.block.elements() == 4 * 2));
//! ```

use super::layout::{Block, IndexRange, Sharding};
use super::{Coord, Mesh};
use crate::comms::collectives::Network;
use crate::units::{Bytes, Seconds};

/// One piece of a permute: a block of the array sent from one device to another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PieceMove {
    /// The sending device (row-major over the mesh axes).
    pub from: usize,
    /// The receiving device.
    pub to: usize,
    /// The piece, in global indices of the array.
    pub block: Block,
}

/// The cost of a permute on a network.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PermuteCost {
    /// The most bytes any one device sends.
    pub bytes_per_device: Bytes,
    /// Bytes sent by all devices together.
    pub total_bytes: Bytes,
    /// Bytes crossing the busiest link in one direction.
    pub bytes_per_link: Bytes,
    /// The bandwidth term: the busiest link's bytes over the one-way bandwidth.
    pub t_bandwidth: Seconds,
    /// The latency term: the longest route's hops times the per-hop latency.
    pub t_latency: Seconds,
    /// The larger of the two terms.
    pub time: Seconds,
    /// Hops of the longest route.
    pub max_hops: u32,
}

/// Hops from position `a` to `b` on a ring or line of `n`, with the direction
/// (`+1` or `-1`); `None` for the direction when a ring's two ways tie.
fn way(a: u32, b: u32, n: u32, wrap: bool, bidirectional: bool) -> (u32, Option<i8>) {
    if a == b {
        return (0, Some(1));
    }
    if !wrap {
        return (a.abs_diff(b), Some(if b > a { 1 } else { -1 }));
    }
    let fwd = (b + n - a) % n;
    if !bidirectional {
        return (fwd, Some(1));
    }
    let back = n - fwd;
    match fwd.cmp(&back) {
        std::cmp::Ordering::Less => (fwd, Some(1)),
        std::cmp::Ordering::Greater => (back, Some(-1)),
        std::cmp::Ordering::Equal => (fwd, None),
    }
}

/// Hops between two devices, summed over the mesh axes.
pub fn distance(mesh: &Mesh, a: &Coord, b: &Coord, bidirectional: bool) -> u32 {
    mesh.axes()
        .iter()
        .enumerate()
        .map(|(i, ax)| way(a[i], b[i], ax.size, ax.wrap, bidirectional).0)
        .sum()
}

/// The pieces that resharding an array of global `shape` from `before` to `after`
/// must move: for every device, each part of its new block that it does not
/// already hold, sent by the nearest device holding that part (ties go to the
/// lowest device number). Devices holding partial sums only exchange with devices
/// of the same partial sum (equal coordinates along `before`'s unreduced axes).
pub fn permute_pieces(
    shape: [u64; 2],
    mesh: &Mesh,
    before: &Sharding,
    after: &Sharding,
    bidirectional: bool,
) -> Vec<PieceMove> {
    let devices = mesh.devices();
    let coords: Vec<Coord> = (0..devices).map(|d| mesh.coord(d)).collect();
    let held: Vec<Block> = coords
        .iter()
        .map(|c| before.block(shape, mesh, c))
        .collect();
    let cell = [
        shape[0] / mesh.size_of(&before.rows).max(1),
        shape[1] / mesh.size_of(&before.cols).max(1),
    ];
    let mut pieces = Vec::new();
    for (to, coord) in coords.iter().enumerate() {
        let want = after.block(shape, mesh, coord);
        if want.elements() == 0 || cell[0] == 0 || cell[1] == 0 {
            continue;
        }
        let cuts = |span: IndexRange, step: u64| {
            let first = span.start / step;
            let last = span.end.div_ceil(step);
            (first..last).map(move |i| IndexRange {
                start: (i * step).max(span.start),
                end: ((i + 1) * step).min(span.end),
            })
        };
        for rows in cuts(want.rows, cell[0]) {
            for cols in cuts(want.cols, cell[1]) {
                let piece = Block { rows, cols };
                if within(held[to], piece) {
                    continue;
                }
                let from = (0..devices)
                    .filter(|&h| {
                        within(held[h], piece)
                            && before
                                .unreduced
                                .iter()
                                .all(|&a| coords[h][a as usize] == coord[a as usize])
                    })
                    .min_by_key(|&h| (distance(mesh, &coords[h], coord, bidirectional), h));
                if let Some(from) = from {
                    pieces.push(PieceMove {
                        from,
                        to,
                        block: piece,
                    });
                }
            }
        }
    }
    pieces
}

/// Whether `inner` lies within `outer`.
pub fn within(outer: Block, inner: Block) -> bool {
    inner.rows.start >= outer.rows.start
        && inner.rows.end <= outer.rows.end
        && inner.cols.start >= outer.cols.start
        && inner.cols.end <= outer.cols.end
}

/// Prices `pieces` of `element_bytes`-byte elements on `net` over `mesh`.
#[allow(
    clippy::cast_possible_truncation,
    reason = "a coordinate taken modulo its axis size (a u32) fits a u32"
)]
pub fn permute_cost(
    pieces: &[PieceMove],
    mesh: &Mesh,
    element_bytes: f64,
    net: &Network,
) -> PermuteCost {
    let axes = mesh.axes();
    let devices = mesh.devices();
    // Load of each one-way link: (device, axis, direction) flattened.
    let mut load = vec![0.0f64; devices * axes.len() * 2];
    let mut sent = vec![0.0f64; devices];
    let mut max_hops = 0;
    for p in pieces {
        let bytes = p.block.elements() as f64 * element_bytes;
        sent[p.from] += bytes;
        let mut at = mesh.coord(p.from);
        let goal = mesh.coord(p.to);
        let mut hops = 0;
        for (i, ax) in axes.iter().enumerate() {
            let (n, dir) = way(at[i], goal[i], ax.size, ax.wrap, net.bidirectional);
            hops += n;
            // A tie half way round a ring sends half each way.
            let routes: &[(i8, f64)] = match dir {
                Some(1) => &[(1, 1.0)],
                Some(_) => &[(-1, 1.0)],
                None => &[(1, 0.5), (-1, 0.5)],
            };
            for &(d, share) in routes {
                let mut pos = at;
                for _ in 0..n {
                    let dev = mesh.device(&pos);
                    let slot = (dev * axes.len() + i) * 2 + usize::from(d < 0);
                    load[slot] += bytes * share;
                    pos[i] = (pos[i] as i64 + d as i64).rem_euclid(ax.size as i64) as u32;
                }
            }
            at[i] = goal[i];
        }
        max_hops = max_hops.max(hops);
    }
    let busiest = load.iter().copied().fold(0.0, f64::max);
    let t_bandwidth = if net.one_way.0 > 0.0 {
        busiest / net.one_way.0
    } else {
        0.0
    };
    let t_latency = net.hop_latency.0 * max_hops as f64;
    PermuteCost {
        bytes_per_device: Bytes(sent.iter().copied().fold(0.0, f64::max)),
        total_bytes: Bytes(sent.iter().sum()),
        bytes_per_link: Bytes(busiest),
        t_bandwidth: Seconds(t_bandwidth),
        t_latency: Seconds(t_latency),
        time: Seconds(t_bandwidth.max(t_latency)),
        max_hops,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::comms::collectives::{cost, Collective, RingAxis};
    use crate::hardware::chip;

    fn layout(rows: &[u8], cols: &[u8]) -> Sharding {
        Sharding {
            rows: rows.to_vec(),
            cols: cols.to_vec(),
            unreduced: Vec::new(),
        }
    }

    #[test]
    fn an_all_to_all_pattern_costs_what_the_book_says() {
        // Moving X from rows to columns on one ring is the book's AllToAll.
        for n in [2u32, 3, 4, 5, 8] {
            for (wrap, bidi) in [(true, true), (true, false), (false, true)] {
                let mesh = Mesh::parse(&format!("X={n}")).unwrap().with_wrap_all(wrap);
                let mut net = Network::ici(chip("v5e").unwrap()).unwrap();
                if !bidi {
                    net = net.one_way_only();
                }
                let side = 8 * n as u64;
                let pieces = permute_pieces(
                    [side, side],
                    &mesh,
                    &layout(&[0], &[]),
                    &layout(&[], &[0]),
                    bidi,
                );
                let c = permute_cost(&pieces, &mesh, 2.0, &net);
                let v = Bytes((side * side) as f64 * 2.0);
                let book =
                    cost(Collective::AllToAll, v, &[RingAxis { size: n, wrap }], &net).unwrap();
                let rel = (c.t_bandwidth.0 / book.t_bandwidth.0 - 1.0).abs();
                assert!(
                    rel < 1e-9,
                    "n={n} wrap={wrap} bidi={bidi}: {} vs {}",
                    c.t_bandwidth.0,
                    book.t_bandwidth.0
                );
                assert!((c.bytes_per_device.0 - book.bytes_per_device.0).abs() < 1e-6);
            }
        }
    }

    #[test]
    fn moving_a_minor_axis_sends_one_block_not_the_array() {
        // C[I_X, K_Y] → C[I, K_XY] on 8×8: each device receives one new block
        // (an eighth of it already local on the diagonal), never the whole array.
        let mesh = Mesh::parse("X=8, Y=8").unwrap();
        let shape = [256, 256];
        let pieces = permute_pieces(
            shape,
            &mesh,
            &layout(&[0], &[1]),
            &layout(&[], &[0, 1]),
            true,
        );
        let block = 256.0 * 256.0 / 64.0;
        let mut received = vec![0.0; 64];
        for p in &pieces {
            assert_ne!(p.from, p.to);
            received[p.to] += p.block.elements() as f64;
        }
        for (d, r) in received.iter().enumerate() {
            let c = mesh.coord(d);
            let expect = if c[0] == c[1] {
                block * 7.0 / 8.0
            } else {
                block
            };
            assert_eq!(*r, expect, "device {d}");
        }
    }

    #[test]
    fn an_unchanged_layout_moves_nothing() {
        let mesh = Mesh::parse("X=4, Y=2").unwrap();
        let l = layout(&[1], &[0]);
        assert!(permute_pieces([8, 8], &mesh, &l, &l, true).is_empty());
        let net = Network::ici(chip("v5e").unwrap()).unwrap();
        assert_eq!(permute_cost(&[], &mesh, 2.0, &net).time, Seconds(0.0));
    }
}
