//! Every problem of the book is checked by a golden test, found by running
//! them: the golden files are compiled in here as modules, every test of every
//! file runs on one thread with a recorder on, and each problem id must have
//! been passed to an assertion that held (`assert_book`, `assert_rel`, or
//! `checked` after other asserts). Listing an id, or using it in a test that
//! asserts something else, does not count. Each file's list of tests below is
//! checked against the `#[test]` functions in its source, so a new test cannot
//! be left out.

#![allow(clippy::unwrap_used)]

use ridgeline_core::exercises::registry::covered_ids;
use ridgeline_tests::{exercised_by, problems, test_names};

#[path = "golden_ch1.rs"]
#[allow(dead_code, unused_imports)]
mod golden_ch1;
#[path = "golden_ch10.rs"]
#[allow(dead_code, unused_imports)]
mod golden_ch10;
#[path = "golden_ch12.rs"]
#[allow(dead_code, unused_imports)]
mod golden_ch12;
#[path = "golden_ch2.rs"]
#[allow(dead_code, unused_imports)]
mod golden_ch2;
#[path = "golden_ch3.rs"]
#[allow(dead_code, unused_imports)]
mod golden_ch3;
#[path = "golden_ch4.rs"]
#[allow(dead_code, unused_imports)]
mod golden_ch4;
#[path = "golden_ch5.rs"]
#[allow(dead_code, unused_imports)]
mod golden_ch5;
#[path = "golden_ch6.rs"]
#[allow(dead_code, unused_imports)]
mod golden_ch6;
#[path = "golden_ch7.rs"]
#[allow(dead_code, unused_imports)]
mod golden_ch7;
#[path = "golden_ch8.rs"]
#[allow(dead_code, unused_imports)]
mod golden_ch8;
#[path = "golden_ch9.rs"]
#[allow(dead_code, unused_imports)]
mod golden_ch9;
#[path = "golden_choices.rs"]
#[allow(dead_code, unused_imports)]
mod golden_choices;
#[path = "golden_formulas.rs"]
#[allow(dead_code, unused_imports)]
mod golden_formulas;

/// A file's tests: its name, its source and every `#[test]` function in it.
type TestFile = (&'static str, &'static str, &'static [(&'static str, fn())]);

/// The golden test files and their tests.
const FILES: &[TestFile] = &[
    (
        "golden_ch1.rs",
        include_str!("golden_ch1.rs"),
        &[
            ("ex1_time_of_a_teraflop", golden_ch1::ex1_time_of_a_teraflop),
            ("ex2_v5e_ridge", golden_ch1::ex2_v5e_ridge),
            (
                "ex3_dot_product_intensity",
                golden_ch1::ex3_dot_product_intensity,
            ),
            ("ex4_vpu_ridge", golden_ch1::ex4_vpu_ridge),
            ("ex5_two_chip_split", golden_ch1::ex5_two_chip_split),
            ("ex6_tokens_per_device", golden_ch1::ex6_tokens_per_device),
            ("q1_int8_matmul", golden_ch1::q1_int8_matmul),
            ("q2_int8_weights", golden_ch1::q2_int8_weights),
            (
                "q3_small_models_need_a_bigger_batch",
                golden_ch1::q3_small_models_need_a_bigger_batch,
            ),
            ("q4_per_example_weights", golden_ch1::q4_per_example_weights),
            ("q5_h100_ridge", golden_ch1::q5_h100_ridge),
        ],
    ),
    (
        "golden_ch2.rs",
        include_str!("golden_ch2.rs"),
        &[
            ("ex1_mxu_throughput", golden_ch2::ex1_mxu_throughput),
            ("ex2_v5p_pod_flops", golden_ch2::ex2_v5p_pod_flops),
            ("ex3_vmem_intensity", golden_ch2::ex3_vmem_intensity),
            ("ex4_vreg_memory", golden_ch2::ex4_vreg_memory),
            (
                "q1_weight_streaming_bound",
                golden_ch2::q1_weight_streaming_bound,
            ),
            ("q2_pods", golden_ch2::q2_pods),
            ("q3_pcie_intensity", golden_ch2::q3_pcie_intensity),
            (
                "q4_int8_matmul_from_hbm_and_vmem",
                golden_ch2::q4_int8_matmul_from_hbm_and_vmem,
            ),
            ("q5_point_to_point", golden_ch2::q5_point_to_point),
            ("q6_pipeline", golden_ch2::q6_pipeline),
            ("pq1_vpu_throughput", golden_ch2::pq1_vpu_throughput),
            (
                "transfer_rejects_nonsense",
                golden_ch2::transfer_rejects_nonsense,
            ),
        ],
    ),
    (
        "golden_ch3.rs",
        include_str!("golden_ch3.rs"),
        &[
            (
                "pq1_local_shape_and_read_time",
                golden_ch3::pq1_local_shape_and_read_time,
            ),
            ("pq2_replicated_bytes", golden_ch3::pq2_replicated_bytes),
            ("ex1_partition_specs", golden_ch3::ex1_partition_specs),
            ("ex2_latency_threshold", golden_ch3::ex2_latency_threshold),
            (
                "ex3_bytes_per_device_at_peak",
                golden_ch3::ex3_bytes_per_device_at_peak,
            ),
            ("pq3_allgather_times", golden_ch3::pq3_allgather_times),
            ("q1_replication_ratio", golden_ch3::q1_replication_ratio),
            (
                "q2_gathers_and_reduces_on_a_cube",
                golden_ch3::q2_gathers_and_reduces_on_a_cube,
            ),
            (
                "q3_latency_bound_gather",
                golden_ch3::q3_latency_bound_gather,
            ),
            ("q4_two_strategies", golden_ch3::q4_two_strategies),
            (
                "q4c_when_reducing_after_wins",
                golden_ch3::q4c_when_reducing_after_wins,
            ),
            (
                "q5_lowest_latency_replicated_output",
                golden_ch3::q5_lowest_latency_replicated_output,
            ),
            (
                "q7_memory_and_tensor_parallelism",
                golden_ch3::q7_memory_and_tensor_parallelism,
            ),
            (
                "q9c_gather_then_multiply_vs_reduce_scatter",
                golden_ch3::q9c_gather_then_multiply_vs_reduce_scatter,
            ),
            (
                "q10_all_to_all_on_rings",
                golden_ch3::q10_all_to_all_on_rings,
            ),
        ],
    ),
    (
        "golden_ch4.rs",
        include_str!("golden_ch4.rs"),
        &[
            (
                "ex1_ex2_attention_overtakes_the_mlp_at_8d",
                golden_ch4::ex1_ex2_attention_overtakes_the_mlp_at_8d,
            ),
            (
                "ex3_ex4_activation_memory",
                golden_ch4::ex3_ex4_activation_memory,
            ),
            ("ex5_int8_kv_cache", golden_ch4::ex5_int8_kv_cache),
            ("q1a_parameter_count", golden_ch4::q1a_parameter_count),
            ("q1b_attention_fraction", golden_ch4::q1b_attention_fraction),
            ("q1c_kv_per_token", golden_ch4::q1c_kv_per_token),
            (
                "q2_sharded_matmul_flops",
                golden_ch4::q2_sharded_matmul_flops,
            ),
            ("q3_einsum_flops", golden_ch4::q3_einsum_flops),
            (
                "q4a_q4b_attention_intensity",
                golden_ch4::q4a_q4b_attention_intensity,
            ),
            ("q4c_prefill_threshold", golden_ch4::q4c_prefill_threshold),
            (
                "q5_projection_crossover",
                golden_ch4::q5_projection_crossover,
            ),
            (
                "q6_remat_after_the_seven_matmuls",
                golden_ch4::q6_remat_after_the_seven_matmuls,
            ),
            (
                "q7_deepseek_utilisation",
                golden_ch4::q7_deepseek_utilisation,
            ),
            ("q8_moe_critical_batch", golden_ch4::q8_moe_critical_batch),
        ],
    ),
    (
        "golden_ch5.rs",
        include_str!("golden_ch5.rs"),
        &[
            (
                "ex1_largest_model_under_pure_dp",
                golden_ch5::ex1_largest_model_under_pure_dp,
            ),
            (
                "ex2_dp_threshold_on_one_axis",
                golden_ch5::ex2_dp_threshold_on_one_axis,
            ),
            (
                "ex3_dp_over_three_axes_of_a_pod",
                golden_ch5::ex3_dp_over_three_axes_of_a_pod,
            ),
            ("ex4_deepseek_batch", golden_ch5::ex4_deepseek_batch),
            ("ex5_llama3_70b_on_fsdp", golden_ch5::ex5_llama3_70b_on_fsdp),
            (
                "ex6_ex7_tensor_parallel_limits",
                golden_ch5::ex6_ex7_tensor_parallel_limits,
            ),
            (
                "ex8_int8_leaves_the_tp_limit_unchanged",
                golden_ch5::ex8_int8_leaves_the_tp_limit_unchanged,
            ),
            ("ex9_x_opt_on_4x4x4", golden_ch5::ex9_x_opt_on_4x4x4),
            (
                "ex10_ex11_mixed_threshold",
                golden_ch5::ex10_ex11_mixed_threshold,
            ),
            ("ex12_dcn_intensity", golden_ch5::ex12_dcn_intensity),
            (
                "ex13_llama3_70b_at_2m_tokens",
                golden_ch5::ex13_llama3_70b_at_2m_tokens,
            ),
            (
                "q1_llama2_13b_parameters",
                golden_ch5::q1_llama2_13b_parameters,
            ),
            ("q2_llama2_13b_memory", golden_ch5::q2_llama2_13b_memory),
            (
                "q3a_pure_dp_does_not_fit",
                golden_ch5::q3a_pure_dp_does_not_fit,
            ),
            (
                "q3b_pure_fsdp_fits_but_is_comms_bound",
                golden_ch5::q3b_pure_fsdp_fits_but_is_comms_bound,
            ),
            ("q3c_mixed_fsdp_tp", golden_ch5::q3c_mixed_fsdp_tp),
            (
                "the_books_fixed_split_roofline",
                golden_ch5::the_books_fixed_split_roofline,
            ),
            ("the_books_ratio_figure", golden_ch5::the_books_ratio_figure),
        ],
    ),
    (
        "golden_ch6.rs",
        include_str!("golden_ch6.rs"),
        &[
            (
                "q1_llama3_70b_parameters",
                golden_ch6::q1_llama3_70b_parameters,
            ),
            ("q2_q3_flops", golden_ch6::q2_q3_flops),
            (
                "q4_a_full_pod_at_40_percent",
                golden_ch6::q4_a_full_pod_at_40_percent,
            ),
            (
                "q5_memory_and_the_smallest_cluster",
                golden_ch6::q5_memory_and_the_smallest_cluster,
            ),
            (
                "q6a_memory_per_chip_on_a_pod",
                golden_ch6::q6a_memory_per_chip_on_a_pod,
            ),
            (
                "q6b_twelve_checkpoints_per_layer",
                golden_ch6::q6b_twelve_checkpoints_per_layer,
            ),
            (
                "q7_fsdp_without_sequence_sharding",
                golden_ch6::q7_fsdp_without_sequence_sharding,
            ),
            (
                "q8_fsdp_over_batch_and_sequence",
                golden_ch6::q8_fsdp_over_batch_and_sequence,
            ),
            (
                "q9_mixed_fsdp_and_tensor",
                golden_ch6::q9_mixed_fsdp_and_tensor,
            ),
            ("wp2a_llama3_405b", golden_ch6::wp2a_llama3_405b),
            (
                "worked_problems_on_many_pods",
                golden_ch6::worked_problems_on_many_pods,
            ),
            ("planner_on_a_full_pod", golden_ch6::planner_on_a_full_pod),
        ],
    ),
    (
        "golden_ch7.rs",
        include_str!("golden_ch7.rs"),
        &[
            ("ex1_critical_batch", golden_ch7::ex1_critical_batch),
            (
                "ex2_prefill_attention_turns_compute_bound_at_480",
                golden_ch7::ex2_prefill_attention_turns_compute_bound_at_480,
            ),
            (
                "pq1_thirty_billion_parameter_step_times",
                golden_ch7::pq1_thirty_billion_parameter_step_times,
            ),
            (
                "ex3_ex4_llama2_13b_memory",
                golden_ch7::ex3_ex4_llama2_13b_memory,
            ),
            ("llama2_13b_tables", golden_ch7::llama2_13b_tables),
            ("llama2_13b_oom_line", golden_ch7::llama2_13b_oom_line),
            (
                "ex5_ex6_ex7_model_sharding_limits",
                golden_ch7::ex5_ex6_ex7_model_sharding_limits,
            ),
            (
                "q1_parameters_and_kv_per_token",
                golden_ch7::q1_parameters_and_kv_per_token,
            ),
            (
                "q2_largest_batch_on_a_4x4",
                golden_ch7::q2_largest_batch_on_a_4x4,
            ),
            ("q3_weight_loading_time", golden_ch7::q3_weight_loading_time),
            (
                "q5_as_a_mixture_of_experts",
                golden_ch7::q5_as_a_mixture_of_experts,
            ),
            (
                "q6_expert_sharded_moe_on_8x16",
                golden_ch7::q6_expert_sharded_moe_on_8x16,
            ),
            (
                "q7_two_d_weight_stationary",
                golden_ch7::q7_two_d_weight_stationary,
            ),
            (
                "appendix_a_layer_weight_load",
                golden_ch7::appendix_a_layer_weight_load,
            ),
            (
                "appendix_c_latency_bound_collectives",
                golden_ch7::appendix_c_latency_bound_collectives,
            ),
        ],
    ),
    (
        "golden_ch8.rs",
        include_str!("golden_ch8.rs"),
        &[
            ("ex1_flops_per_dollar", golden_ch8::ex1_flops_per_dollar),
            ("q1_kv_cache_size", golden_ch8::q1_kv_cache_size),
            ("q2_memory_at_batch_32", golden_ch8::q2_memory_at_batch_32),
            (
                "q3_step_time_on_4x2_and_4x4",
                golden_ch8::q3_step_time_on_4x2_and_4x4,
            ),
            ("q4_critical_batches", golden_ch8::q4_critical_batches),
            (
                "q5_minimum_topology_table",
                golden_ch8::q5_minimum_topology_table,
            ),
            (
                "q6_latency_with_full_hbm",
                golden_ch8::q6_latency_with_full_hbm,
            ),
            (
                "q7_queries_per_second_per_chip",
                golden_ch8::q7_queries_per_second_per_chip,
            ),
            (
                "q8_doubling_the_topology",
                golden_ch8::q8_doubling_the_topology,
            ),
            (
                "q9_model_parallelism_at_small_batch",
                golden_ch8::q9_model_parallelism_at_small_batch,
            ),
            ("q10_prefill_time", golden_ch8::q10_prefill_time),
            (
                "q11_q12_continuous_batching_and_disaggregation",
                golden_ch8::q11_q12_continuous_batching_and_disaggregation,
            ),
            ("ex2_pareto_curve", golden_ch8::ex2_pareto_curve),
            (
                "wp1_llama_405b_flops_per_token",
                golden_ch8::wp1_llama_405b_flops_per_token,
            ),
            (
                "wp1_llama_405b_bandwidth_bound",
                golden_ch8::wp1_llama_405b_bandwidth_bound,
            ),
            (
                "wp2_llama_8b_at_batch_240",
                golden_ch8::wp2_llama_8b_at_batch_240,
            ),
            (
                "wp3_llama_405b_within_15_ms",
                golden_ch8::wp3_llama_405b_within_15_ms,
            ),
        ],
    ),
    (
        "golden_ch9.rs",
        include_str!("golden_ch9.rs"),
        &[
            ("ex1_tiling_blowup", golden_ch9::ex1_tiling_blowup),
            (
                "ex2_up_projection_on_tpu_v2",
                golden_ch9::ex2_up_projection_on_tpu_v2,
            ),
            (
                "ex3_reduce_scatter_on_tpu_v2",
                golden_ch9::ex3_reduce_scatter_on_tpu_v2,
            ),
            (
                "q1_true_shapes_from_the_replica_groups",
                golden_ch9::q1_true_shapes_from_the_replica_groups,
            ),
        ],
    ),
    (
        "golden_ch10.rs",
        include_str!("golden_ch10.rs"),
        &[
            (
                "ex1_jit_adds_an_all_reduce_over_y",
                golden_ch10::ex1_jit_adds_an_all_reduce_over_y,
            ),
            ("ex2_pmean_of_slices", golden_ch10::ex2_pmean_of_slices),
            (
                "ex3_collective_matmul_ordering",
                golden_ch10::ex3_collective_matmul_ordering,
            ),
            ("q1_per_shard_means", golden_ch10::q1_per_shard_means),
        ],
    ),
    (
        "golden_ch12.rs",
        include_str!("golden_ch12.rs"),
        &[
            (
                "ex1_ex2_tensor_core_flops_per_cycle",
                golden_ch12::ex1_ex2_tensor_core_flops_per_cycle,
            ),
            ("ex3_register_file", golden_ch12::ex3_register_file),
            (
                "ex4_resident_warps_at_256_registers",
                golden_ch12::ex4_resident_warps_at_256_registers,
            ),
            ("ex5_h200_vs_v5p", golden_ch12::ex5_h200_vs_v5p),
            (
                "q1_cuda_cores_and_vpu_alus",
                golden_ch12::q1_cuda_cores_and_vpu_alus,
            ),
            ("q2_vector_flops", golden_ch12::q2_vector_flops),
            ("q3_matmul_intensities", golden_ch12::q3_matmul_intensities),
            ("q4_b200_matmul_times", golden_ch12::q4_b200_matmul_times),
            ("q5_smem_and_registers", golden_ch12::q5_smem_and_registers),
            ("q6_b200_clock", golden_ch12::q6_b200_clock),
            ("q7_vector_add", golden_ch12::q7_vector_add),
            ("ex6_nvlink4", golden_ch12::ex6_nvlink4),
            (
                "n_q1_q2_node_bandwidth",
                golden_ch12::n_q1_q2_node_bandwidth,
            ),
            ("n_q3_node_all_gather", golden_ch12::n_q3_node_all_gather),
            ("ex7_superpod_switches", golden_ch12::ex7_superpod_switches),
            ("ex8_gb200_node_egress", golden_ch12::ex8_gb200_node_egress),
            (
                "b_q1_fat_tree_bandwidths",
                golden_ch12::b_q1_fat_tree_bandwidths,
            ),
            ("b_q2_scaling_the_pod", golden_ch12::b_q2_scaling_the_pod),
            (
                "c_pq1_all_gather_in_a_node",
                golden_ch12::c_pq1_all_gather_in_a_node,
            ),
            (
                "c_pq2_all_to_all_in_a_node",
                golden_ch12::c_pq2_all_to_all_in_a_node,
            ),
            (
                "c_ex1_effective_bandwidth_per_level",
                golden_ch12::c_ex1_effective_bandwidth_per_level,
            ),
            (
                "c_ex2_all_to_all_degrades_across_nodes",
                golden_ch12::c_ex2_all_to_all_degrades_across_nodes,
            ),
            (
                "c_ex3_llama_mlp_message",
                golden_ch12::c_ex3_llama_mlp_message,
            ),
            (
                "c_ex4_sharp_in_practice",
                golden_ch12::c_ex4_sharp_in_practice,
            ),
            (
                "c_pq3_sharded_all_gather_in_an_su",
                golden_ch12::c_pq3_sharded_all_gather_in_an_su,
            ),
            (
                "c_q1_su_all_gather_switch_traffic",
                golden_ch12::c_q1_su_all_gather_switch_traffic,
            ),
            (
                "c_q2_sharp_switch_traffic",
                golden_ch12::c_q2_sharp_switch_traffic,
            ),
            (
                "c_q3_sharded_sharp_all_reduce",
                golden_ch12::c_q3_sharded_sharp_all_reduce,
            ),
            (
                "c_q4_spine_level_all_reduce",
                golden_ch12::c_q4_spine_level_all_reduce,
            ),
            (
                "c_q5_two_node_all_gather",
                golden_ch12::c_q5_two_node_all_gather,
            ),
            (
                "r_ex1_ex2_dp_thresholds",
                golden_ch12::r_ex1_ex2_dp_thresholds,
            ),
            (
                "r_ex2_q1b_working_matches_number",
                golden_ch12::r_ex2_q1b_working_matches_number,
            ),
            ("r_ex3_llama3_pure_dp", golden_ch12::r_ex3_llama3_pure_dp),
            ("r_ex4_deepseek_h800", golden_ch12::r_ex4_deepseek_h800),
            ("r_ex5_moe_dp", golden_ch12::r_ex5_moe_dp),
            ("r_ex6_two_node_dp", golden_ch12::r_ex6_two_node_dp),
            ("r_ex7_ex8_tp_limits", golden_ch12::r_ex7_ex8_tp_limits),
            (
                "r_ex9_ex10_batches_per_gpu",
                golden_ch12::r_ex9_ex10_batches_per_gpu,
            ),
            ("r_q1_b200_rooflines", golden_ch12::r_q1_b200_rooflines),
            (
                "r_q2_sharding_llama3_70b",
                golden_ch12::r_q2_sharding_llama3_70b,
            ),
            ("r_q3_megatron_batches", golden_ch12::r_q3_megatron_batches),
            (
                "ragged_all_to_all_expected_cost",
                golden_ch12::ragged_all_to_all_expected_cost,
            ),
            (
                "gpu_and_tpu_side_by_side",
                golden_ch12::gpu_and_tpu_side_by_side,
            ),
        ],
    ),
    (
        "golden_formulas.rs",
        include_str!("golden_formulas.rs"),
        &[
            (
                "the_books_formulas_grade_correct",
                golden_formulas::the_books_formulas_grade_correct,
            ),
            (
                "the_books_shardings_grade_correct",
                golden_formulas::the_books_shardings_grade_correct,
            ),
            (
                "the_books_quoted_figures",
                golden_formulas::the_books_quoted_figures,
            ),
        ],
    ),
    (
        "golden_choices.rs",
        include_str!("golden_choices.rs"),
        &[(
            "choice_answers_match_the_book",
            golden_choices::choice_answers_match_the_book,
        )],
    ),
];

#[test]
fn every_golden_test_is_run_here() {
    for (file, src, tests) in FILES {
        let listed: Vec<&str> = tests.iter().map(|(name, _)| *name).collect();
        assert_eq!(
            test_names(src),
            listed,
            "{file}: the list of tests is stale"
        );
    }
}

#[test]
fn every_problem_is_checked_by_a_golden_assertion() {
    let mut seen = std::collections::BTreeSet::new();
    for (_, _, tests) in FILES {
        seen.extend(exercised_by(tests));
    }
    let missing: Vec<String> = problems()
        .into_iter()
        .map(|p| p.id)
        .filter(|id| !seen.contains(id))
        .collect();
    assert!(
        missing.is_empty(),
        "{} problems no golden assertion checks: {missing:?}",
        missing.len()
    );
}

/// Every problem is a registered exercise, which the exercise tests grade with
/// the book's value (`book_answers.rs`) and perturb (`grading_props.rs`).
#[test]
fn every_problem_is_a_graded_exercise() {
    let ids = covered_ids();
    for p in problems() {
        assert!(ids.contains(&p.id.as_str()), "{} is not an exercise", p.id);
    }
    assert_eq!(ids.len(), problems().len());
}
