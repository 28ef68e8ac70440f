//! Part 9 (profiling): every `ch9-*` problem reproduced by `ridgeline-core`.

#![allow(clippy::unwrap_used)]

use ridgeline_core::comms::collectives::Collective;
use ridgeline_core::dtype::Dtype;
use ridgeline_core::hardware::{TPU_V2_CORE_PEAK, TPU_V2_ICI_BIDI};
use ridgeline_core::profiling::{
    predicted_collective_time, predicted_matmul_time, replica_group_size, tpu_v2_network,
    true_shape, TiledArray,
};
use ridgeline_core::units::Bytes;
use ridgeline_tests::{assert_book, problem};

#[test]
pub(crate) fn ex1_tiling_blowup() {
    let a = TiledArray::parse("f32[3,5]{1,0:T(2,2)}").unwrap();
    let p = problem("ch9-ex1");
    let padded: Vec<u64> = p.inputs["padded"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert_eq!(a.padded_shape(), padded);
    assert_book("ch9-ex1", a.blowup());
    assert_eq!(a.padded_bytes().0 / a.logical_bytes().0, a.blowup());
    // The same array built directly agrees with the parsed one.
    assert_eq!(TiledArray::new(Dtype::F32, &[3, 5], &[2, 2]).unwrap(), a);
}

#[test]
pub(crate) fn ex2_up_projection_on_tpu_v2() {
    let p = problem("ch9-ex2");
    let t = predicted_matmul_time(
        p.input("B"),
        p.input("D"),
        p.input("F"),
        p.input("cores") as u32,
        TPU_V2_CORE_PEAK.value,
    )
    .unwrap();
    assert_book("ch9-ex2", t.0 * 1e3);
    // The registry's per-core rate is the one the problem states.
    assert_eq!(TPU_V2_CORE_PEAK.value.0, p.input("C"));
}

#[test]
pub(crate) fn ex3_reduce_scatter_on_tpu_v2() {
    let p = problem("ch9-ex3");
    let v = Bytes(2.0 * 8.0 * 1024.0 * 8192.0);
    assert_eq!(v.0, p.input("bytes"));
    assert_eq!(TPU_V2_ICI_BIDI.value.0, p.input("W"));
    let t = predicted_collective_time(Collective::ReduceScatter, v, 2, &tpu_v2_network()).unwrap();
    assert_book("ch9-ex3", t.0 * 1e3);
}

#[test]
pub(crate) fn q1_true_shapes_from_the_replica_groups() {
    // Per shard: bf16[8192] · bf16[4096, 8192] → bf16[4096]; the AllReduce's
    // replica groups list 8 devices each, so W's 4096 rows are an eighth of 32768
    // and the batch of one vector per shard is 8 overall.
    let g = replica_group_size("replica_groups={{0,16,32,48,64,80,96,112},{1,17,33}}").unwrap();
    assert_eq!(g, 8);
    assert_eq!(true_shape(&[4096, 8192], 0, g).unwrap(), vec![32768, 8192]);
    assert_eq!(true_shape(&[1, 8192], 0, g).unwrap(), vec![8, 8192]);
    assert_eq!(true_shape(&[1, 4096], 1, g).unwrap(), vec![1, 32768]);
    let answer = problem("ch9-q1").answer.as_str().unwrap().to_string();
    assert!(answer.contains("bf16[32768,8192]") && answer.contains("[8,8192]"));
    // The exercise grades the option built from these shapes.
    let ex = ridgeline_core::exercises::exercise("ch9-q1").unwrap();
    assert_eq!(ex.answer_text(), "b");
    let ridgeline_core::exercises::Answer::Choice { options, .. } = &ex.answer else {
        panic!("ch9-q1 is a multiple choice");
    };
    assert!(options[1].1.contains("bf16[32768, 8192]") && options[1].1.contains("8-way"));
}
