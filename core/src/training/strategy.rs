//! Strategies: how the chips of one slice are divided ([`Parallelism`]) and the book's names for the combinations ([`Scheme`]).

use std::fmt;

/// How the chips of one slice are divided; slices are always joined by pure data
/// parallelism over the data-centre network.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Parallelism {
    /// Pure data-parallel replicas (parameters replicated, gradients all-reduced).
    pub data: u32,
    /// FSDP (ZeRO-3) shards: batch, parameters, gradients and optimizer state all split.
    pub fsdp: u32,
    /// Tensor (Megatron) parallelism: `F` split, activations gathered along `D`.
    pub tensor: u32,
    /// Pipeline stages (layers split).
    pub pipeline: u32,
    /// Microbatches per step when pipelining.
    pub microbatches: u32,
    /// Mesh axes spanned by data parallelism and FSDP, `M_X`.
    pub axes_data: u8,
    /// Mesh axes spanned by tensor parallelism, `M_Y`.
    pub axes_tensor: u8,
    /// One mesh axis is cut between FSDP and tensor parallelism and counted in
    /// both `M_X` and `M_Y` (a fixed split of a mesh, [`Parallelism::mesh_split`]).
    pub shared_axis: bool,
}

impl Parallelism {
    pub(super) const ONE: Parallelism = Parallelism {
        data: 1,
        fsdp: 1,
        tensor: 1,
        pipeline: 1,
        microbatches: 1,
        axes_data: 0,
        axes_tensor: 0,
        shared_axis: false,
    };

    /// `n`-way pure data parallelism over `axes` mesh axes.
    pub const fn data_parallel(n: u32, axes: u8) -> Parallelism {
        Parallelism {
            data: n,
            axes_data: axes,
            ..Parallelism::ONE
        }
    }

    /// `n`-way FSDP over `axes` mesh axes.
    pub const fn fsdp(n: u32, axes: u8) -> Parallelism {
        Parallelism {
            fsdp: n,
            axes_data: axes,
            ..Parallelism::ONE
        }
    }

    /// `n`-way tensor parallelism over `axes` mesh axes.
    pub const fn tensor(n: u32, axes: u8) -> Parallelism {
        Parallelism {
            tensor: n,
            axes_tensor: axes,
            ..Parallelism::ONE
        }
    }

    /// `x`-way FSDP over `m_x` axes times `y`-way tensor parallelism over `m_y` axes.
    pub const fn fsdp_tensor(x: u32, y: u32, m_x: u8, m_y: u8) -> Parallelism {
        Parallelism {
            fsdp: x,
            tensor: y,
            axes_data: m_x,
            axes_tensor: m_y,
            ..Parallelism::ONE
        }
    }

    /// The FSDP × tensor split of a whole mesh with `tensor`-way tensor
    /// parallelism laid on its last axes and FSDP on its first, as the book's
    /// interactive roofline steps through them (Part 5): `M_Y` counts the axes
    /// the tensor degree touches, `M_X` those the FSDP degree touches, and an
    /// axis cut between the two counts for both (512 × 8 on a 16 × 16 × 16 mesh
    /// is FSDP over three axes and tensor over one). `tensor = 1` is FSDP
    /// over every axis and `tensor` = the mesh's chips is tensor parallelism over
    /// every axis. `None` if the degree cannot be laid out that way (it must be
    /// a whole number of trailing axes times a divisor of the next one).
    pub fn mesh_split(mesh: &[u32], tensor: u32) -> Option<Parallelism> {
        let chips = mesh.iter().try_fold(1u32, |n, &a| n.checked_mul(a))?;
        let axes = u8::try_from(mesh.len()).ok()?;
        if tensor == 0 || chips == 0 || !chips.is_multiple_of(tensor) {
            return None;
        }
        // Axes a degree touches, filling `order` whole before cutting the next.
        fn touched(order: impl Iterator<Item = u32>, degree: u32) -> Option<u8> {
            let (mut left, mut n) = (degree, 0u8);
            for a in order {
                if left == 1 {
                    break;
                }
                n += 1;
                if left.is_multiple_of(a) {
                    left /= a;
                } else if a.is_multiple_of(left) {
                    left = 1;
                } else {
                    return None;
                }
            }
            (left == 1).then_some(n)
        }
        let fsdp = chips / tensor;
        let m_y = touched(mesh.iter().rev().copied(), tensor)?;
        let m_x = touched(mesh.iter().copied(), fsdp)?;
        Some(match (fsdp, tensor) {
            (_, 1) => Parallelism::fsdp(fsdp, axes),
            (1, _) => Parallelism::tensor(tensor, axes),
            _ => Parallelism {
                shared_axis: m_x + m_y > axes,
                ..Parallelism::fsdp_tensor(fsdp, tensor, m_x, m_y)
            },
        })
    }

    /// Every split of a mesh [`Parallelism::mesh_split`] can lay out, from
    /// FSDP alone to tensor parallelism alone (13 on a 16 × 16 × 16 mesh).
    pub fn mesh_splits(mesh: &[u32]) -> Vec<Parallelism> {
        let chips: u64 = mesh.iter().map(|&a| a as u64).product();
        let Ok(chips) = u32::try_from(chips) else {
            return Vec::new();
        };
        crate::hardware::tpu::divisors(chips)
            .into_iter()
            .filter_map(|y| Parallelism::mesh_split(mesh, y))
            .collect()
    }

    /// `stages` pipeline stages fed `microbatches` microbatches, combined with `self`.
    pub const fn with_pipeline(self, stages: u32, microbatches: u32) -> Parallelism {
        Parallelism {
            pipeline: stages,
            microbatches,
            ..self
        }
    }

    /// Chips of one slice this uses: `data · fsdp · tensor · pipeline`.
    pub fn chips(&self) -> u64 {
        (self.data as u64 * self.fsdp as u64)
            .saturating_mul(self.tensor as u64)
            .saturating_mul(self.pipeline as u64)
    }

    /// The book's name for this combination, with the axis sizes of a mixed
    /// one: `FSDP 64 × tensor 8`, `data parallel`.
    pub fn label(&self) -> String {
        match self.scheme() {
            Scheme::FsdpTensor => format!("FSDP {} × tensor {}", self.fsdp, self.tensor),
            s => s.label().to_string(),
        }
    }

    /// The book's name for this combination.
    pub fn scheme(&self) -> Scheme {
        let used = [self.data, self.fsdp, self.tensor, self.pipeline]
            .iter()
            .filter(|&&d| d > 1)
            .count();
        match (
            self.data > 1,
            self.fsdp > 1,
            self.tensor > 1,
            self.pipeline > 1,
        ) {
            _ if used == 0 => Scheme::Single,
            (true, false, false, false) => Scheme::DataParallel,
            (false, true, false, false) => Scheme::Fsdp,
            (false, false, true, false) => Scheme::Tensor,
            (false, true, true, false) => Scheme::FsdpTensor,
            (false, false, false, true) => Scheme::Pipeline,
            _ => Scheme::Mixed,
        }
    }
}

/// The named strategies of Part 5.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scheme {
    /// One chip per slice.
    Single,
    /// Pure data parallelism.
    DataParallel,
    /// Fully-sharded data parallelism (ZeRO-3).
    Fsdp,
    /// Tensor (Megatron) parallelism.
    Tensor,
    /// Mixed FSDP + tensor parallelism.
    FsdpTensor,
    /// Pipeline parallelism.
    Pipeline,
    /// Any other combination.
    Mixed,
}

impl Scheme {
    /// Short label for legends.
    pub fn label(self) -> &'static str {
        match self {
            Scheme::Single => "single chip",
            Scheme::DataParallel => "data parallel",
            Scheme::Fsdp => "FSDP",
            Scheme::Tensor => "tensor parallel",
            Scheme::FsdpTensor => "FSDP + tensor",
            Scheme::Pipeline => "pipeline",
            Scheme::Mixed => "mixed",
        }
    }
}

impl fmt::Display for Scheme {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}
