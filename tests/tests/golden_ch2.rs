//! Part 2 (TPUs): every `ch2-*` problem reproduced by `ridgeline-core`.

#![allow(clippy::unwrap_used)]

use ridgeline_core::dtype::Dtype;
use ridgeline_core::hardware::tpu::{
    core_mxu_rate, cores_per_chip, mxu_rate, transfer, vmem_bandwidth, vpu_rate, vreg_bytes,
    weight_load_time, which_link_binds, LinkLoad, Slice,
};
use ridgeline_core::hardware::{chip, tensor_core, Link, VMEM_OVER_HBM};
use ridgeline_core::roofline::ops::Op;
use ridgeline_core::units::{Bytes, Flops};
use ridgeline_tests::{assert_book, assert_rel, problem};

#[test]
pub(crate) fn ex1_mxu_throughput() {
    // Symbolic answer "~5e13 per MXU; ~2e14 per chip": 2·128²·1.5e9 and four MXUs.
    let core = tensor_core("v5e").unwrap();
    let per_mxu = mxu_rate(core).unwrap().0;
    assert_rel("ch2-ex1 per MXU", per_mxu, 5e13, 0.05);
    let per_chip =
        core_mxu_rate(core).unwrap().0 * cores_per_chip(chip("v5e").unwrap()).unwrap() as f64;
    assert_rel("ch2-ex1 per chip", per_chip, 2e14, 0.02);
    // It is the registry's v5e peak, to 0.2%.
    assert_rel(
        "ch2-ex1 vs peak",
        per_chip,
        chip("v5e").unwrap().peak(Dtype::Bf16).unwrap().0,
        0.002,
    );
}

#[test]
pub(crate) fn ex2_v5p_pod_flops() {
    let pod = Slice::full_pod(chip("v5p").unwrap()).unwrap();
    assert_eq!(pod.chips(), 8960);
    assert_book("ch2-ex2", pod.peak(Dtype::Bf16).unwrap().0);
}

#[test]
pub(crate) fn ex3_vmem_intensity() {
    // Answer "10-20": the HBM ridge divided by the VMEM/HBM bandwidth ratio.
    let v5e = chip("v5e").unwrap();
    let vmem_ridge = v5e.peak(Dtype::Bf16).unwrap() / vmem_bandwidth(v5e);
    assert!((10.0..=20.0).contains(&vmem_ridge.0), "{}", vmem_ridge.0);
    assert_rel("ch2-ex3", vmem_ridge.0, 240.0 / VMEM_OVER_HBM.value, 0.01);
}

#[test]
pub(crate) fn ex4_vreg_memory() {
    let bytes = vreg_bytes(tensor_core("v5p").unwrap()).unwrap();
    assert_book("ch2-ex4", bytes.0 / 1024.0);
}

#[test]
pub(crate) fn q1_weight_streaming_bound() {
    let p = problem("ch2-q1");
    let bytes = Dtype::Bf16.size_of(p.input("params"));
    let t = weight_load_time(bytes, p.input("chips") as u64, chip("v4p").unwrap()).unwrap();
    assert_book("ch2-q1", t.0 * 1e3);
}

#[test]
pub(crate) fn q2_pods() {
    let v5e = Slice::full_pod(chip("v5e").unwrap()).unwrap();
    assert_book("ch2-q2a", v5e.hosts() as f64);
    assert_book("ch2-q2b", v5e.cores() as f64);
    assert_book("ch2-q2c", v5e.peak(Dtype::Bf16).unwrap().0);
    assert_book("ch2-q2d", v5e.hbm().0 / 1e12);
    let v5p = Slice::full_pod(chip("v5p").unwrap()).unwrap();
    assert_book("ch2-q2e", v5p.hosts() as f64);
    assert_book("ch2-q2f", v5p.cores() as f64);
    assert_book("ch2-q2g", v5p.peak(Dtype::Bf16).unwrap().0);
    assert_book("ch2-q2h", v5p.hbm().0 / 1e12);
}

#[test]
pub(crate) fn q3_pcie_intensity() {
    // The question assumes the generic per-TPU PCIe figure (~1.6e10 B/s, the
    // registry's v5e/v5p entry) rather than v6e's own 3.2e10; B ≪ D reduces the
    // threshold to B > C / W_pcie.
    let v6e = chip("v6e").unwrap();
    let generic_pcie = chip("v5e").unwrap().bandwidth(Link::Pcie).unwrap();
    let ridge = v6e.peak(Dtype::Bf16).unwrap() / generic_pcie;
    assert_book("ch2-q3", ridge.0);
    // The exact crossing with F = 4D tends to C/W as D grows.
    let d = 1e9;
    let op = Op::Matmul {
        b: 1.0,
        d,
        f: 4.0 * d,
        act: Dtype::Bf16,
        weight: Dtype::Bf16,
    };
    assert_rel(
        "ch2-q3 exact",
        op.critical_batch(ridge).unwrap(),
        ridge.0,
        1e-3,
    );
    // With v6e's own PCIe bandwidth the threshold halves.
    assert_rel(
        "ch2-q3 v6e",
        v6e.ridge(Dtype::Bf16, Link::Pcie).unwrap().0,
        28_750.0,
        1e-9,
    );
}

fn int8_matmul() -> Op {
    let p = problem("ch2-q4a");
    Op::Matmul {
        b: 1.0,
        d: p.input("D"),
        f: p.input("F"),
        act: Dtype::Int8,
        weight: Dtype::Int8,
    }
}

#[test]
pub(crate) fn q4_int8_matmul_from_hbm_and_vmem() {
    let v5e = chip("v5e").unwrap();
    let hbm = int8_matmul()
        .critical_batch(v5e.ridge(Dtype::Int8, Link::Hbm).unwrap())
        .unwrap();
    assert_book("ch2-q4a", hbm);
    let vmem_ridge = v5e.peak(Dtype::Int8).unwrap() / vmem_bandwidth(v5e);
    assert_book("ch2-q4b", int8_matmul().critical_batch(vmem_ridge).unwrap());
}

#[test]
pub(crate) fn q5_point_to_point() {
    let s = Slice::new(chip("v5e").unwrap(), &[4, 4]).unwrap();
    let (a, b) = ([0, 0, 0], [3, 3, 0]);
    assert_book("ch2-q5a", s.first_byte(a, b).unwrap().0 * 1e6);
    let bytes = Dtype::Bf16.size_of(8.0 * 128.0 * 8192.0);
    let t = s.send(a, b, bytes).unwrap();
    // The book's 188 µs is the streaming time over both outgoing links; the last
    // byte lands 6 µs of hop latency later.
    assert_book("ch2-q5b", t.streaming.0 * 1e6);
    assert_rel(
        "ch2-q5b total",
        t.total.0 * 1e6,
        t.streaming.0 * 1e6 + 6.0,
        1e-9,
    );
}

#[test]
pub(crate) fn q6_pipeline() {
    let v5e = chip("v5e").unwrap();
    let s = Slice::new(v5e, &[4, 4]).unwrap();
    assert_eq!(s.hosts(), 2);
    let total = Bytes(problem("ch2-q6a").input("bytes"));
    let pcie = s.load_from_hosts(total).unwrap();
    assert_book("ch2-q6a", pcie.0 * 1e3);
    let ici = s.gather_onto([0, 0, 0], total).unwrap();
    assert_book("ch2-q6b", ici.0 * 1e3);
    let hbm = total / v5e.hbm_bw();
    assert_book("ch2-q6c", hbm.0 * 1e3);
    let n = 128.0 * 1024.0;
    let op = Op::Matmul {
        b: 8.0,
        d: n,
        f: n,
        act: Dtype::Bf16,
        weight: Dtype::Int8,
    };
    let flops = op.flops();
    let math = flops / v5e.peak(op.compute_dtype()).unwrap();
    assert_book("ch2-q6d", math.0 * 1e3);
    // Overlapped, the slowest stage (the ICI gather) sets the time.
    let a = which_link_binds(
        v5e,
        op.compute_dtype(),
        Flops(flops.0),
        &[
            LinkLoad {
                link: Link::Pcie,
                bytes: total,
                lanes: s.chips() as u32,
                one_way: false,
            },
            LinkLoad {
                link: Link::Ici,
                bytes: total * (15.0 / 16.0),
                lanes: 2,
                one_way: true,
            },
            LinkLoad::new(Link::Hbm, total),
        ],
    )
    .unwrap();
    assert_eq!(a.binding, Some(Link::Ici));
    assert_book("ch2-q6e", a.lower.0 * 1e3);
    assert_rel(
        "ch2-q6e upper",
        a.upper.0,
        (pcie + ici + hbm + math).0,
        1e-9,
    );
}

#[test]
pub(crate) fn pq1_vpu_throughput() {
    let v5p = tensor_core("v5p").unwrap();
    let vpu = vpu_rate(v5p).unwrap();
    assert_book("ch2-pq1a", vpu.0);
    let chip = chip("v5p").unwrap();
    let mxu_per_core = chip.peak(Dtype::Bf16).unwrap().0 / cores_per_chip(chip).unwrap() as f64;
    assert_book("ch2-pq1b", mxu_per_core / vpu.0);
    // The registry's clock and MXU count reproduce that per-core figure.
    assert_rel(
        "ch2-pq1b mxu",
        core_mxu_rate(v5p).unwrap().0,
        mxu_per_core,
        0.01,
    );
}

#[test]
pub(crate) fn transfer_rejects_nonsense() {
    assert_eq!(
        transfer(Bytes(f64::NAN), 1, chip("v5e").unwrap().hbm_bw(), 0)
            .unwrap_err()
            .to_string(),
        "the byte count must be a finite positive number",
    );
}
