//! Part 5 (parallelising training): every `ch5-*` problem reproduced by `ridgeline-core`.

// Helpers outside `#[test]` functions unwrap known-good presets too.
#![allow(clippy::unwrap_used)]

use ridgeline_core::dtype::Dtype;
use ridgeline_core::hardware::chip;
use ridgeline_core::model::accounting::{params, state_memory, training_memory, Optimizer, Remat};
use ridgeline_core::model::config::{model, ModelConfig};
use ridgeline_core::roofline::Verdict;
use ridgeline_core::training::{
    best_plan, boundary_batch, dcn_intensity, dp_critical_tokens_per_chip, evaluate,
    fsdp_tp_critical_tokens_per_chip, ici_intensity, max_chips, optimal_fsdp, tp_max_degree,
    tp_min_d_ff, training_time, Boundary, Cluster, CommKind, Job, Parallelism, DAY,
};
use ridgeline_core::units::{Bytes, Flops, FlopsPerSec};
use ridgeline_tests::{assert_book, assert_rel, problem};

const GB: f64 = 1e9;
const TB: f64 = 1e12;

fn v5p() -> &'static ridgeline_core::hardware::Chip {
    chip("v5p").unwrap()
}

fn alpha() -> ridgeline_core::units::Intensity {
    ici_intensity(v5p(), Dtype::Bf16).unwrap()
}

fn llama2_13b() -> ModelConfig {
    model("llama2-13b").unwrap().config
}

#[test]
pub(crate) fn ex1_largest_model_under_pure_dp() {
    let hbm = v5p().hbm_capacity.value;
    assert_eq!(Optimizer::ADAM.bytes_per_param(), 10.0);
    // 96e9 / 10 = 9.6e9, which the book calls "about 9B".
    assert_book("ch5-ex1", Optimizer::ADAM.max_params(hbm));
}

#[test]
pub(crate) fn ex2_dp_threshold_on_one_axis() {
    assert_book("ch5-ex2", dp_critical_tokens_per_chip(alpha(), 1.0));
    // The same threshold falls out of the per-layer roofline.
    let job = Job::new(model("llama3-8b").unwrap().config, 1e8, 4096.0).unwrap();
    let slice = Cluster::new(v5p(), &[16], 1).unwrap();
    let e = evaluate(&job, &slice, &Parallelism::data_parallel(16, 1)).unwrap();
    assert_book("ch5-ex2", e.critical_tokens_per_chip.unwrap());
}

#[test]
pub(crate) fn ex3_dp_over_three_axes_of_a_pod() {
    let pod = Cluster::full_pod(v5p(), 1).unwrap();
    assert_eq!(pod.chips(), 8960.0);
    let per_chip = dp_critical_tokens_per_chip(alpha(), pod.axes as f64);
    assert_eq!(per_chip.round(), 850.0);
    assert_book("ch5-ex3", per_chip * pod.chips());
}

#[test]
pub(crate) fn ex4_deepseek_batch() {
    let b = problem("ch5-ex4").input("batch");
    assert_book(
        "ch5-ex4",
        max_chips(b, dp_critical_tokens_per_chip(alpha(), 3.0)),
    );
}

#[test]
pub(crate) fn ex5_llama3_70b_on_fsdp() {
    let p = problem("ch5-ex5a");
    let total =
        ridgeline_core::model::accounting::training_flops_rule(p.input("N"), p.input("tokens"));
    assert_book("ch5-ex5a", total.0);
    let chips = max_chips(
        problem("ch5-ex5b").input("batch"),
        dp_critical_tokens_per_chip(alpha(), 3.0),
    );
    assert_book("ch5-ex5b", chips);
    let peak = v5p().peak(Dtype::Bf16).unwrap();
    let mfu = problem("ch5-ex5c").input("MFU");
    let t = training_time(total, chips.floor(), peak, mfu).unwrap();
    assert_book("ch5-ex5c", t.0 / DAY);
}

#[test]
pub(crate) fn ex6_ex7_tensor_parallel_limits() {
    assert_book(
        "ch5-ex6",
        tp_max_degree(problem("ch5-ex6").input("F"), alpha(), 1.0),
    );
    // F needed for 8-way: 8 · 2550 = 20,400 ("20k").
    assert_rel(
        "ch5-ex6 (F for 8-way)",
        tp_min_d_ff(8.0, alpha(), 1.0),
        20_400.0,
        1e-12,
    );
    // LLaMA 3-70B's real F = 28,672: 8-way is compute-bound, 16-way is not.
    let job = Job::new(model("llama3-70b").unwrap().config, 1e6, 4096.0).unwrap();
    for (y, expect) in [(8u32, Boundary::Always), (16, Boundary::Never)] {
        let cl = Cluster::with_chips(v5p(), y, 1, 1).unwrap();
        assert_eq!(
            boundary_batch(&job, &cl, &Parallelism::tensor(y, 1)).unwrap(),
            expect
        );
    }
    assert_book(
        "ch5-ex7",
        tp_max_degree(problem("ch5-ex7").input("F"), alpha(), 1.0),
    );
}

#[test]
pub(crate) fn ex8_int8_leaves_the_tp_limit_unchanged() {
    assert_book("ch5-ex8", ici_intensity(v5p(), Dtype::Int8).unwrap().0);
    // int8 doubles C and halves the bytes moved, so the verdicts do not move.
    let base = Job::new(model("llama3-70b").unwrap().config, 1e6, 4096.0).unwrap();
    let int8 = Job {
        compute: Dtype::Int8,
        optimizer: Optimizer {
            params: Dtype::Int8,
            ..Optimizer::ADAM
        },
        ..base
    };
    for y in [4u32, 8, 16, 32] {
        let cl = Cluster::with_chips(v5p(), y, 1, 1).unwrap();
        let par = Parallelism::tensor(y, 1);
        assert_eq!(
            boundary_batch(&base, &cl, &par).unwrap(),
            boundary_batch(&int8, &cl, &par).unwrap()
        );
    }
}

#[test]
pub(crate) fn ex9_x_opt_on_4x4x4() {
    let p = problem("ch5-ex9");
    // The book does not state M_X/M_Y; on a 3D mesh FSDP takes 2 axes and TP 1.
    let x = optimal_fsdp(p.input("B"), p.input("F"), p.input("N"), 2.0, 1.0);
    assert_book("ch5-ex9", x);
}

#[test]
pub(crate) fn ex10_ex11_mixed_threshold() {
    let f = problem("ch5-ex10").input("F");
    assert_book(
        "ch5-ex10",
        fsdp_tp_critical_tokens_per_chip(alpha(), f, 2.0, 1.0),
    );
    let p = problem("ch5-ex11");
    let per_chip = fsdp_tp_critical_tokens_per_chip(alpha(), p.input("F"), 2.0, 1.0);
    let slice = Cluster::new(v5p(), &[16, 16, 16], 1).unwrap();
    assert_book("ch5-ex11", per_chip * slice.chips());
}

#[test]
pub(crate) fn ex12_dcn_intensity() {
    // The book computes 4.46e14 / 6.25e9 = 71,360, but its own spec table (and the
    // registry) give the v5p 4.59e14 FLOPs/s, so the consistent value is 73,440. We
    // assert the registry value and show where the book's number comes from.
    let i = dcn_intensity(v5p(), Dtype::Bf16).unwrap();
    let p = problem("ch5-ex12");
    // The exact value: the spec table's 4.59e14 FLOPs/s over the book's DCN
    // bandwidth per chip, and the registry holds that spec.
    let spec_table_peak = 4.59e14;
    assert_rel(
        "ch5-ex12 (spec)",
        v5p().peak(Dtype::Bf16).unwrap().0,
        spec_table_peak,
        1e-12,
    );
    assert_rel(
        "ch5-ex12 (registry)",
        i.0,
        spec_table_peak / p.input("W_dcn"),
        1e-12,
    );
    let ex = ridgeline_core::exercises::exercise("ch5-ex12").unwrap();
    assert_rel(
        "ch5-ex12 (exercise)",
        ex.expected_value().unwrap(),
        i.0,
        1e-12,
    );
    let w = v5p()
        .bandwidth(ridgeline_core::hardware::Link::Dcn)
        .unwrap();
    assert_book("ch5-ex12", (FlopsPerSec(p.input("C")) / w).0);
    // The per-layer roofline puts the cross-pod threshold at C/W_dcn tokens per slice.
    let job = Job::new(model("llama3-70b").unwrap().config, 1e6, 4096.0).unwrap();
    let pods = Cluster::with_chips(v5p(), 1, 1, 2).unwrap();
    match boundary_batch(&job, &pods, &Parallelism::data_parallel(1, 1)).unwrap() {
        Boundary::At(b) => assert_rel("ch5-ex12 (roofline)", b / 2.0, i.0, 1e-9),
        other => panic!("{other:?}"),
    }
}

#[test]
pub(crate) fn ex13_llama3_70b_at_2m_tokens() {
    let b = problem("ch5-ex13a").input("B");
    assert_book(
        "ch5-ex13a",
        max_chips(b, dp_critical_tokens_per_chip(alpha(), 3.0)),
    );
    let f = problem("ch5-ex13b").input("F");
    let per_chip = fsdp_tp_critical_tokens_per_chip(alpha(), f, 2.0, 1.0);
    assert_rel("ch5-ex13b (threshold)", per_chip, 108.0, 0.01);
    assert_book("ch5-ex13b", max_chips(b, per_chip));
    // Two pods: 111 tokens per chip and 1M per pod, far above C/W_dcn.
    let job = Job::new(model("llama3-70b").unwrap().config, b, 4096.0).unwrap();
    let two_pods = Cluster::full_pod(v5p(), 2).unwrap();
    let e = evaluate(&job, &two_pods, &Parallelism::fsdp_tensor(1120, 8, 2, 1)).unwrap();
    assert_book("ch5-ex13c", e.tokens_per_chip);
    assert!(e.layer.binding != Some(CommKind::DcnAllReduce));
    // "Maybe cutting it a bit close": the book's threshold uses F ≈ 30,000 (108 tokens
    // per chip). With LLaMA 3-70B's real F = 28,672 it is 113.4, just above 111.6, so
    // the best whole-number split over two pods is slightly communication-bound.
    let real = fsdp_tp_critical_tokens_per_chip(alpha(), 28672.0, 2.0, 1.0);
    assert!(real > e.tokens_per_chip && per_chip < e.tokens_per_chip);
    let best = best_plan(&job, &two_pods).unwrap();
    assert_eq!(best.scheme, ridgeline_core::training::Scheme::FsdpTensor);
    assert_eq!(best.verdict, Verdict::CommunicationBound);
    assert!(best.layer.t_comms / best.layer.t_math < 1.5);
}

#[test]
pub(crate) fn q1_llama2_13b_parameters() {
    let p = params(&llama2_13b());
    assert_book("ch5-q1a", p.mlp);
    assert_book("ch5-q1b", p.attention);
    assert_book("ch5-q1c", p.vocab());
    assert_book("ch5-q1d", p.total());
}

#[test]
pub(crate) fn q2_llama2_13b_memory() {
    let n = problem("ch5-q2a").input("params");
    let state = state_memory(n, Optimizer::ADAM, Bytes(0.0));
    assert_book("ch5-q2a", state.state().0 / GB);
    let b = problem("ch5-q2b").input("B");
    let acts = Remat::MlpOutputs.activation_bytes(&llama2_13b(), b, Dtype::Bf16);
    assert_book("ch5-q2b", acts.0 / TB);
}

fn q3_job() -> Job {
    Job {
        remat: Remat::MlpOutputs,
        ..Job::new(llama2_13b(), 3e6, 32768.0).unwrap()
    }
}

fn q3_slice() -> Cluster {
    Cluster::new(v5p(), &[16, 16, 16], 1).unwrap()
}

#[test]
pub(crate) fn q3a_pure_dp_does_not_fit() {
    // Replicated parameters and Adam state are ~130 GB per chip, more than 96 GB.
    let _ = problem("ch5-q3a");
    let e = evaluate(&q3_job(), &q3_slice(), &Parallelism::data_parallel(4096, 3)).unwrap();
    assert_rel(
        "ch5-q3a (state per chip)",
        e.memory.state().0,
        130.16e9,
        0.001,
    );
    assert!(!e.fits);
    assert!(e.memory.state() > v5p().hbm_capacity.value);
}

#[test]
pub(crate) fn q3b_pure_fsdp_fits_but_is_comms_bound() {
    let job = q3_job();
    let total = training_memory(
        &job.model,
        3e6,
        Remat::MlpOutputs,
        Optimizer::ADAM,
        Dtype::Bf16,
    )
    .unwrap()
    .total();
    assert_book("ch5-q3b", total.0 / TB);
    let e = evaluate(&job, &q3_slice(), &Parallelism::fsdp(4096, 3)).unwrap();
    assert!(e.fits);
    assert_rel("ch5-q3b (per chip)", e.memory.total().0, 1.95e9, 0.01);
    // Needs 850 · 4096 = 3.48M tokens; 3M is below, so communication-bound.
    assert_eq!(e.verdict, Verdict::CommunicationBound);
    assert_rel(
        "ch5-q3b (minimum batch)",
        e.critical_tokens_per_chip.unwrap() * 4096.0,
        3.48e6,
        0.01,
    );
}

#[test]
pub(crate) fn q3c_mixed_fsdp_tp() {
    let f = problem("ch5-q3c-threshold").input("F");
    assert_book(
        "ch5-q3c-threshold",
        fsdp_tp_critical_tokens_per_chip(alpha(), f, 2.0, 1.0),
    );
    let p = problem("ch5-q3c-xopt");
    assert_book(
        "ch5-q3c-xopt",
        optimal_fsdp(p.input("B"), p.input("F"), p.input("N"), 2.0, 1.0),
    );
    // The book's choice, 1024-way FSDP × 4-way TP, is compute-bound.
    let e = evaluate(
        &q3_job(),
        &q3_slice(),
        &Parallelism::fsdp_tensor(1024, 4, 2, 1),
    )
    .unwrap();
    assert_eq!(e.verdict, Verdict::ComputeBound);
    assert!(e.fits);
    // Step time at 40% MFU: 6·B·P / (N·C·MFU). The book uses C = 4.6e14 and gets
    // "300 ms" (310 ms exactly); the registry's 4.59e14 gives 311 ms.
    let p = problem("ch5-q3c-step");
    let flops = Flops(6.0 * p.input("tokens") * p.input("params"));
    let t = training_time(
        flops,
        p.input("chips"),
        v5p().peak(Dtype::Bf16).unwrap(),
        p.input("MFU"),
    )
    .unwrap();
    assert_book("ch5-q3c-step", t.0 * 1e3);
}

/// The book's interactive MLP roofline (D = 8192, F = 32,768 on a v5p
/// 16 × 16 × 16): its 13 fixed splits, the batches below which each is
/// communication-bound (≈3.5M, 1.7M, 870k, 440k; never from tensor 16 on), and
/// the flat ≈2 ms of FSDP's weight gathers.
#[test]
pub(crate) fn the_books_fixed_split_roofline() {
    let mesh = [16, 16, 16];
    let splits = Parallelism::mesh_splits(&mesh);
    assert_eq!(splits.len(), 13);
    let tensor: Vec<u32> = splits.iter().map(|p| p.tensor).collect();
    assert_eq!(tensor, (0..13).map(|k| 1u32 << k).collect::<Vec<_>>());
    let block = ModelConfig::mlp_block(8192, 32768).unwrap();
    let job = Job::new(block, 1_048_576.0, 1.0).unwrap();
    let cube = Cluster::new(v5p(), &mesh, 1).unwrap();
    // N·α / (M_X · Y) with FSDP over three axes: 4096 · 2550 / 3 = 3,481,600.
    let expected = [3_481_600.0, 1_740_800.0, 870_400.0, 435_200.0];
    for (par, b) in splits.iter().zip(expected) {
        assert_eq!(par.axes_data, 3, "{par:?}");
        match boundary_batch(&job, &cube, par).unwrap() {
            Boundary::At(x) => assert_rel(&par.label(), x, b, 1e-9),
            other => panic!("{}: {other:?}", par.label()),
        }
    }
    // From tensor 16 on (past F/α ≈ 12.9 on one axis) no batch is enough.
    for par in &splits[4..] {
        assert_eq!(
            boundary_batch(&job, &cube, par).unwrap(),
            Boundary::Never,
            "{}",
            par.label()
        );
    }
    // 512 × 8 cuts one axis (FSDP 16 × 16 × 2, tensor 8): counted in both.
    assert!(splits[3].shared_axis && splits[3].axes_tensor == 1);
    assert!(!splits[4].shared_axis && splits[4].axes_data == 2);
    let flat = evaluate(&job, &cube, &splits[0]).unwrap();
    assert_rel(
        "FSDP alone",
        flat.layer.t_comms.0,
        4.0 * 8192.0 * 32768.0 * 2.0 / 3.0 / 1.8e11 / 2.0,
        1e-6,
    );
}

/// The book's ratio figure (a v5p 4 × 4 × 4, F ≈ 30k): tensor parallelism flat
/// near 0.55, FSDP crossing one at 850 tokens per chip, the mix at its best
/// split crossing near a hundred.
#[test]
pub(crate) fn the_books_ratio_figure() {
    use ridgeline_core::training::{fsdp_tp_best_ratio, sweep};
    let mesh = [4, 4, 4];
    let block = ModelConfig::mlp_block(8192, 30_000).unwrap();
    let job = Job::new(block, 64.0 * 1000.0, 1.0).unwrap();
    let cube = Cluster::new(v5p(), &mesh, 1).unwrap();
    let tp = Parallelism::mesh_split(&mesh, 64).unwrap();
    let fsdp = Parallelism::mesh_split(&mesh, 1).unwrap();
    let ratio = |par: &Parallelism, per_chip: f64| {
        let p = sweep(&job, &cube, par, &[per_chip * 64.0]).unwrap()[0];
        p.t_math.0 / p.t_comms.0
    };
    // F · M_Y / (N · α) = 30,000 · 3 / (64 · 2550).
    for per_chip in [10.0, 500.0, 2000.0] {
        assert_rel(
            "tensor alone",
            ratio(&tp, per_chip),
            30_000.0 * 3.0 / (64.0 * 2550.0),
            1e-6,
        );
    }
    assert_rel("FSDP at 850", ratio(&fsdp, 850.0), 1.0, 1e-9);
    let best = |per_chip| fsdp_tp_best_ratio(alpha(), per_chip, 30_000.0, 2.0, 1.0);
    let crossing = fsdp_tp_critical_tokens_per_chip(alpha(), 30_000.0, 2.0, 1.0);
    assert_rel("best at crossing", best(crossing), 1.0, 1e-12);
    assert_eq!(crossing.round(), 108.0);
    assert_rel("best at 4x", best(4.0 * crossing), 2.0, 1e-12);
}
