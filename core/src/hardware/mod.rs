//! Chips and what is inside them (Parts 1, 2 and 12's tables): the registry of the
//! book's hardware, and the TPU's parts as the book draws them.
//!
//! | file | what |
//! |---|---|
//! | `registry.rs` | every chip of the book's spec tables with its source: FLOP/s per dtype, HBM, ICI, PCIe, DCN, prices; [`Chip::ridge`], the ridge point of a chip and link |
//! | `tpu.rs` | slices of a TPU torus: wraparound, hop distances, hosts, point-to-point transfers, MXU and VPU throughput |
//! | `chip_map.rs` | a map of one TPU chip: its parts and the bandwidth of every path data takes |
//! | `streaming.rs` | how a TPU streams an operation through HBM, VMEM and the compute units |
//! | `systolic.rs` | the MXU as a weight-stationary systolic array, stepped cycle by cycle |
//!
//! The registry's items are re-exported here: `hardware::chip("v5e")`.

mod registry;
pub use registry::*;

pub mod chip_map;
pub mod streaming;
pub mod systolic;
pub mod tpu;
