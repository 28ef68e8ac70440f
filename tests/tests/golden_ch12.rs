//! Part 12 (How to Think About GPUs): every `ch12-*` problem reproduced by `ridgeline-core`.
//!
//! Model shapes the book quotes without listing them as problem inputs (LLaMA-3 70B's
//! D = 8192, F = 28,672 and 70e9 parameters; gpt-oss's E = 128, k = 4; cluster sizes
//! and batch sizes of the examples) are the problems' own parameters and are written
//! here as such; every hardware number comes from the registry.

use ridgeline_core::comms::collectives::Collective;
use ridgeline_core::dtype::Dtype;
use ridgeline_core::format::round_sig;
use ridgeline_core::gpu::compare::roofline_row;
use ridgeline_core::gpu::network::{
    cross_node_all_to_all, in_node, outer_reduction_factor, ragged_fraction,
    ragged_fraction_approx, sharded_reduction, sharp_all_reduce_traffic, su_all_gather_traffic,
    CollectiveOptions, FatTree, LevelKind,
};
use ridgeline_core::gpu::parallelism::{min_global_batch, moe_factor, small_axis_factor};
use ridgeline_core::gpu::specs::RECIPES;
use ridgeline_core::gpu::specs::{
    generation, nvlink_generation, variant, Architecture, DGX_SUPERPOD, IB_NDR_SWITCH, MEASURED,
    SM, TPU_COUNTERPART,
};
use ridgeline_core::gpu::{
    clock_from_vector_rate, cuda_cores, gpus_to_hold, resident_warps, tensor_core_flops_per_cycle,
    vector_rate, GpuSystem, Scope,
};
use ridgeline_core::hardware::{chip, Link, Topology};
use ridgeline_core::model::accounting::{params, state_memory, training_flops_rule, Optimizer};
use ridgeline_core::model::config::model;
use ridgeline_core::roofline::ops::{tokens_per_device, Op};
use ridgeline_core::units::{Bytes, Flops};
use ridgeline_tests::{assert_book, assert_rel, problem};

fn sys(id: &str) -> GpuSystem {
    GpuSystem::from_id(id, Dtype::Bf16).expect("a registry GPU")
}

fn tree(id: &str) -> FatTree {
    sys(id).fat_tree().expect("a GPU with a scale-out network")
}

const EXACT: CollectiveOptions = CollectiveOptions {
    precision: ridgeline_core::gpu::network::Precision::Exact,
    sharp: false,
    inner: 1,
    active: None,
};

// ---------------------------------------------------------------- chip level

#[test]
pub(crate) fn ex1_ex2_tensor_core_flops_per_cycle() {
    let h100 = sys("h100");
    let g = generation("h100").unwrap();
    let per_cycle =
        tensor_core_flops_per_cycle(h100.peak, h100.sms, g.tensor_clock.unwrap()).unwrap();
    // 1065 exactly; the book rounds to the power of two it believes (an 8x8x8 matmul).
    assert_book("ch12-ex1", per_cycle);
    assert_eq!(
        g.tensor_core_flops_per_cycle.unwrap().value,
        problem("ch12-ex1").numeric_answer().unwrap()
    );
    let b200 = sys("b200");
    let g = generation("b200").unwrap();
    let per_cycle =
        tensor_core_flops_per_cycle(b200.peak, b200.sms, g.tensor_clock.unwrap()).unwrap();
    assert_book("ch12-ex2", per_cycle);
}

#[test]
pub(crate) fn ex3_register_file() {
    assert_book("ch12-ex3", SM.register_file().0 / 1024.0);
}

#[test]
pub(crate) fn ex4_resident_warps_at_256_registers() {
    assert_book("ch12-ex4", f64::from(resident_warps(256).unwrap()));
}

#[test]
pub(crate) fn ex5_h200_vs_v5p() {
    // "~2x FLOPs, ~1.5x HBM": 990/459 = 2.16 and 141/96 = 1.47.
    let (h200, v5p) = (chip("h200").unwrap(), chip("v5p").unwrap());
    let flops = h200.peak(Dtype::Bf16).unwrap() / v5p.peak(Dtype::Bf16).unwrap();
    let hbm = h200.hbm_capacity.value / v5p.hbm_capacity.value;
    assert_rel("ch12-ex5 FLOPs ratio", flops, 2.16, 0.005);
    assert_rel("ch12-ex5 HBM ratio", hbm, 1.47, 0.005);
    assert_eq!(flops.round(), 2.0);
    assert_eq!((hbm * 2.0).round() / 2.0, 1.5);
}

#[test]
pub(crate) fn q1_cuda_cores_and_vpu_alus() {
    assert_book("ch12-q1a", f64::from(sys("h100").cuda_cores()));
    assert_book("ch12-q1b", f64::from(cuda_cores(sys("b200").sms)));
    // TPU v5p: 2 TensorCores (registry) x 4 VPU ALUs x (8 x 128) lanes (Part 12 Quiz 1 Q1).
    let Topology::Torus { cores, .. } = chip(TPU_COUNTERPART.tpu).unwrap().topology else {
        panic!("v5p is a torus");
    };
    let (sub, lanes) = TPU_COUNTERPART.vpu_lanes;
    let alus = cores * TPU_COUNTERPART.vpu_slots_per_core * sub * lanes;
    assert_book("ch12-q1c", f64::from(alus));
}

#[test]
pub(crate) fn q2_vector_flops() {
    let g = generation("h100").unwrap();
    let cores = sys("h100").cuda_cores();
    let base = vector_rate(cores, g.base_clock.unwrap(), 1.0).unwrap();
    let boost = vector_rate(cores, g.boost_clock.unwrap(), 1.0).unwrap();
    assert_book("ch12-q2a", base.0 / 1e12);
    assert_book("ch12-q2b", boost.0 / 1e12);
    assert_book("ch12-q2c", sys("h100").peak / boost);
}

#[test]
pub(crate) fn q3_matmul_intensities() {
    assert_book("ch12-q3a", sys("h100").hbm_ridge().0);
    assert_book("ch12-q3b", sys("b200").hbm_ridge().0);
    // (c) "590 and 562": the book doubles the bf16 ridges. B200's fp8 table entry is
    // exactly 2x (562.5); H100's 2.0e15 is the table's rounding of 2 x 9.9e14, so its
    // fp8 ridge is 597, 1% above the book's 2 x 295 = 590.
    let fp8 = |id: &str| chip(id).unwrap().ridge(Dtype::Fp8, Link::Hbm).unwrap().0;
    assert_rel(
        "ch12-q3c H100 2x",
        2.0 * sys("h100").hbm_ridge().0,
        591.0,
        0.001,
    );
    assert_rel("ch12-q3c H100 fp8 table", fp8("h100"), 590.0, 0.015);
    assert_rel("ch12-q3c B200", fp8("b200"), 562.0, 0.001);
}

#[test]
pub(crate) fn q4_b200_matmul_times() {
    let b200 = chip("b200").unwrap();
    let mm = |b: f64| Op::Matmul {
        b,
        d: 4096.0,
        f: 8192.0,
        act: Dtype::Bf16,
        weight: Dtype::Bf16,
    };
    let p = problem("ch12-q4a");
    let small = mm(p.input("B"));
    assert!(small.intensity() < b200.ridge(Dtype::Bf16, Link::Hbm).unwrap());
    assert_book("ch12-q4a", (small.hbm_bytes() / b200.hbm_bw()).0 * 1e6);
    let p = problem("ch12-q4b");
    let big = mm(p.input("B"));
    assert!(big.intensity() > b200.ridge(Dtype::Bf16, Link::Hbm).unwrap());
    // The book divides by the spec table's 2.3e15; the registry keeps the text's
    // 2250e12 (see its source note), which is that figure before rounding to two
    // significant digits. With 2.25e15 the time is 15.3 us, 2% above the book's 15.
    // The book's rounded input, from the data: core's FLOPs over the table's peak.
    let table_peak = p.input("C");
    assert_rel(
        "ch12-q4b table",
        b200.peak(Dtype::Bf16).unwrap().0,
        table_peak,
        0.03,
    );
    assert_book("ch12-q4b", big.flops().0 / table_peak * 1e6);
    // The exact value: 2·B·D·F over the registry's peak, by hand.
    let registry = (big.flops() / b200.peak(Dtype::Bf16).unwrap()).0 * 1e6;
    let by_hand =
        2.0 * p.input("B") * p.input("D") * p.input("F") / b200.peak(Dtype::Bf16).unwrap().0 * 1e6;
    assert_rel(
        "ch12-q4b with the registry's peak",
        registry,
        by_hand,
        1e-12,
    );
    let ex = ridgeline_core::exercises::exercise("ch12-q4b").unwrap();
    assert_rel(
        "ch12-q4b exercise",
        ex.expected_value().unwrap() * 1e6,
        registry,
        1e-9,
    );
}

#[test]
pub(crate) fn q5_smem_and_registers() {
    let g = generation("h100").unwrap();
    // 132 x 256 KiB twice is 67,584 KiB = 66.0 MiB, the book's "66 MB"; about half
    // the ~128 MB of a TPU's VMEM.
    let total = g.smem_total() + g.registers_total();
    assert_book("ch12-q5", total.0 / (1024.0 * 1024.0));
    assert_rel(
        "ch12-q5 each",
        g.smem_total().0 / (1024.0 * 1024.0),
        33.0,
        0.0,
    );
    let vs_vmem = total / TPU_COUNTERPART.vmem;
    assert!((0.45..0.6).contains(&vs_vmem), "{vs_vmem}");
}

#[test]
pub(crate) fn q6_b200_clock() {
    let g = generation("b200").unwrap();
    let clock = clock_from_vector_rate(
        g.vector_fp32_fma.unwrap().value,
        cuda_cores(sys("b200").sms),
        2.0,
    )
    .unwrap();
    assert_book("ch12-q6", clock.0 / 1e9);
}

#[test]
pub(crate) fn q7_vector_add() {
    let add = |n: f64| Op::Elementwise {
        n,
        dtype: Dtype::F32,
    };
    // 1/12; the data records the book's 0.0833333, so compare at its 6 digits.
    let i = add(1e6).intensity().0;
    assert_rel("q7a", i, 1.0 / 12.0, 1e-12);
    assert_book("ch12-q7a", round_sig(i, 6));
    // The book rounds the boosted vector rate (33.45e12) to 33.5e12 before dividing.
    let g = generation("h100").unwrap();
    let boost = vector_rate(sys("h100").cuda_cores(), g.boost_clock.unwrap(), 1.0).unwrap();
    let h100 = chip("h100").unwrap();
    // The book's rounded input: it quotes the boosted vector rate as 33.5e12
    // FLOPs/s, which core's rate rounds to, and divides by the HBM bandwidth.
    let book_rate = 33.5e12;
    assert_rel("ch12-q7b rate", boost.0, book_rate, 0.005);
    assert_book("ch12-q7b", book_rate / h100.hbm_bw().0);
    // The exact value: CUDA cores × boost clock (one FLOP each per cycle) over
    // the HBM bandwidth, by hand.
    let by_hand = sys("h100").cuda_cores() as f64 * g.boost_clock.unwrap().0 / h100.hbm_bw().0;
    assert_rel(
        "ch12-q7b unrounded",
        boost.0 / h100.hbm_bw().0,
        by_hand,
        1e-12,
    );
    let ex = ridgeline_core::exercises::exercise("ch12-q7b").unwrap();
    assert_rel(
        "ch12-q7b exercise",
        ex.expected_value().unwrap(),
        by_hand,
        1e-9,
    );
    for id in ["ch12-q7c", "ch12-q7d"] {
        let op = add(problem(id).input("N"));
        let t = (op.hbm_bytes() / h100.hbm_bw()).max(op.flops() / boost);
        let scale = if id == "ch12-q7c" { 1e6 } else { 1e3 };
        assert_book(id, t.0 * scale);
    }
}

// ---------------------------------------------------------------- the node

#[test]
pub(crate) fn ex6_nvlink4() {
    let hopper = nvlink_generation(Architecture::Hopper).unwrap();
    assert_eq!(hopper.gpu_egress().0, 450e9);
    assert_eq!(
        Some(hopper.gpu_egress()),
        chip("h100").unwrap().bandwidth(Link::NvLink)
    );
    let switches = f64::from(hopper.switches_for(8).unwrap());
    assert_eq!(hopper.switch_bandwidth().unwrap().0 * switches, 6.4e12);
}

#[test]
pub(crate) fn n_q1_q2_node_bandwidth() {
    let node = tree("h100").levels[0];
    let usable = node.cable_bandwidth().min(node.switch_bandwidth.unwrap());
    assert_book("ch12-n-q1", usable.0 / 1e12);
    // Bisection: 4 GPUs each way at 450 GB/s, both directions.
    let w = sys("h100").w_gpu;
    assert_book("ch12-n-q2", (w * 4.0 * 2.0).0 / 1e12);
}

#[test]
pub(crate) fn n_q3_node_all_gather() {
    let bytes = Dtype::Bf16.size_of(4096.0 * 65536.0);
    assert_eq!(bytes.0, problem("ch12-n-q3").input("bytes"));
    let t = in_node(Collective::AllGather, bytes, 8, sys("h100").w_gpu, EXACT).unwrap();
    assert_book("ch12-n-q3", t.0 * 1e3);
}

// ---------------------------------------------------------------- beyond the node

#[test]
pub(crate) fn ex7_superpod_switches() {
    let pod = tree("h100").layout(1024).unwrap();
    assert_eq!(pod.nodes, 128);
    assert_eq!(pod.leaf_switches, Some(32));
    assert_eq!(pod.spine_switches, Some(16));
    assert_book("ch12-ex7", pod.switches().unwrap() as f64);
}

#[test]
pub(crate) fn ex8_gb200_node_egress() {
    // 72 GPUs, one 400 Gbps NIC each (4 x 18 x 400 Gbps / 8).
    let gb200 = sys("gb200");
    let from_nics =
        chip("gb200").unwrap().bandwidth(Link::ScaleOut).unwrap() * f64::from(gb200.gpus_per_node);
    assert_eq!(Some(from_nics), gb200.w_node);
    assert_book("ch12-ex8", from_nics.0 / 1e12);
    assert_eq!(from_nics / sys("h100").w_node.unwrap(), 9.0);
}

#[test]
pub(crate) fn b_q1_fat_tree_bandwidths() {
    let t = tree("h100");
    let (leaf, spine) = (t.levels[1], t.levels[2]);
    // (a) 8 NICs of 400 Gbps per node.
    let per_node = chip("h100").unwrap().bandwidth(Link::ScaleOut).unwrap() * 8.0;
    assert_eq!(per_node, leaf.uplink);
    assert_book("ch12-b-q1a", per_node.0 / 1e9);
    // (b) 8 leaf switches using 32 of 64 ports toward 32 nodes.
    let down = IB_NDR_SWITCH.port_bandwidth * f64::from(IB_NDR_SWITCH.ports / 2) * 8.0;
    assert_eq!(down, leaf.cable_bandwidth());
    assert_book("ch12-b-q1b", leaf.cable_bandwidth().0 / 1e12);
    // (c) 8 x 16 x 2 cables from each SU to the spine.
    assert_book("ch12-b-q1c", DGX_SUPERPOD.su_uplink().0 / 1e12);
    assert_eq!(spine.uplink, DGX_SUPERPOD.su_uplink());
    // (d) 16 spine switches of 3.2 TB/s: 51.2 TB/s, 400 GB/s for each of 128 nodes.
    // Appendix B counts 1.6 TB/s per switch and gets 25.6 TB/s; the registry keeps the
    // summary table's figure and records the other.
    assert_book("ch12-b-q1d", spine.switch_bandwidth.unwrap().0 / 1e12);
    assert_eq!(spine.switch_bandwidth_appendix_b.unwrap().0, 25.6e12);
    assert_eq!(spine.switch_bandwidth.unwrap().0 / 128.0, 400e9);
}

#[test]
pub(crate) fn b_q2_scaling_the_pod() {
    let t = tree("h100");
    // 2048 GPUs: 8 SUs and 32 spine switches, one cable per leaf-spine pair.
    let l = t.layout(2048).unwrap();
    assert_eq!(l.sus, Some(8));
    assert_eq!(l.spine_switches, Some(32));
    assert_eq!(l.cables_per_leaf_spine, Some(1));
    assert!(!l.needs_core_layer);
    // 4096: a two-tier tree of 64-port switches runs out of ports; add a core layer.
    let l = t.layout(4096).unwrap();
    assert!(l.needs_core_layer);
    assert_eq!(l.spine_switches, None);
    assert_eq!(t.layout(1024).unwrap().cables_per_leaf_spine, Some(2));
}

// ---------------------------------------------------------------- collectives

#[test]
pub(crate) fn c_pq1_all_gather_in_a_node() {
    let p = problem("ch12-c-pq1a");
    let bytes = Dtype::Bf16.size_of(p.input("B") * p.input("F"));
    let w = sys("h100").w_gpu;
    let approx = in_node(Collective::AllGather, bytes, 8, w, EXACT.asymptotic()).unwrap();
    assert_book("ch12-c-pq1a", approx.0 * 1e6);
    let exact = in_node(Collective::AllGather, bytes, 8, w, EXACT).unwrap();
    assert_book("ch12-c-pq1b", exact.0 * 1e6);
}

#[test]
pub(crate) fn c_pq2_all_to_all_in_a_node() {
    // Dense: B(N-1)/(W N^2) ~ B/(W N); with 4 of 8 destinations active, half that.
    let w = sys("h100").w_gpu;
    for b in [1e6, 3.3e8, 7e10] {
        let bytes = Bytes(b);
        let dense = in_node(Collective::AllToAll, bytes, 8, w, EXACT).unwrap();
        assert_rel("c-pq2 dense", dense.0, b * 7.0 / (w.0 * 64.0), 1e-12);
        let approx = in_node(Collective::AllToAll, bytes, 8, w, EXACT.asymptotic()).unwrap();
        assert_rel("c-pq2 approx", approx.0, b / (w.0 * 8.0), 1e-12);
        let half = in_node(Collective::AllToAll, bytes, 8, w, EXACT.with_active(4)).unwrap();
        assert_rel("c-pq2 ragged", half.0, dense.0 / 2.0, 1e-12);
    }
    assert_eq!(
        in_node(Collective::AllToAll, Bytes(1.0), 8, w, EXACT.with_active(0))
            .unwrap_err()
            .to_string(),
        "active destinations k must be at least 1",
    );
}

#[test]
pub(crate) fn c_ex1_effective_bandwidth_per_level() {
    let t = tree("h100");
    let bw: Vec<f64> = t
        .effective_bandwidths()
        .iter()
        .map(|(_, w)| w.0 / 1e9)
        .collect();
    assert_rel("c-ex1 node", bw[0], 514.0, 0.001);
    assert_rel("c-ex1 leaf", bw[1], 413.0, 0.001);
    assert_rel("c-ex1 spine", bw[2], 17_100.0, 0.002);
    assert_rel(
        "c-ex1 overall",
        t.all_gather_bandwidth().0 / 1e9,
        413.0,
        0.001,
    );
    // The same through a full-pod AllGather.
    let cost = t
        .collective(Collective::AllGather, Bytes(1e9), 1024, EXACT)
        .unwrap();
    assert_eq!(cost.bottleneck, Some(LevelKind::Leaf));
    assert_rel(
        "c-ex1 pod",
        cost.algo_bandwidth().unwrap().0 / 1e9,
        413.0,
        0.001,
    );
}

#[test]
pub(crate) fn c_ex2_all_to_all_degrades_across_nodes() {
    // The book's asymptotic forms: B/(8 x 450e9) in one node, B/(2 x 400e9) over two.
    let t = tree("h100");
    let opts = EXACT.asymptotic();
    let one = t
        .collective(Collective::AllToAll, Bytes(1e9), 8, opts)
        .unwrap();
    let two = t
        .collective(Collective::AllToAll, Bytes(1e9), 16, opts)
        .unwrap();
    assert_eq!(two.crosses(), Some(LevelKind::Leaf));
    assert_book("ch12-c-ex2", two.total / one.total);
    let direct = cross_node_all_to_all(Bytes(1e9), 2, sys("h100").w_node.unwrap(), opts).unwrap();
    assert_eq!(direct, two.total);
}

#[test]
pub(crate) fn c_ex3_llama_mlp_message() {
    // LLaMA-3 70B: D = 8192, F = 28,672 (the problem's model), 8-way sharded.
    let bytes = Dtype::Bf16.size_of(8192.0 * 28672.0 / 8.0);
    assert_book("ch12-c-ex3", bytes.0 / 1e6);
}

#[test]
pub(crate) fn c_ex4_sharp_in_practice() {
    let eff = MEASURED.nccl_allreduce_bus.value * (1.0 + MEASURED.sharp_gain.value);
    assert_book("ch12-c-ex4", eff.0 / 1e9);
    // Theory promised 75%.
    assert!(MEASURED.sharp_gain_theory.value > MEASURED.sharp_gain.value);
}

#[test]
pub(crate) fn c_pq3_sharded_all_gather_in_an_su() {
    // AllGather_X(bf16[D_X, F_Y]) over one SU with Y the inner axis.
    let (d, f) = (8192.0, 32768.0);
    let bytes = Dtype::Bf16.size_of(d * f);
    let h100 = sys("h100");
    let t = tree("h100");
    for y in [1u32, 2, 4, 8] {
        // Y <= 8: bound by the leaf, 2DF (32-1)/(32 x 400e9).
        let cost = t
            .collective(Collective::AllGather, bytes, 256, EXACT.with_inner(y))
            .unwrap();
        assert_eq!(cost.bottleneck, Some(LevelKind::Leaf));
        assert_rel(
            "c-pq3 Y<=8",
            cost.total.0,
            bytes.0 * 31.0 / (32.0 * 400e9),
            1e-12,
        );
    }
    for y in [16u32, 32, 64, 128] {
        // Y > 8: roughly 2DF·256/(Y·12.8e12) = 2DF/(Y·50 GB/s), the simple rule.
        let simple = sharded_reduction(bytes, y, 8, h100.w_gpu, h100.w_node.unwrap()).unwrap();
        let book = bytes.0 * 256.0 / (f64::from(y) * 12.8e12);
        assert_rel("c-pq3 Y>8 simple", simple.scale_out.0, book, 1e-12);
        let precise = t
            .collective(Collective::AllGather, bytes, 256, EXACT.with_inner(y))
            .unwrap();
        assert_rel(
            "c-pq3 Y>8 precise",
            precise.total.0,
            book * 31.0 / 32.0,
            1e-12,
        );
    }
    // Exactly 8-way model parallelism cuts the node term by 8 but not the total.
    let one = sharded_reduction(bytes, 1, 8, h100.w_gpu, h100.w_node.unwrap()).unwrap();
    let eight = sharded_reduction(bytes, 8, 8, h100.w_gpu, h100.w_node.unwrap()).unwrap();
    assert_eq!(eight.at_node.0 * 8.0, one.at_node.0);
    assert_eq!(eight.total, one.total);
}

#[test]
pub(crate) fn c_q1_su_all_gather_switch_traffic() {
    for &(b, m, n) in &[(1e9, 32u32, 8u32), (3.5e7, 4, 8), (1.0, 2, 72)] {
        let t = su_all_gather_traffic(Bytes(b), m, n).unwrap();
        let (mf, nf) = (f64::from(m), f64::from(n));
        assert_rel("c-q1 node in", t.node_switch.ingress.0, b, 1e-12);
        assert_rel("c-q1 node out", t.node_switch.egress.0, b * nf, 1e-12);
        assert_rel("c-q1 top in", t.top_switch.ingress.0, b, 1e-12);
        assert_rel("c-q1 top out", t.top_switch.egress.0, b * (mf - 1.0), 1e-12);
    }
    // Times: node egress-bound at B·N/(N·W_gpu) = B/450e9; top at B(M−1)/(M·400e9).
    let h100 = sys("h100");
    let t = su_all_gather_traffic(Bytes(1e9), 32, 8).unwrap();
    let node_t = t.node_switch.egress / (h100.w_gpu * 8.0);
    assert_rel("c-q1 node time", node_t.0, 1e9 / 450e9, 1e-12);
    let top_t = t.top_switch.egress / (h100.w_node.unwrap() * 32.0);
    assert_rel("c-q1 top time", top_t.0, 1e9 * 31.0 / (32.0 * 400e9), 1e-12);
}

#[test]
pub(crate) fn c_q2_sharp_switch_traffic() {
    let h100 = sys("h100");
    for n in [2u32, 8, 72] {
        let t = sharp_all_reduce_traffic(Bytes(1e9), n).unwrap();
        assert_rel("c-q2 in", t.ingress.0, 1e9 * f64::from(n), 1e-12);
        assert_rel("c-q2 out", t.egress.0, 1e9 * f64::from(n), 1e-12);
        // B·N through a switch fed by N GPUs: T = B / W_egress, exactly the SHARP cost.
        let time = t.egress / (h100.w_gpu * f64::from(n));
        let sharp = in_node(
            Collective::AllReduce,
            Bytes(1e9),
            n,
            h100.w_gpu,
            EXACT.with_sharp(),
        )
        .unwrap();
        assert_rel("c-q2 time", time.0, sharp.0, 1e-12);
    }
}

#[test]
pub(crate) fn c_q3_sharded_sharp_all_reduce() {
    // AllReduce(bf16[D, F_Y]{U_X}) in one node with SHARP: 2DF/(Y·W_link), falling with Y.
    let (d, f) = (8192.0, 28672.0);
    let bytes = Dtype::Bf16.size_of(d * f);
    let h100 = sys("h100");
    let t = tree("h100");
    let mut last = f64::INFINITY;
    for y in [1u32, 2, 4, 8] {
        let cost = t
            .collective(
                Collective::AllReduce,
                bytes,
                8,
                EXACT.with_sharp().with_inner(y),
            )
            .unwrap();
        assert_rel(
            "c-q3 node",
            cost.total.0,
            2.0 * d * f / (f64::from(y) * h100.w_gpu.0),
            1e-12,
        );
        assert!(cost.total.0 < last);
        last = cost.total.0;
    }
    // Beyond one node, the full B must leave the node: the scale-out term ignores Y <= 8.
    for y in [1u32, 2, 4, 8] {
        let s = sharded_reduction(bytes, y, 8, h100.w_gpu, h100.w_node.unwrap()).unwrap();
        assert_eq!(s.scale_out, bytes / h100.w_node.unwrap());
    }
}

#[test]
pub(crate) fn c_q4_spine_level_all_reduce() {
    // Y = 256: the reduction happens at the spine, across 4 SUs; with SHARP each SU
    // sends the whole B over its uplink once. The book's answer 2DF/6.4e12 divides Appendix B's 25.6 TB/s spine by 4 SUs; the
    // summary table's 51.2 TB/s (the registry's choice, = 4 x 12.8 TB/s of SU uplinks)
    // gives 2DF/12.8e12.
    let (d, f) = (8192.0, 28672.0);
    let bytes = Dtype::Bf16.size_of(d * f);
    let t = tree("h100");
    let spine = t.levels[2];
    let cost = t
        .collective(
            Collective::AllReduce,
            bytes,
            1024,
            EXACT.with_sharp().with_inner(256),
        )
        .unwrap();
    // (The leaf term, B·8/(256·400e9), ties with the spine's.)
    let per_su = spine.switch_bandwidth.unwrap() / 4.0;
    assert_rel("c-q4 chosen", cost.total.0, (bytes / per_su).0, 1e-12);
    // The book's answer is a formula, 2DF/6.4e12: its denominator must be the
    // registry's Appendix B spine over 4 SUs, and core's cost rescaled to that
    // bandwidth must equal the formula.
    let answer = problem("ch12-c-q4").answer.as_str().unwrap().to_string();
    let book_denominator: f64 = answer
        .rsplit('/')
        .next()
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or_else(|| panic!("ch12-c-q4: no denominator in {answer:?}"));
    let book_per_su = spine.switch_bandwidth_appendix_b.unwrap() / 4.0;
    assert_rel("c-q4 spine per SU", book_per_su.0, book_denominator, 1e-12);
    assert_rel(
        "c-q4 book",
        cost.total.0 * (per_su / book_per_su),
        2.0 * d * f / book_denominator,
        1e-12,
    );
}

#[test]
pub(crate) fn c_q5_two_node_all_gather() {
    let t = tree("h100");
    let cost = t
        .collective(Collective::AllGather, Bytes(1e9), 16, EXACT)
        .unwrap();
    let node = cost.levels[0];
    let leaf = cost.levels[1];
    assert_rel("c-q5 node", 1e9 / node.time.0 / 1e9, 514.0, 0.001);
    assert_rel("c-q5 leaf", 1e9 / leaf.time.0 / 1e9, 800.0, 1e-12);
    assert_eq!(cost.bottleneck, Some(LevelKind::Node));
}

// ---------------------------------------------------------------- training rooflines

#[test]
pub(crate) fn r_ex1_ex2_dp_thresholds() {
    assert_book("ch12-r-ex1", sys("h100").dp_threshold(Scope::Node).unwrap());
    assert_book(
        "ch12-r-ex2",
        sys("h100").dp_threshold(Scope::Network).unwrap(),
    );
}

/// The working of the cross-node DP threshold prints the formula its number
/// uses, the book's `C / W_node` (990e12 / 400e9 = 2475 on H100, 2.25e15 /
/// 400e9 = 5625 on B200), never `C / (W_node / 8)`, which would be 8x larger.
#[test]
pub(crate) fn r_ex2_q1b_working_matches_number() {
    use ridgeline_core::exercises::registry::exercise;
    for (id, chip, want) in [
        (
            "ch12-r-ex2",
            "h100",
            "C / W_node = 990 TFLOPs/s / 400 GB/s = 2475",
        ),
        (
            "ch12-r-q1b",
            "b200",
            "C / W_node = 2.25 PFLOPs/s / 400 GB/s = 5625",
        ),
    ] {
        let ex = exercise(id).unwrap();
        let w = sys(chip).w_node.unwrap();
        assert_rel(
            id,
            ex.expected_value().unwrap(),
            (sys(chip).peak / w).0,
            1e-12,
        );
        let lines = ex.derivation().join("\n");
        assert!(lines.contains(want), "{id}: {lines}");
        assert!(!lines.contains("W_node /"), "{id}: {lines}");
    }
}

#[test]
pub(crate) fn r_ex3_llama3_pure_dp() {
    let per_gpu = sys("h100").dp_threshold(Scope::Network).unwrap();
    assert_book("ch12-r-ex3", min_global_batch(per_gpu, 16_000).unwrap());
}

#[test]
pub(crate) fn r_ex4_deepseek_h800() {
    // The book divides by the H800's 300 GB/s NVLink even though 2048 GPUs span nodes.
    let h800 = sys("h800");
    assert_eq!(h800.w_gpu, variant("h800").unwrap().nvlink);
    let per_gpu = h800.dp_threshold(Scope::Node).unwrap();
    assert_eq!(per_gpu, 3300.0);
    assert_book("ch12-r-ex4", min_global_batch(per_gpu, 2048).unwrap());
}

#[test]
pub(crate) fn r_ex5_moe_dp() {
    // gpt-oss: E = 128, k = 4.
    let t = sys("h100")
        .moe_dp_threshold(Scope::Network, 128, 4)
        .unwrap();
    assert_eq!(moe_factor(128, 4).unwrap(), 32.0);
    assert_book("ch12-r-ex5", t);
}

#[test]
pub(crate) fn r_ex6_two_node_dp() {
    assert_eq!(small_axis_factor(2).unwrap(), 0.5);
    assert_book(
        "ch12-r-ex6",
        sys("h100").small_dp_threshold(Scope::Network, 2).unwrap(),
    );
}

#[test]
pub(crate) fn r_ex7_ex8_tp_limits() {
    let h100 = sys("h100");
    assert_book(
        "ch12-r-ex7",
        h100.tp_max_ways(Scope::Network, 28_000.0).unwrap(),
    );
    assert_book("ch12-r-ex8", h100.tp_max_ways_two_nodes(28_000.0).unwrap());
}

#[test]
pub(crate) fn r_ex9_ex10_batches_per_gpu() {
    // DeepSeek V3's batch and GPUs from core's recipe registry.
    let deepseek = RECIPES
        .iter()
        .find(|r| r.model == "DeepSeek V3")
        .expect("DeepSeek V3 recipe");
    assert_book(
        "ch12-r-ex9",
        tokens_per_device(1.0, deepseek.batch_tokens, 1.0),
    );
    // The book's "~30k per GPU".
    assert_rel(
        "r-ex9 per GPU",
        tokens_per_device(1.0, deepseek.batch_tokens, deepseek.gpus as f64),
        30_000.0,
        0.03,
    );
    assert_book("ch12-r-ex10", tokens_per_device(1.0, 16e6, 16e3));
}

#[test]
pub(crate) fn r_q1_b200_rooflines() {
    let b200 = sys("b200");
    assert_book("ch12-r-q1a", b200.alpha(Scope::Node).unwrap().0);
    assert_book("ch12-r-q1b", b200.dp_threshold(Scope::Network).unwrap());
    // GB200 NVL72's 9x egress brings cross-node DP back down.
    assert!(sys("gb200").dp_threshold(Scope::Network).unwrap() < 1000.0);
}

#[test]
pub(crate) fn r_q2_sharding_llama3_70b() {
    let h100 = sys("h100");
    let hbm = chip("h100").unwrap().hbm_capacity.value;
    // (1) 70e9 parameters x (2 bytes bf16 + 8 bytes fp32 Adam) = 700 GB. The book
    // rounds LLaMA 3-70B to 70e9 parameters; core's Adam supplies the 10 bytes.
    let book_params = 70e9;
    let state = state_memory(book_params, Optimizer::ADAM, Bytes(0.0)).state();
    // With core's exact parameter count the answers are the same: 9 GPUs, and
    // 8-way TP alone still does not fit.
    let exact = params(&model("llama3-70b").unwrap().config).total();
    let exact_state = state_memory(exact, Optimizer::ADAM, Bytes(0.0)).state();
    assert_book("ch12-r-q2a", gpus_to_hold(exact_state, hbm).unwrap() as f64);
    assert!(exact_state / 8.0 > hbm);
    assert_book("ch12-r-q2a", gpus_to_hold(state, hbm).unwrap() as f64);
    // (2) 6 x 70e9 x 15e12 FLOPs on 4096 GPUs at 45% MFU.
    let flops = Flops(problem("ch12-r-q2b").input("FLOPs"));
    let llama_tokens = 15e12;
    assert_rel(
        "r-q2b FLOPs",
        flops.0,
        training_flops_rule(book_params, llama_tokens).0,
        1e-12,
    );
    let t = h100.training_time(flops, 4096, 0.45).unwrap();
    assert_book("ch12-r-q2b", t.0 / 86_400.0);
    // (3) In-node TP limit F·W/C. The book divides by 1995, but its own in-node
    // ratio is 990e12 / 450e9 = 2200: 13.0, not 14.37. Both mean 8-way TP.
    let f = problem("ch12-r-q2c").input("F");
    let ways = h100.tp_max_ways(Scope::Node, f).unwrap();
    assert_rel("ch12-r-q2c (corrected)", ways, 28672.0 / 2200.0, 1e-12);
    assert!(ways > 8.0 && ways < 16.0);
    // (3.1) 8-way TP alone: 87.5 GB per GPU, more than 80 GB.
    let per_gpu = state / 8.0;
    assert_book("ch12-r-q2d", per_gpu.0 / 1e9);
    assert!(per_gpu > hbm);
    // (3.2) ZeRO-3 over 4096 GPUs with a 4M batch: 976 tokens, below 2475.
    let tokens = tokens_per_device(1.0, 4e6, 4096.0);
    assert_book("ch12-r-q2e", tokens);
    assert!(tokens < h100.dp_threshold(Scope::Network).unwrap());
    // (3.3) 8-way PP on top: the model-parallel axis of 64 GPUs spans 8 nodes, so the
    // outer AllGather runs 8x faster (3200 GB/s): threshold 309.
    let relief = outer_reduction_factor(64, h100.gpus_per_node).unwrap();
    let w_eff = h100.w_node.unwrap() / relief;
    assert_eq!(w_eff.0, 3200e9);
    assert_book("ch12-r-q2f", (h100.peak / w_eff).0);
}

#[test]
pub(crate) fn r_q3_megatron_batches() {
    assert_book("ch12-r-q3a", tokens_per_device(192.0, 4096.0, 192.0));
    assert_book("ch12-r-q3b", tokens_per_device(384.0, 4096.0, 768.0));
    assert_book("ch12-r-q3c", tokens_per_device(1536.0, 4096.0, 3072.0));
    // (d) ~2475 at the spine; 16-way model sharding spans 2 nodes (x2 bandwidth) and
    // 64-way spans 8 (x8): ~1.2k and ~300, so all three are compute-bound.
    let h100 = sys("h100");
    let alpha = h100.dp_threshold(Scope::Network).unwrap();
    let need = |y: u32| alpha * outer_reduction_factor(y, h100.gpus_per_node).unwrap();
    assert_eq!(need(1), 2475.0);
    assert_rel("r-q3d 70B", need(16), 1237.5, 1e-12);
    assert_rel("r-q3d 314B", need(64), 309.375, 1e-12);
    assert!(4096.0 > need(1));
    assert!(2048.0 > need(16) && 2048.0 > need(64));
}

// ---------------------------------------------------------------- appendix

#[test]
pub(crate) fn ragged_all_to_all_expected_cost() {
    // The exact expectation sits just under the approximation, closer for large Z.
    for z in [2u32, 8, 64, 256] {
        let e = ragged_fraction(z, 8).unwrap();
        let a = ragged_fraction_approx(z, 8).unwrap();
        assert!(e <= a);
        if z >= 64 {
            assert!((a - e) / a < 0.06, "{z}: {e} vs {a}");
        }
    }
}

#[test]
pub(crate) fn gpu_and_tpu_side_by_side() {
    let h100 = roofline_row("h100", Dtype::Bf16).unwrap();
    let v5p = roofline_row("v5p", Dtype::Bf16).unwrap();
    // DP on H100 needs about 3x more tokens per chip than v5p over its three axes.
    let ratio = h100.dp_tokens_across.unwrap() / v5p.dp_tokens_in_domain;
    assert!((2.5..3.5).contains(&ratio), "{ratio}");
    assert_rel("v5p all axes", v5p.dp_tokens_in_domain, 850.0, 0.001);
}
