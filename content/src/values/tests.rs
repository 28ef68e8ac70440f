//! The value directives' unit tests: every row's example, and the book's
//! numbers each domain must reproduce.

use super::{all, evaluate, find};
use crate::directive::Directive;

fn eval(text: &str) -> Result<String, String> {
    evaluate(&Directive::parse(text).unwrap())
}

fn value(text: &str) -> String {
    eval(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

#[test]
fn every_example_gives_every_argument_and_shows_its_value() {
    let mut wrong = Vec::new();
    for v in all() {
        let d = Directive::parse(v.example).unwrap();
        assert_eq!(
            d.name, v.name,
            "{}: the example is another directive",
            v.name
        );
        let given: Vec<&str> = d.args.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            given, v.args,
            "{}: the example gives other arguments",
            v.name
        );
        let shown = evaluate(&d);
        if shown.as_deref() != Ok(v.shows) {
            wrong.push(format!(
                "`{}` shows {shown:?}, not {:?}",
                v.example, v.shows
            ));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn each_name_is_declared_once() {
    for v in all() {
        assert!(std::ptr::eq(find(v.name).unwrap(), v), "{} twice", v.name);
        assert!(!v.doc.is_empty(), "{} has no doc", v.name);
    }
}

#[test]
fn book_numbers() {
    assert_eq!(eval("peak chip=v5e").unwrap(), "1.97e14");
    assert_eq!(eval("peak chip=v5e fmt=si").unwrap(), "197 TFLOPs/s");
    assert_eq!(eval("bw chip=v5e link=hbm").unwrap(), "8.2e11");
    assert_eq!(eval("critical-batch chip=v5e").unwrap(), "240");
    assert_eq!(eval("critical-batch chip=v5e weight=int8").unwrap(), "120");
    assert_eq!(eval("critical-batch chip=v5e act=int8").unwrap(), "240");
    assert_eq!(eval("prefill-attention-length chip=v5e").unwrap(), "480");
    assert_eq!(
        eval("split-critical-d chip=v5e dir=one-way").unwrap(),
        "8,756"
    );
    assert_eq!(eval("asymptote op=dot").unwrap(), "0.5");
    assert_eq!(eval("ridge chip=h100").unwrap(), "296");
    assert_eq!(eval("hbm chip=v5e fmt=si").unwrap(), "16 GB");
    assert_eq!(eval("chip-name chip=tpu7x").unwrap(), "TPU7x");
    assert_eq!(eval("ridge chip=v5p link=ici").unwrap(), "2550");
    assert_eq!(eval("ridge chip=v6e link=pcie fmt=int").unwrap(), "28,750");
    assert_eq!(eval("latency-knee chip=v5e").unwrap(), "45 kB");
    assert_eq!(eval("pod-chips chip=v5p").unwrap(), "8,960");
    assert_eq!(
        eval("collective-ratio op=allreduce over=allgather").unwrap(),
        "2"
    );
    assert_eq!(
        eval("collective-ratio op=alltoall over=allgather").unwrap(),
        "0.25"
    );
    // Parts 4-6.
    assert_eq!(eval("model-params model=llama3-70b").unwrap(), "70.6B");
    assert_eq!(
        eval("model-params model=llama3-70b part=mlp").unwrap(),
        "56.4B"
    );
    assert_eq!(
        eval("model-params model=llama3-70b part=vocab").unwrap(),
        "2.1B"
    );
    assert_eq!(eval("model-dim model=llama3-70b dim=f").unwrap(), "28,672");
    assert_eq!(
        eval("attention-crossover model=llama3-70b rule=8d").unwrap(),
        "65,536"
    );
    assert_eq!(eval("kv-per-token model=llama3-70b").unwrap(), "328 kB");
    assert_eq!(eval("ici-critical-batch chip=v5p").unwrap(), "2,550");
    assert_eq!(eval("ici-critical-batch chip=v5p axes=3").unwrap(), "850");
    assert_eq!(
        eval("tp-max-degree chip=v5p model=llama3-70b").unwrap(),
        "11.2"
    );
    assert_eq!(
        eval("fsdp-tp-critical chip=v5p model=llama3-70b").unwrap(),
        "113"
    );
    assert_eq!(
        eval("train-flops model=llama3-70b tokens=15e12").unwrap(),
        "6.35e24"
    );
    assert_eq!(
        eval("train-days model=llama3-70b chip=v5p tokens=15e12 mfu=0.4").unwrap(),
        "45"
    );
    assert_eq!(
        eval("tokens-per-chip chip=v5p batch=4194304").unwrap(),
        "468"
    );
    assert_eq!(
        eval("x-opt model=llama3-70b chip=v5p batch=4194304").unwrap(),
        "1,619"
    );
    assert!(eval("train-days model=gpt-9 chip=v5p tokens=1 mfu=0.4").is_err());
    // Part 4's hand-worked shape (D = 8192, L = 64, 4M tokens): 84 TB saving
    // everything, 4.2 TB with block remat, an 8 GiB int8 KV cache at 8k tokens;
    // Q1a's ≈17.4B at exact dimensions; the book's T = 8D crossover.
    let shape = "shape-value d=8192 l=64";
    assert_eq!(value(&format!("{shape} tokens=4e6 arrays=20")), "84 TB");
    assert_eq!(value(&format!("{shape} tokens=4e6 arrays=1")), "4.2 TB");
    assert_eq!(
        value(&format!("{shape} seq=8192 show=kv-sequence")),
        "8.0 GiB"
    );
    assert_eq!(
        value("shape-value d=4096 l=64 v=32000 show=params"),
        "17.4B"
    );
    assert_eq!(value("shape-value d=4096 show=crossover"), "32,768");
    assert!(eval("shape-value d=8192 n=64 k=5 show=params").is_err());
    assert!(eval("shape-value show=volume").is_err());
}

#[test]
fn book_numbers_parts_7_8_12() {
    assert_eq!(
        eval("kv-sequence model=llama3-70b dtype=int8 seq=8192").unwrap(),
        "1.34 GB"
    );
    assert_eq!(
        eval("param-bytes model=llama3-70b dtype=int8").unwrap(),
        "70.6 GB"
    );
    assert_eq!(
        eval("min-slice model=llama3-70b chip=v5e dtype=bf16").unwrap(),
        "16"
    );
    assert_eq!(
        eval("min-slice model=llama3-70b chip=v5e dtype=int4").unwrap(),
        "4"
    );
    assert_eq!(
        eval("step-time model=llama3-70b chip=v5e chips=16 dtype=int8 batch=8 seq=2048").unwrap(),
        "5.58 ms"
    );
    assert!(eval("max-batch model=llama3-70b chip=v5e chips=4 dtype=bf16 seq=2048").is_err());
    // Part 8's hourly prices, as the book's FLOPs-per-dollar table quotes them.
    assert_eq!(eval("price chip=v5p").unwrap(), "4.20 USD");
    assert_eq!(eval("price chip=v5e").unwrap(), "1.20 USD");
    assert!(eval("price chip=v4p")
        .unwrap_err()
        .contains("no price for TPU v4p"));
    assert_eq!(eval("gpu-dp-tokens chip=h100 scope=node").unwrap(), "2,200");
    assert_eq!(
        eval("gpu-dp-tokens chip=h100 scope=network").unwrap(),
        "2,475"
    );
    assert_eq!(eval("gpus-per-node chip=gb200").unwrap(), "72");
    assert!(eval("gpus-per-node chip=v5e").is_err());
    // Part 9.
    assert_eq!(eval("tiling dtype=f32 dims=3,5 tile=2,2").unwrap(), "1.6");
    assert_eq!(
        eval("tiling dtype=f32 dims=3,5 tile=2,2 show=padded").unwrap(),
        "[4, 6]"
    );
    assert_eq!(
        eval("tiling dtype=f32 dims=3,5 tile=2,2 show=bytes").unwrap(),
        "60 B"
    );
    assert_eq!(
        eval("tiling dtype=f32 dims=3,5 tile=2,2 show=padded-bytes").unwrap(),
        "96 B"
    );
    assert!(eval("tiling dims=3,x tile=2").is_err());
    assert!(eval("tiling dims=3 tile=2,2").is_err());
}

#[test]
fn scenario_inputs_and_tpu_shapes() {
    assert_eq!(
        eval("input value=1024 unit=sequences").unwrap(),
        "1,024 sequences"
    );
    assert_eq!(eval("input value=40 unit=%").unwrap(), "40%");
    assert_eq!(
        eval("input value=15e12 unit=trillion_tokens").unwrap(),
        "1.5e13 trillion tokens"
    );
    assert!(eval("input value=abc").unwrap_err().contains("abc"));
    assert!(eval("input value=inf").is_err());
    // The book's Part 2: 128×128 MXUs, 256×256 on v6e; v5e axes wrap at 16,
    // v5p slices in whole 4×4×4 cubes.
    assert_eq!(eval("mxu chip=v5e").unwrap(), "128×128");
    assert_eq!(eval("mxu chip=v6e show=side").unwrap(), "256");
    assert_eq!(eval("wrap chip=v5e").unwrap(), "16");
    assert_eq!(eval("wrap chip=v5p show=cube").unwrap(), "4×4×4");
    assert!(eval("mxu chip=h100").is_err());
    assert!(eval("wrap chip=h100").is_err());
}

/// Part 2's chip internals, pods and transfers, as the book gives them.
#[test]
fn part2_tensorcore_pods_and_transfers() {
    let cases = [
        // One v5e MXU: 2·128²·1.5 GHz ≈ 5e13; four per core; one core per v5e
        // chip, two per v5p chip, whose bf16 peak 4.59e14 halves per core.
        ("tensorcore chip=v5e show=mxu-rate", "4.92e13"),
        ("tensorcore chip=v5e show=mxus", "4"),
        ("tensorcore chip=v5e show=cores", "1"),
        ("tensorcore chip=v5p show=cores", "2"),
        ("tensorcore chip=v5p show=core-peak", "2.3e14"),
        // The VPU: 8·128·4 = 4,096 ALUs, ≈7e12 FLOPs/s at 1.75 GHz, ~30× below the MXUs.
        ("tensorcore chip=v5p show=vpu-total", "4,096"),
        ("tensorcore chip=v5p show=vpu-rate", "7.17e12"),
        ("tensorcore chip=v5p show=mxu-over-vpu", "32"),
        // 64 VREGs of 8×128 32-bit values: 256 KiB per core (32 VREGs on v4).
        ("tensorcore chip=v5p show=vregs", "64"),
        ("tensorcore chip=v4p show=vregs", "32"),
        ("tensorcore chip=v5p show=vreg-bytes", "256 KiB"),
        ("tensorcore chip=v5e show=vmem", "128 MiB"),
        ("tensorcore chip=v5e show=mxu-cells", "16,384"),
        // From VMEM (22× HBM) the v5e's ridge of 240 falls to about 11; the
        // VPU, fed from HBM, needs only ~7.5 FLOPs per byte.
        ("tensorcore chip=v5e show=vmem-ridge", "10.9"),
        ("tensorcore chip=v5e show=vpu-ridge", "7.5"),
        // Pods: v5p 16×20×28 of 2×2×1 hosts, 17,920 cores, ≈4e18 FLOPs/s;
        // v5e 16×16 of 4×2 hosts.
        ("pod-chips chip=v5p what=shape", "16×20×28"),
        ("pod-chips chip=v4p what=shape", "16×16×16"),
        ("pod-chips chip=v5p what=host", "2×2×1"),
        ("pod-chips chip=v5e what=host", "4×2"),
        ("pod-chips chip=v5p what=cores", "17,920"),
        ("pod-chips chip=v5p what=flops", "4.11e18"),
        // Q6's stages: 16 GB over 16 PCIe links or over one; 15 GB over the
        // corner's two one-way ICI links.
        (
            "link-time chip=v5e link=pcie bytes=1.6e10 links=16",
            "62.5 ms",
        ),
        ("link-time chip=v5e link=pcie bytes=1.6e10", "1 s"),
        (
            "link-time chip=v5e link=ici dir=one-way bytes=1.5e10 links=2",
            "167 ms",
        ),
    ];
    for (directive, shows) in cases {
        assert_eq!(value(directive), shows, "{directive}");
    }
    for bad in [
        "tensorcore chip=v6e show=mxus",
        "tensorcore chip=h100",
        "pod-chips chip=h100 what=host",
        "link-time chip=v5e link=pcie bytes=1e9 links=0",
    ] {
        assert!(eval(bad).is_err(), "{bad}");
    }
}

#[test]
fn clear_errors() {
    assert!(eval("ridge chip=v9").unwrap_err().contains("unknown chip"));
    assert!(eval("ridge").unwrap_err().contains("chip="));
    assert!(eval("peak chip=v5e dtype=fp4")
        .unwrap_err()
        .contains("no fp4"));
    assert!(eval("nonsense").unwrap_err().contains("unknown value"));
    assert!(eval("ridge chip=v5e colour=red")
        .unwrap_err()
        .contains("colour"));
    assert!(eval("time chip=v5e flops=-1")
        .unwrap_err()
        .contains("positive"));
}

#[test]
fn values_come_from_core() {
    // The v5p's own steps down the hierarchy: about 16, 11 and 2.6 times.
    assert_eq!(eval("link-step chip=v5p link=hbm over=ici").unwrap(), "16");
    assert_eq!(eval("link-step chip=v5p link=ici over=pcie").unwrap(), "11");
    assert_eq!(
        eval("link-step chip=v5p link=pcie over=dcn").unwrap(),
        "2.6"
    );
    // Exercise ch2-q3 fixes PCIe at the generic per-TPU figure.
    assert_eq!(
        eval("ridge-via chip=v6e link=pcie via=v5e").unwrap(),
        "57,500"
    );
    assert_eq!(
        eval("systolic-cycles k=8 n=8 m=8 blocks=4 pipelined=no show=stream").unwrap(),
        "88"
    );
    assert_eq!(
        eval("systolic-cycles k=8 n=8 m=8 blocks=4 show=stream").unwrap(),
        "46"
    );
    // Eight cycles of loading before the first activation, fifteen in all.
    assert_eq!(eval("systolic-cycles k=8 n=8 m=8 blocks=4").unwrap(), "54");
    assert_eq!(
        eval("systolic-cycles k=8 n=8 m=8 blocks=4 show=load").unwrap(),
        "15"
    );
    assert!(eval("systolic-cycles k=8 n=8 show=some")
        .unwrap_err()
        .contains("show="));
    assert_eq!(eval("gather-knee chip=v5e n=16").unwrap(), "720 kB");
    // The book's measurement peaks at 10 MB, 625 kB a device on its ring of
    // 16; the model's large-array rate is the measured 9e10 B/s, and the
    // book's inference then reads 15/16 of the one-way peak.
    let knee = |show: &str| eval(&format!("gather-knee chip=v5e show={show}")).unwrap();
    assert_eq!(knee("measured-per-device"), "625 kB");
    assert_eq!(knee("measured-ring"), "16");
    assert_eq!(knee("model-achieved"), knee("measured-achieved"));
    assert_eq!(knee("model-fraction"), "94%");
    assert!(eval("gather-knee chip=v5e show=asymptote").is_err());
    assert_eq!(eval("gather-profiled show=small").unwrap(), "8 µs");
    // Question 8's setting: a bf16[8192, 8192] over a wrapping v5e axis of 16.
    let q8 = |op: &str, show: &str| {
        eval(&format!(
            "collective-time op={op} chip=v5e n=16 v=134217728 show={show}"
        ))
        .unwrap()
    };
    assert_eq!(q8("allgather", "time"), "1.49 ms");
    assert_eq!(q8("reducescatter", "time"), q8("allgather", "time"));
    assert_eq!(q8("alltoall", "time"), "373 µs");
    assert_eq!(q8("allgather", "bound"), "bandwidth-bound");
    assert_eq!(q8("allgather", "v"), "134 MB");
    // Pop Quiz 2's line of four: three one-way hops of 8.4 MB.
    assert_eq!(
        eval("collective-time op=allgather chip=v5e n=4 v=33554432 wrap=0").unwrap(),
        "559 µs"
    );
    assert!(eval("collective-time op=allgather chip=v5e v=1e6 wrap=2").is_err());
    assert!(eval("collective-time op=broadcast chip=v5e v=1e6").is_err());
    assert!(eval("gather-profiled show=medium").is_err());
    // Case 3: the ReduceScatter of the unreduced C[8192, 8192] in bf16 is
    // V / W_ici = 134 MB / 9e10 B/s.
    assert_eq!(
        eval("collective-matmul chip=v5e case=reducescatter k=8192 show=gather").unwrap(),
        "1.49 ms"
    );
    assert!(eval("collective-matmul chip=v5e case=case3").is_err());
    assert!(eval("strong-scaling chip=v5e params=1e9 tokens=1e6 chips=0").is_err());
    assert!(eval("link-step chip=v5p link=nvlink over=ici").is_err());
    assert!(eval("tile-intensity bm=0").is_err());
}

#[test]
fn the_fixed_split_and_the_best_split_agree_with_the_book() {
    assert_eq!(
        value("fsdp-tp-split chip=v5p model=llama3-70b mesh=16x16x16 batch=1048576 show=tp"),
        "8"
    );
    assert_eq!(
        value("fsdp-tp-split chip=v5p model=llama3-70b mesh=16x16x16 batch=1048576"),
        "159"
    );
    assert_eq!(value("fsdp-tp-critical chip=v5p model=llama3-70b"), "113");
}

#[test]
fn part6_numbers() {
    assert_eq!(value("run-default what=batch"), "4,194,304");
    assert_eq!(value("run-default what=mfu"), "40%");
    assert_eq!(
        value("layer-params model=llama3-70b show=mlp"),
        "704,643,072"
    );
    assert_eq!(value("seq-shards chip=v5p tp=4"), "4");
    let chips: f64 = value("train-memory model=llama3-70b chip=v5p show=min-chips")
        .replace(',', "")
        .parse()
        .unwrap();
    assert!((200.0..260.0).contains(&chips), "{chips}"); // the book: about 225
}

#[test]
fn part4_and_5_numbers() {
    assert_eq!(value("layer-share model=llama3-70b show=other"), "0.083%");
    assert_eq!(value("pipeline-bubble stages=4 microbatches=8"), "27.3%");
    // DualPipe idles S − 2 units a device: 2 of 26 at S = 4, M = 8.
    assert_eq!(
        value("pipeline-bubble stages=4 microbatches=8 schedule=dualpipe"),
        "7.69%"
    );
    assert_eq!(
        value("pipeline-bubble stages=4 microbatches=8 schedule=interleaved chunks=2"),
        "15.8%"
    );
    assert_eq!(value("remat-cost model=llama3-70b policy=none"), "6.1");
    // The ridge of a v5e (about 240) times E/k = 4.
    assert_eq!(value("moe-value chip=v5e model=mixtral-8x7b"), "961");
}

#[test]
fn the_books_numbers_come_out() {
    assert_eq!(value("theory-table batch=1 show=step"), "4.99 ms"); // the book: 4.98 ms
    assert_eq!(value("theory-table batch=240 kv=8 show=step"), "53.1 ms"); // the book: 52.99 ms
    assert_eq!(value("ws-crossover ratio=4"), "72");
    assert_eq!(
        value("handover batch=32 prefill=8192 decode=4096 show=evicted"),
        "96"
    );
    assert_eq!(value("kv-shard show=ratio"), "4");
    assert_eq!(value("overlap-time show=book-blocking"), "311 µs");
    // 311 / 224 and 244 / 224: the book's "about 39%" and "about 9%".
    assert_eq!(value("overlap-time show=book-blocking-over"), "39%");
    assert_eq!(value("overlap-time show=book-overlapped-over"), "9%");
    assert!(
        value("serve-metric model=llama3-70b chip=v5e chips=16 dtype=int8 show=usd")
            .ends_with(" USD")
    );
    for s in [
        "serve-sim layout=interleaved show=itl-p95",
        "serve-sim show=itl-p95",
        "serve-sim show=hit-rate",
        "spec-sampling show=speedup",
        "spec-sampling show=best",
        "overlap-time show=overlapped",
        "overlap-time show=blocking",
        "kv-shard show=alltoall",
    ] {
        eprintln!("{s} = {}", value(s));
    }
    let bad = eval("serve-sim show=nope");
    assert!(bad.unwrap_err().contains("unknown show"));
}

#[test]
fn part_sevens_slice_host_and_problem_models() {
    // "8x TPU v5es gives us 128GiB of HBM, 6.5TiB/s of HBM bandwidth … and
    // 1600TF/s"; the registry's HBM is the book's 16 GiB written as 16 GB.
    assert_eq!(value("serving-slice chip=v5e chips=8 show=hbm"), "128 GB");
    assert_eq!(value("serving-slice chip=v5e chips=8 show=bw"), "6.56 TB/s");
    assert_eq!(
        value("serving-slice chip=v5e chips=8 show=peak"),
        "1.58 PFLOPs/s"
    );
    // Prefix caching: a host of eight v5e, 128 GiB of HBM, ~450 GiB of DRAM.
    assert_eq!(value("host-memory chip=v5e show=chips"), "8");
    assert_eq!(value("host-memory chip=v5e show=hbm"), "128 GB");
    assert_eq!(value("host-memory chip=v5e show=dram"), "450 GB");
    assert!(eval("host-memory chip=v5p show=dram")
        .unwrap_err()
        .contains("no host DRAM"));
    assert!(eval("host-memory chip=h100 show=hbm").is_err());
    // The MHA table: batch 8 fits on eight v5e, 16 does not in decimal GB
    // (the book, counting 128 GiB, still fits it); GQA fits 64.
    assert_eq!(value("theory-table batch=8 show=fits"), "yes");
    assert_eq!(value("theory-table batch=16 show=fits"), "no");
    assert_eq!(value("theory-table batch=1 show=max-batch"), "15");
    assert_eq!(value("theory-table batch=64 kv=8 show=fits"), "yes");
    assert_eq!(value("theory-table batch=16 show=total"), "133 GB"); // the book: 133.2
                                                                     // The problem model of the worked problems and its MoE variant.
    assert_eq!(value("model-params model=part7-problem"), "18.4B");
    assert_eq!(
        value("kv-per-token model=part7-problem dtype=int8"),
        "262 kB"
    );
    assert_eq!(value("model-params model=part7-moe"), "212B");
    assert_eq!(value("min-slice model=part7-moe chip=v5e dtype=int8"), "16");
    assert_eq!(
        value("tp-max-degree chip=v5e model=part7-problem axes=1"),
        "7.49"
    );
    assert!(eval("model-dim model=part7-nothing").is_err());
}

#[test]
fn strong_scaling_keeps_to_memory_the_ici_domain_and_the_backward_pass() {
    let at = |rest: &str| {
        value(&format!(
            "strong-scaling chip=v5e params=1e9 tokens=1048576 {rest}"
        ))
    };
    // Part 5: pure data parallelism holds HBM / 10 parameters per chip, so an
    // 8B model's 80 GB of Adam state does not fit in a v5e's 16 GB.
    let e = eval("strong-scaling chip=v5e params=8e9 tokens=1048576 chips=16").unwrap_err();
    assert!(e.contains("80 GB") && e.contains("16 GB"), "{e}");
    // The v5e's ICI domain is 16×16 = 256 chips; 4,096 chips are 16 of them
    // joined by DCN, where each chip all-reduces 1/256 of the 2 GB of
    // gradients: 2 · 2e9 / (256 · 3.125e9) = 5 ms.
    assert_eq!(at("chips=1 show=domain"), "256");
    assert_eq!(at("chips=256 show=slices"), "1");
    assert_eq!(at("chips=256 show=dcn"), "0 s");
    assert_eq!(at("chips=4096 show=slices"), "16");
    assert_eq!(at("chips=4096 show=dcn"), "5 ms");
    // Inside a slice, over both axes of the 16×16 torus: 2 · 2e9 / (2 · 9e10).
    assert_eq!(at("chips=4096 show=ici"), "22.2 ms");
    // Only the backward pass, two thirds of the compute, hides the AllReduce:
    // step = 7.8 ms / 3 + 22.2 ms = 24.8 ms, 31% busy.
    assert_eq!(at("chips=4096 show=compute"), "7.8 ms");
    assert_eq!(at("chips=4096 show=backward"), "5.2 ms");
    assert_eq!(at("chips=4096 show=step"), "24.8 ms");
    assert_eq!(at("chips=4096"), "31%");
    // A step of 1,000 tokens cannot spread over 1,024 chips.
    let e = eval("strong-scaling chip=v5e params=1e9 tokens=1000 chips=1024").unwrap_err();
    assert!(e.contains("without a token"), "{e}");
}

/// Part 1's numbers beyond the ridge: achievable peak, the VPU, the batch in
/// tokens and Question 3's curves.
#[test]
fn part1_numbers() {
    assert_eq!(value("peak-share chip=h100"), "80–85%");
    assert_eq!(value("peak-share chip=b200"), "80–85%");
    assert_eq!(value("peak-share chip=v6e"), "95%");
    assert_eq!(value("peak-share chip=v5e show=rate"), "1.9e14");
    assert_eq!(value("peak-share chip=h100 show=rate"), "7.9e14–8.4e14");
    assert!(eval("peak-share chip=h100 show=nope").is_err());
    // The book: "roughly 7e12" per v5p core, a critical intensity "around 3".
    assert_eq!(value("vpu chip=v5p"), "7.2e12");
    assert_eq!(value("vpu chip=v5p show=ridge"), "2.6");
    assert!(eval("vpu chip=h100").is_err());
    // 512 sequences of 4096 tokens on 2048 GPUs: 2M tokens, 1k each.
    assert_eq!(value("token-batch seqs=512 len=4096"), "2.1M");
    assert_eq!(
        value("token-batch seqs=512 len=4096 devices=2048 show=per-device"),
        "1,024"
    );
    // Question 3: int8 weights, bf16 compute; the curves reach the peak.
    let q3 = "chip=v5e act=bf16 weight=int8";
    assert_eq!(
        value(&format!("attainable {q3} b=512 d=4096 f=4096")),
        "1.97e14"
    );
    assert_eq!(value(&format!("critical-batch {q3} d=4096 f=4096")), "136");
    assert_eq!(value(&format!("critical-batch {q3} d=1024 f=1024")), "226");
    // Below its critical batch the smaller matmul gets less than the larger.
    let small: f64 = value(&format!("attainable {q3} b=128 d=1024 f=1024"))
        .parse()
        .unwrap();
    let big: f64 = value(&format!("attainable {q3} b=128 d=4096 f=4096"))
        .parse()
        .unwrap();
    assert!(small < big && big < 1.97e14, "{small} {big}");
}

#[test]
fn part6_plans_and_run_times() {
    let pod = "pod-plan model=llama3-70b chip=v5p batch=4194304";
    // The book rounds X_opt ≈ 1618 to 2048-way FSDP × 4-way TP on 8,192 chips,
    // i.e. 1024 sequences × 2-way sequence sharding, leaving 768 chips idle;
    // the planner keeps all 8,960 chips as 2,240 × 4.
    for (show, want) in [
        ("x-opt", "1,619"),
        ("fsdp", "2,048"),
        ("tp-round", "4"),
        ("used", "8,192"),
        ("idle", "768"),
        ("dp", "1,024"),
        ("seq", "2"),
        ("planner-fsdp", "2,240"),
    ] {
        assert_eq!(value(&format!("{pod} pods=1 show={show}")), want, "{show}");
    }
    // Worked problem 1: four pods, a quarter of the batch each, FSDP ≈ 800 × TP ≈ 11.
    assert_eq!(
        value(&format!("{pod} pods=4 show=tokens-per-pod")),
        "1,048,576"
    );
    assert_eq!(value(&format!("{pod} pods=4 show=x-opt")), "810");
    assert_eq!(value(&format!("{pod} pods=4 show=tp")), "11");
    assert_eq!(value(&format!("{pod} pods=4 show=chips")), "35,840");
    // ≈1 ms a token on one v5p, ≈435 years for the run; the memory floor's chips
    // (226 at the book's 4e6 tokens) take ≈1,752 days in the book, 1,771 here.
    let run = "train-time model=llama3-70b chip=v5p";
    assert_eq!(value(&format!("{run} tokens=1 chips=1 unit=s")), "922 µs");
    assert_eq!(
        value(&format!("{run} tokens=15e12 chips=1 unit=years")),
        "438"
    );
    assert_eq!(
        value(&format!(
            "{run} tokens=15e12 mfu=0.4 chips=min batch=4e6 unit=days"
        )),
        "1,771"
    );
    assert!(eval(&format!("{run} tokens=15e12 chips=some")).is_err());
    assert!(eval(&format!("{pod} pods=1 show=volume")).is_err());
}

/// Part 5's numbers, each from the book's text or figures.
#[test]
fn part5_numbers() {
    // Pure DP over a pod's three axes: 850 per chip, about 7.6M per pod.
    assert_eq!(
        value("min-batch chip=v5p chips=8960 scheme=dp axes=3"),
        "7.62e6"
    );
    // Q3: pure FSDP on 4,096 chips needs about 3.48M tokens.
    assert_eq!(
        value("min-batch chip=v5p chips=4096 scheme=dp axes=3"),
        "3.48e6"
    );
    // DeepSeek-V2's 40M tokens spread over about 47,000 chips.
    assert_eq!(
        value("max-chips chip=v5p batch=40e6 axes=3 scheme=fsdp"),
        "47,059"
    );
    assert_eq!(
        value("max-chips chip=v5p batch=16e6 axes=3 scheme=fsdp"),
        "18,824"
    );
    assert_eq!(
        value("max-chips chip=v5p batch=2e6 axes=3 scheme=fsdp"),
        "2,353"
    );
    // F = 32,768: 99 tokens per chip, about eight times below FSDP's 850.
    assert_eq!(value("mixed-critical chip=v5p f=32768"), "99");
    assert_eq!(value("mixed-critical chip=v5p f=13824"), "235");
    assert_eq!(value("mixed-gain chip=v5p f=32768"), "8.6");
    assert_eq!(value("x-opt-for batch=3e6 f=13824 chips=4096"), "1,333");
    // TP: LLaMA 3-70B's 8-way needs F of about 20k; Gemma 7B stops near 19-way.
    assert_eq!(value("tp-min-ff chip=v5p degree=8 axes=1"), "20,400");
    assert_eq!(value("tp-limit chip=v5p f=32768 axes=1"), "12.9");
    // The book's training roofline: fixed splits of 4,096 chips, TP on one axis.
    assert_eq!(
        value("split-critical chip=v5p f=32768 chips=4096 tp=1 mx=3 my=1"),
        "3.48e6"
    );
    assert_eq!(
        value("split-critical chip=v5p f=32768 chips=4096 tp=2 mx=3 my=1"),
        "1.74e6"
    );
    assert_eq!(
        value("split-critical chip=v5p f=32768 chips=4096 tp=4 mx=3 my=1"),
        "8.7e5"
    );
    assert!(eval("split-critical chip=v5p f=32768 chips=4096 tp=16 mx=3 my=1").is_err());
    // The text's 256 × 16, which needs TP on two axes and leaves FSDP one.
    assert_eq!(
        value("split-critical chip=v5p f=32768 chips=4096 tp=16 mx=1 my=2"),
        "6.53e5"
    );
    // DCN: 25 GB/s per host, 6.25 GB/s per chip.
    assert_eq!(value("dcn-egress chip=v5p show=chip"), "6.25 GB/s");
    assert_eq!(value("dcn-egress chip=v5p show=host"), "25 GB/s");
    assert!(eval("min-batch chip=v5p chips=64 scheme=mixed axes=3").is_err());
}

#[test]
fn llama2_13b_memory_values_match_the_book() {
    assert_eq!(
        eval("model-params model=llama2-13b part=mlp").unwrap(),
        "8.49B"
    );
    assert_eq!(
        eval("model-params model=llama2-13b part=attention").unwrap(),
        "4.19B"
    );
    assert_eq!(
        eval("model-params model=llama2-13b part=vocab").unwrap(),
        "0.328B"
    );
    assert_eq!(eval("model-params model=llama2-13b").unwrap(), "13B");
    assert_eq!(
        eval("param-bytes model=llama2-13b dtype=bf16").unwrap(),
        "26 GB"
    );
}

/// `answer` gives a registered exercise's expected answer and refuses an unknown id.
#[test]
fn answer_gives_the_book_versions_expected_answer() {
    for def in ridgeline_core::exercises::registry::defs() {
        if def.chapter == 8 || def.chapter == 9 {
            let d = Directive::parse(&format!("answer id={}", def.id)).unwrap();
            assert!(evaluate(&d).is_ok(), "{}", def.id);
        }
    }
    assert_eq!(value("answer id=ch8-q3a"), "17.22 ms");
    assert_eq!(value("answer id=ch8-ex1c"), "5.91e17 FLOPs per dollar");
    let d = Directive::parse("answer id=ch99-none").unwrap();
    assert!(evaluate(&d)
        .unwrap_err()
        .contains("not a registered exercise"));
}

/// `v2-matmul` predicts Part 9's matmuls on TPU v2 cores and refuses a fraction of a core.
#[test]
fn v2_matmul_predicts_the_books_profiled_matmuls() {
    assert_eq!(value("v2-matmul b=32768 d=8192 f=32768 cores=8"), "95.6 ms");
    assert_eq!(value("v2-matmul b=8192 d=8192 f=2048 cores=1"), "12 ms");
    assert_eq!(
        value("v2-matmul b=8192 d=8192 f=2048 cores=1 show=flops"),
        "2.75e11"
    );
    let d = Directive::parse("v2-matmul b=1 d=1 f=1 cores=1.5").unwrap();
    assert!(evaluate(&d).is_err());
}

/// `collective-matmul-code` is core's program, whole or one line, and in a
/// fenced block it renders as code, the ring size reaching the program.
#[test]
fn the_collective_matmul_code_is_cores_program() {
    use ridgeline_core::comms::overlap_timeline::OverlapParams;
    use ridgeline_core::sharding::jax_code::collective_matmul_code;
    let core = collective_matmul_code(&OverlapParams::default()).unwrap();
    assert_eq!(value("collective-matmul-code"), core.trim_end());
    assert_eq!(
        value("collective-matmul-code line=2"),
        core.lines().nth(1).unwrap()
    );
    let eight = value("collective-matmul-code y=8");
    assert!(eight.contains("jax.make_mesh((2, 8)"), "{eight}");
    assert!(eval("collective-matmul-code line=999").is_err());
    let page = crate::render::render_chapter("# T\n\n```python\n{{collective-matmul-code}}\n```\n")
        .unwrap();
    assert!(
        page.html
            .contains("<pre><code class=\"language-python\">import jax"),
        "{}",
        page.html
    );
    assert!(page.html.contains("jax.lax.ppermute(lhs,"), "{}", page.html);
}
