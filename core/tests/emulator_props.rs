//! For random small matmuls, meshes and valid shardings, the emulated result
//! equals the unsharded product, and the trace moves exactly the bytes the
//! plan's cost model charges.

use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use ridgeline_core::hardware::chip;
use ridgeline_core::sharding::emulator::{reference, run};
use ridgeline_core::sharding::plan::{
    MatmulPlan, Operand, PlanOptions, StepKind, Strategy as CaseTwo,
};
use ridgeline_core::sharding::{Dims, ErrorKind, MatmulSpec, Mesh};

const NAMES: [char; 2] = ['X', 'Y'];

/// Where each mesh axis goes in one array: 0 nowhere, 1 first dim, 2 second dim;
/// plus a sort key that orders axes sharing a dimension.
type Placement = Vec<(u8, u8)>;

fn placement(axes: usize) -> impl Strategy<Value = Placement> {
    prop::collection::vec((0u8..3, 0u8..2), axes)
}

fn array(name: &str, dims: [&str; 2], p: &Placement, unreduced: &[bool]) -> String {
    let mut subs = [Vec::new(), Vec::new()];
    let mut order: Vec<usize> = (0..p.len()).collect();
    order.sort_by_key(|&i| (p[i].1, i));
    for i in order {
        if p[i].0 > 0 {
            subs[p[i].0 as usize - 1].push(NAMES[i]);
        }
    }
    let dim = |d: usize| {
        if subs[d].is_empty() {
            dims[d].to_string()
        } else {
            format!("{}_{}", dims[d], subs[d].iter().collect::<String>())
        }
    };
    let u: String = (0..p.len())
        .filter(|&i| unreduced.get(i).copied().unwrap_or(false) && p[i].0 == 0)
        .map(|i| NAMES[i])
        .collect();
    let marker = if u.is_empty() {
        String::new()
    } else {
        format!("{{U_{u}}}")
    };
    format!("{name}[{}, {}]{marker}", dim(0), dim(1))
}

fn config() -> Config {
    Config {
        cases: 400,
        rng_seed: RngSeed::Fixed(0x0e3a_1a70),
        failure_persistence: None,
        ..Config::default()
    }
}

proptest! {
    #![proptest_config(config())]
    #[test]
    fn emulation_matches_the_reference_and_the_cost_model(
        sizes in prop::collection::vec(1u32..=4, 1..=2),
        wraps in prop::collection::vec(any::<bool>(), 2),
        bidi in any::<bool>(),
        reduce_after in any::<bool>(),
        (pa, pb, pc) in (placement(2), placement(2), placement(2)),
        with_output in any::<bool>(),
        unreduced in prop::collection::vec(any::<bool>(), 2),
        mult in (1u64..=3, 1u64..=3, 1u64..=3),
        seed in any::<u64>(),
    ) {
        let axes = sizes.len();
        let (pa, pb, pc) = (pa[..axes].to_vec(), pb[..axes].to_vec(), pc[..axes].to_vec());
        let mut mesh_text = String::new();
        for (i, s) in sizes.iter().enumerate() {
            mesh_text.push_str(&format!("{}={s}, ", NAMES[i]));
        }
        let mut mesh = Mesh::parse(&mesh_text).expect("mesh");
        for (i, &w) in wraps.iter().take(axes).enumerate() {
            mesh = mesh.with_wrap(NAMES[i], w).expect("axis");
        }
        // Every dimension divisible by every product of mesh axes.
        let n: u64 = sizes.iter().map(|&s| s as u64).product::<u64>();
        let dims = Dims::new(&[("I", n * mult.0), ("J", n * mult.1), ("K", n * mult.2)])
            .expect("dims");
        let mut text = format!(
            "{} · {}",
            array("A", ["I", "J"], &pa, &[]),
            array("B", ["J", "K"], &pb, &[])
        );
        if with_output {
            text.push_str(&format!(" -> {}", array("C", ["I", "K"], &pc, &unreduced)));
        }
        let spec = MatmulSpec::parse(&text).expect("generated specs parse");
        let mut opts = PlanOptions::for_chip(chip("v5e").expect("v5e")).expect("ici")
            .with_strategy(if reduce_after { CaseTwo::ReduceAfter } else { CaseTwo::GatherFirst });
        if !bidi {
            opts.network = opts.network.one_way_only();
        }
        let plan = match MatmulPlan::build(&spec, &mesh, &dims, &opts) {
            Ok(p) => p,
            // An unreduced marker the matmul cannot produce is rightly refused.
            Err(e) if e.kind == ErrorKind::Unsupported => return Ok(()),
            Err(e) => return Err(TestCaseError::fail(format!("{text}: {e}"))),
        };
        let out = run(&plan, seed).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let want = reference(&plan, seed).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let diff = out.result.max_abs_diff(&want).expect("same shape");
        prop_assert!(diff < 1e-3, "{}: off by {}", text, diff);
        let (t, p) = (out.trace.total_bytes().0, plan.total_bytes().0);
        prop_assert!((t - p).abs() <= 1e-9 * p.max(1.0), "{}: trace {} vs plan {}", text, t, p);
        for (i, step) in plan.steps.iter().enumerate() {
            let tb = out.trace.bytes_of(i).0;
            let pbytes = step.total_bytes.0;
            prop_assert!((tb - pbytes).abs() <= 1e-9 * pbytes.max(1.0), "{}: step {}", text, i);
            // A permute hands each device at most its new block, never the array.
            if step.kind == StepKind::Permute {
                let [r, c] = plan.local_shape(Operand::C, &step.after);
                let block = (r * c) as f64 * plan.dtype.bytes();
                let mut received = vec![0.0; out.devices];
                for t in out.trace.steps.iter().filter(|s| s.plan_step == i) {
                    for x in &t.transfers {
                        prop_assert!(x.from_device != x.to_device, "{}: a device sent to itself", text);
                        received[x.to_device as usize] += x.bytes.0;
                    }
                }
                for (d, got) in received.iter().enumerate() {
                    prop_assert!(*got <= block + 1e-9, "{}: device {} received {} > {}", text, d, got, block);
                }
            }
        }
    }
}

/// The book's resharding example and the two benchmark reshards: the planner
/// moves C's sharded axis with a permute, never by gathering C whole.
#[test]
fn moving_a_sharded_axis_never_gathers_the_output() {
    let v5e = chip("v5e").expect("v5e");
    for spec in [
        "A[I, J_X] · B[J_X, K_Y] -> C[I, K_XY]",
        "A[I_X, J] · B[J, K_Y] -> C[I, K_XY]",
        "A[I, J] · B[J, K_Y] -> C[I, K_XY]",
    ] {
        let plan = MatmulPlan::parse(spec, "X=4, Y=4", "I=64, J=32, K=64", v5e).expect(spec);
        assert!(
            plan.steps.iter().all(|s| !(s.operand == Operand::C
                && s.kind
                    == StepKind::Collective(
                        ridgeline_core::comms::collectives::Collective::AllGather
                    ))),
            "{spec}: {plan}"
        );
        assert!(
            plan.steps.iter().any(|s| s.kind == StepKind::Permute),
            "{spec}: {plan}"
        );
        let out = run(&plan, 5).expect("runs");
        let want = reference(&plan, 5).expect("reference");
        assert!(
            out.result.max_abs_diff(&want).expect("shape") < 1e-4,
            "{spec}"
        );
        // No device ever holds more of C than one sixteenth (its final block).
        let c_block = 64.0 * 64.0 / 16.0 * 2.0;
        for t in &out.trace.steps {
            for x in t.transfers.iter().filter(|x| x.operand == Operand::C) {
                assert!(x.bytes.0 <= c_block, "{spec}: {}", t.label);
            }
        }
    }
}
