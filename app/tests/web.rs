//! Component tests in headless Chromium (`cargo test -p ridgeline-app --target
//! wasm32-unknown-unknown`): mount a widget, drive its controls as a reader
//! would, and check what the reader would see.

#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use leptos::prelude::*;
use ridgeline_app::widgets::{widget_view, NAMES, STATIC};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;
use web_sys::{Event, HtmlElement, HtmlInputElement};

wasm_bindgen_test_configure!(run_in_browser);

fn host() -> HtmlElement {
    let host: HtmlElement = document().create_element("div").unwrap().unchecked_into();
    document().body().unwrap().append_child(&host).unwrap();
    host
}

async fn tick() {
    // Effects run on the microtask queue; two rounds let chained effects settle.
    for _ in 0..3 {
        JsFuture::from(js_sys::Promise::resolve(&JsValue::NULL))
            .await
            .unwrap();
    }
}

fn verdict(host: &HtmlElement) -> String {
    host.query_selector("[data-verdict]")
        .unwrap()
        .expect("a verdict element")
        .text_content()
        .unwrap()
}

fn slider(host: &HtmlElement) -> HtmlInputElement {
    host.query_selector("input[type=range]")
        .unwrap()
        .expect("a range input")
        .unchecked_into()
}

fn set_input(input: &HtmlInputElement, value: &str) {
    input.set_value(value);
    input.dispatch_event(&Event::new("input").unwrap()).unwrap();
}

/// The inline SVG of the chart layer `selector`; fails unless it holds one drawn chart.
fn layer_svg(host: &HtmlElement, selector: &str) -> String {
    let layer = host
        .query_selector(selector)
        .unwrap()
        .unwrap_or_else(|| panic!("{selector} missing"));
    assert_eq!(
        layer.query_selector_all("svg").unwrap().length(),
        1,
        "{selector} should hold one <svg>"
    );
    let svg = layer.inner_html();
    assert!(
        svg.contains("<path") || svg.contains("<polyline") || svg.contains("<circle"),
        "{selector} draws nothing: {svg}"
    );
    svg
}

#[wasm_bindgen_test]
async fn roofline_verdict_flips_when_the_slider_crosses_the_ridge() {
    let host = host();
    let args: Vec<(&str, &str)> = vec![("chip", "v5e"), ("b", "64")];
    let _handle = leptos::mount::mount_to(host.clone(), move || widget_view("roofline", &args));
    tick().await;
    assert!(host
        .query_selector("[data-widget=roofline]")
        .unwrap()
        .is_some());
    assert_eq!(verdict(&host), "memory-bound");
    // The static layer is the chip's roofline, the moving one the operation.
    let base = layer_svg(&host, ".plot .layer:not(.overlay)");
    assert!(base.contains("arithmetic intensity"), "{base}");
    assert!(base.contains("HBM ridge"), "{base}");
    let before = layer_svg(&host, ".layer.overlay");
    assert!(before.contains("B = 64"), "{before}");

    // Slide to the far right: B = 2^20 tokens, far past the ridge.
    let s = slider(&host);
    set_input(&s, "400");
    tick().await;
    assert_eq!(verdict(&host), "compute-bound");
    let after = layer_svg(&host, ".layer.overlay");
    assert_ne!(before, after, "the point did not move");
    // Moving the point leaves the static layer as it was.
    assert_eq!(base, layer_svg(&host, ".plot .layer:not(.overlay)"));

    // And back below the ridge.
    set_input(&s, "100");
    tick().await;
    assert_eq!(verdict(&host), "memory-bound");
    let crossing = host
        .query_selector(".crossing")
        .unwrap()
        .unwrap()
        .text_content()
        .unwrap();
    assert!(crossing.contains("B ≈ 256"), "{crossing}");
}

#[wasm_bindgen_test]
async fn roofline_rejects_bad_input_and_keeps_the_last_valid_state() {
    let host = host();
    let args: Vec<(&str, &str)> = vec![("chip", "v5e"), ("b", "64")];
    let _handle = leptos::mount::mount_to(host.clone(), move || widget_view("roofline", &args));
    tick().await;
    let text: HtmlInputElement = host
        .query_selector("input.batch-text")
        .unwrap()
        .unwrap()
        .unchecked_into();
    for bad in ["-5", "0", "NaN", "1e999", "abc", ""] {
        set_input(&text, bad);
        tick().await;
        let notice = host.query_selector("[data-notice]").unwrap().unwrap();
        assert!(!notice.has_attribute("hidden"), "no notice for {bad:?}");
        assert!(!notice.text_content().unwrap().is_empty());
        assert_eq!(verdict(&host), "memory-bound", "state changed on {bad:?}");
    }
    set_input(&text, "4096");
    tick().await;
    assert_eq!(verdict(&host), "compute-bound");
    assert!(host
        .query_selector("[data-notice]")
        .unwrap()
        .unwrap()
        .has_attribute("hidden"));
}

#[wasm_bindgen_test]
async fn overlap_verdict_flips_at_the_crossover() {
    let host = host();
    let args: Vec<(&str, &str)> = vec![("chip", "v5e"), ("d", "4096")];
    let _handle = leptos::mount::mount_to(host.clone(), move || widget_view("overlap", &args));
    tick().await;
    assert_eq!(verdict(&host), "communication-bound");
    set_input(&slider(&host), "300");
    tick().await;
    assert_eq!(verdict(&host), "compute-bound");
}

#[wasm_bindgen_test]
async fn every_widget_mounts_with_its_data_attribute() {
    for name in NAMES {
        // A static figure is drawn by the page writer and compiled into no
        // wasm build: there is nothing here to mount.
        if STATIC.contains(name) {
            assert!(
                widget_view(name, &[]).is_none(),
                "{name} is a static figure and must ship no code"
            );
            continue;
        }
        let host = host();
        let n = *name;
        let _handle = leptos::mount::mount_to(host.clone(), move || widget_view(n, &[]));
        tick().await;
        let root = host
            .query_selector(&format!("[data-widget=\"{name}\"]"))
            .unwrap();
        assert!(root.is_some(), "{name} has no data-widget root");
    }
}

fn text_of(host: &HtmlElement, selector: &str) -> String {
    host.query_selector(selector)
        .unwrap()
        .unwrap_or_else(|| panic!("no {selector}"))
        .text_content()
        .unwrap()
}

#[wasm_bindgen_test]
async fn editing_the_sharding_notation_changes_the_collective() {
    let host = host();
    let _handle = leptos::mount::mount_to(host.clone(), move || {
        widget_view("sharding", &[("chip", "v5e")])
    });
    tick().await;
    assert!(text_of(&host, "[data-collective]").starts_with("AllGather A over X"));
    let spec: HtmlInputElement = host
        .query_selector("input.spec")
        .unwrap()
        .unwrap()
        .unchecked_into();
    set_input(&spec, "A[I, J_X] · B[J_X, K] -> C[I, K]");
    tick().await;
    assert_eq!(text_of(&host, "[data-collective]"), "AllReduce C over X");
    assert!(text_of(&host, ".plan-summary").contains("Case 3"));
    // An invalid sharding: a message, and the last valid plan stays.
    set_input(&spec, "A[I_X, J_X] · B[J, K] -> C[I, K]");
    tick().await;
    let notice = host.query_selector("[data-notice]").unwrap().unwrap();
    assert!(!notice.has_attribute("hidden"));
    assert!(notice.text_content().unwrap().contains("used twice"));
    assert_eq!(text_of(&host, "[data-collective]"), "AllReduce C over X");
    assert_eq!(host.query_selector_all(".device").unwrap().length(), 8);
}

#[wasm_bindgen_test]
async fn stepping_the_collective_player_moves_blocks() {
    let host = host();
    let _handle = leptos::mount::mount_to(host.clone(), move || {
        widget_view("collective", &[("op", "allgather"), ("n", "4")])
    });
    tick().await;
    let held = |host: &HtmlElement| -> Vec<String> {
        let list = host.query_selector_all("[data-held]").unwrap();
        (0..list.length())
            .map(|i| {
                list.item(i)
                    .unwrap()
                    .unchecked_into::<web_sys::Element>()
                    .get_attribute("data-held")
                    .unwrap()
            })
            .collect()
    };
    assert_eq!(held(&host), vec!["1"; 4]);
    let next: HtmlElement = host
        .query_selector("button[aria-label='next step']")
        .unwrap()
        .unwrap()
        .unchecked_into();
    next.click();
    tick().await;
    assert_eq!(
        host.query_selector("svg.ring")
            .unwrap()
            .unwrap()
            .get_attribute("data-step")
            .as_deref(),
        Some("1")
    );
    assert_ne!(held(&host), vec!["1"; 4]);
    assert!(host.query_selector_all("line.arrow").unwrap().length() > 0);
    next.click();
    tick().await;
    assert_eq!(
        held(&host),
        vec!["4"; 4],
        "every device holds all of A after N/2 steps"
    );
}

#[wasm_bindgen_test]
async fn training_roofline_verdict_flips_when_the_batch_crosses_the_boundary() {
    let host = host();
    let _handle = leptos::mount::mount_to(host.clone(), move || {
        widget_view(
            "training-roofline",
            &[
                ("chip", "v5p"),
                ("mesh", "16x16x16"),
                ("scheme", "fsdp"),
                ("b", "1048576"),
            ],
        )
    });
    tick().await;
    assert!(host
        .query_selector("[data-widget=training-roofline]")
        .unwrap()
        .is_some());
    assert_eq!(verdict(&host), "communication-bound");
    assert!(text_of(&host, "[data-boundary]").contains("850 per chip"));
    let base = layer_svg(&host, ".plot .layer:not(.overlay)");
    assert!(base.contains("global batch B (tokens)"), "{base}");
    let before = layer_svg(&host, ".layer.overlay");
    let s = slider(&host);
    set_input(&s, "400");
    tick().await;
    assert_eq!(verdict(&host), "compute-bound");
    assert_ne!(
        before,
        layer_svg(&host, ".layer.overlay"),
        "the point did not move"
    );
    set_input(&s, "0");
    tick().await;
    assert_eq!(verdict(&host), "communication-bound");
}

#[wasm_bindgen_test]
async fn training_roofline_rejects_an_invalid_mesh_with_a_notice() {
    let host = host();
    let _handle = leptos::mount::mount_to(host.clone(), move || {
        widget_view(
            "training-roofline",
            &[("chip", "v5p"), ("mesh", "16x16x16")],
        )
    });
    tick().await;
    let mesh: HtmlInputElement = host
        .query_selector("input.mesh-text")
        .unwrap()
        .unwrap()
        .unchecked_into();
    let notice = || host.query_selector("[data-notice]").unwrap().unwrap();
    assert!(notice().has_attribute("hidden"));
    for bad in ["28x28x28", "16x0x16", "2x2x2x2", "lots"] {
        mesh.set_value(bad);
        mesh.dispatch_event(&Event::new("change").unwrap()).unwrap();
        tick().await;
        assert!(!notice().has_attribute("hidden"), "no notice for {bad}");
        assert!(!notice().text_content().unwrap().is_empty());
        assert_eq!(
            verdict(&host),
            "communication-bound",
            "state changed on {bad}"
        );
    }
    assert!(notice().text_content().unwrap().contains("chip"));
    // A batch below one token per chip is refused too.
    let b: HtmlInputElement = host
        .query_selector("input.batch-text")
        .unwrap()
        .unwrap()
        .unchecked_into();
    b.set_value("2000");
    b.dispatch_event(&Event::new("change").unwrap()).unwrap();
    tick().await;
    assert!(!notice().has_attribute("hidden"));
}

#[wasm_bindgen_test]
async fn transformer_calculator_shows_parameters_and_refuses_bad_heads() {
    let host = host();
    let _handle = leptos::mount::mount_to(host.clone(), move || {
        widget_view("transformer", &[("model", "llama3-70b")])
    });
    tick().await;
    assert_eq!(text_of(&host, "[data-total-params]"), "70.6B");
    let split = text_of(&host, "[data-split]");
    set_input(&slider(&host), "300");
    tick().await;
    assert_ne!(
        split,
        text_of(&host, "[data-split]"),
        "the split did not follow T"
    );
    let k: HtmlInputElement = host
        .query_selector("input.dim-k")
        .unwrap()
        .unwrap()
        .unchecked_into();
    k.set_value("7");
    k.dispatch_event(&Event::new("change").unwrap()).unwrap();
    tick().await;
    let notice = host.query_selector("[data-notice]").unwrap().unwrap();
    assert!(!notice.has_attribute("hidden"));
    assert!(notice.text_content().unwrap().contains("divide"));
    assert_eq!(text_of(&host, "[data-total-params]"), "70.6B");
}

#[wasm_bindgen_test]
async fn training_planner_defaults_to_the_books_run() {
    let host = host();
    let _handle =
        leptos::mount::mount_to(host.clone(), move || widget_view("training-planner", &[]));
    tick().await;
    assert_eq!(text_of(&host, "[data-days]"), "44.7");
    assert_eq!(verdict(&host), "compute-bound");
    let pods: HtmlInputElement = host
        .query_selector("input.in-pods")
        .unwrap()
        .unwrap()
        .unchecked_into();
    pods.set_value("0");
    pods.dispatch_event(&Event::new("change").unwrap()).unwrap();
    tick().await;
    assert!(!host
        .query_selector("[data-notice]")
        .unwrap()
        .unwrap()
        .has_attribute("hidden"));
    assert_eq!(text_of(&host, "[data-days]"), "44.7");
}

async fn answer(host: &HtmlElement, id: &str, text: &str) -> (String, String) {
    let card = host
        .query_selector(&format!("[data-exercise='{id}']"))
        .unwrap()
        .expect("the exercise card");
    let input: HtmlInputElement = card
        .query_selector("input.answer")
        .unwrap()
        .unwrap()
        .unchecked_into();
    set_input(&input, text);
    tick().await;
    let button: HtmlElement = card
        .query_selector("button.check")
        .unwrap()
        .unwrap()
        .unchecked_into();
    button.click();
    tick().await;
    let verdict = card
        .query_selector("[data-verdict]")
        .unwrap()
        .expect("a verdict after checking");
    let line = card
        .query_selector(".exercise-verdict")
        .unwrap()
        .unwrap()
        .text_content()
        .unwrap();
    (verdict.get_attribute("data-verdict").unwrap(), line)
}

#[wasm_bindgen_test]
async fn an_exercise_grades_right_wrong_and_unreadable_answers() {
    let host = host();
    let _handle = leptos::mount::mount_to(host.clone(), move || {
        widget_view("exercise", &[("id", "ch1-q2")])
    });
    tick().await;
    let card = host
        .query_selector("[data-exercise='ch1-q2']")
        .unwrap()
        .expect("card");
    assert!(
        card.query_selector("[data-verdict]").unwrap().is_none(),
        "no verdict before checking"
    );
    let (v, _) = answer(&host, "ch1-q2", "120").await;
    assert_eq!(v, "correct");
    let (v, line) = answer(&host, "ch1-q2", "240 tokens").await;
    assert_eq!(v, "incorrect");
    assert!(line.contains('2'), "no off-by-two diagnosis: {line}");
    let (v, line) = answer(&host, "ch1-q2", "banana").await;
    assert_eq!(v, "invalid");
    assert!(line.len() > 20, "no reason given: {line}");
    // Units are converted: a time answer given in µs.
    let host2 = self::host();
    let _h2 = leptos::mount::mount_to(host2.clone(), move || {
        widget_view("exercise", &[("id", "ch1-ex1a")])
    });
    tick().await;
    let (v, _) = answer(&host2, "ch1-ex1a", "1011 us").await;
    assert_eq!(v, "correct");
}

fn component_verdict(host: &HtmlElement, component: &str) -> String {
    host.query_selector(&format!("[data-component={component}][data-verdict]"))
        .unwrap()
        .expect("a component verdict")
        .text_content()
        .unwrap()
}

#[wasm_bindgen_test]
async fn inference_roofline_batch_flips_the_mlp_but_not_attention() {
    let host = host();
    let args: Vec<(&str, &str)> = vec![("model", "llama3-70b"), ("chip", "v5e"), ("b", "16")];
    let _handle = leptos::mount::mount_to(host.clone(), move || {
        widget_view("inference-roofline", &args)
    });
    tick().await;
    assert_eq!(component_verdict(&host, "linear"), "memory-bound");
    assert_eq!(component_verdict(&host, "attention"), "memory-bound");
    assert!(layer_svg(&host, ".plot .layer:not(.overlay)").contains("arithmetic intensity"));
    let before = layer_svg(&host, ".layer.overlay");
    let batch: HtmlInputElement = host
        .query_selector("input.batch")
        .unwrap()
        .unwrap()
        .unchecked_into();
    set_input(&batch, "280");
    tick().await;
    assert_eq!(component_verdict(&host, "linear"), "compute-bound");
    assert_eq!(component_verdict(&host, "attention"), "memory-bound");
    assert_ne!(
        before,
        layer_svg(&host, ".layer.overlay"),
        "the points did not move"
    );
}

#[wasm_bindgen_test]
async fn serving_refuses_a_model_that_does_not_fit() {
    let host = host();
    let args: Vec<(&str, &str)> = vec![("chips", "1"), ("dtype", "bf16")];
    let _handle = leptos::mount::mount_to(host.clone(), move || widget_view("serving", &args));
    tick().await;
    let notice = host.query_selector("[data-notice]").unwrap().unwrap();
    assert!(!notice.has_attribute("hidden"), "no notice shown");
    assert!(
        notice.text_content().unwrap().contains("weights alone"),
        "{:?}",
        notice.text_content()
    );
    // The last valid configuration (the default slice) is still plotted.
    let before = layer_svg(&host, ".layer.pareto");
    assert!(
        before.contains("throughput (tokens/s per chip)"),
        "{before}"
    );
    assert!(layer_svg(&host, ".layer.breakdown").contains("batch (sequences)"));
    let seq: HtmlInputElement = host
        .query_selector("input.seq")
        .unwrap()
        .unwrap()
        .unchecked_into();
    set_input(&seq, "240");
    tick().await;
    assert_ne!(before, layer_svg(&host, ".layer.pareto"));
}

#[wasm_bindgen_test]
async fn gpu_widget_prices_cross_node_collectives_above_in_node_ones() {
    let host = host();
    let args: Vec<(&str, &str)> = vec![("gpu", "h100"), ("gpus", "1024")];
    let _handle = leptos::mount::mount_to(host.clone(), move || widget_view("gpu", &args));
    tick().await;
    let secs = |scope: &str| -> f64 {
        host.query_selector(&format!("[data-scope={scope}]"))
            .unwrap()
            .unwrap()
            .get_attribute("data-seconds")
            .unwrap()
            .parse()
            .unwrap()
    };
    assert!(secs("network") > secs("node"));
    assert!(text_of(&host, "[data-facts]").contains("128 nodes"));
}

#[wasm_bindgen_test]
async fn profile_reveals_the_bottleneck_after_an_answer_and_follows_batch_and_overlap() {
    let host = host();
    let _handle = leptos::mount::mount_to(host.clone(), move || widget_view("profile", &[]));
    tick().await;
    assert!(host
        .query_selector("[data-widget=profile]")
        .unwrap()
        .is_some());
    // No verdict until the reader answers.
    assert!(host.query_selector("[data-verdict]").unwrap().is_none());
    let el = |sel: &str| -> HtmlElement {
        host.query_selector(sel)
            .unwrap()
            .unwrap_or_else(|| panic!("{sel} missing"))
            .unchecked_into()
    };
    el("input[type=radio][value=compute]").click();
    tick().await;
    el("button.reveal").click();
    tick().await;
    assert_eq!(verdict(&host), "communication-bound");
    assert_eq!(
        el("[data-answer-result]").get_attribute("data-answer-result"),
        Some("wrong".into())
    );
    // Past the boundary (850 tokens per chip on 4096 chips) the revealed verdict follows.
    let batch: HtmlInputElement = el("input.batch-text").unchecked_into();
    batch.set_value("8388608");
    batch
        .dispatch_event(&Event::new("change").unwrap())
        .unwrap();
    tick().await;
    assert_eq!(verdict(&host), "compute-bound");
    assert_eq!(
        el("[data-answer-result]").get_attribute("data-answer-result"),
        Some("right".into())
    );
    // Back below it with the slider.
    set_input(&slider(&host), "0");
    tick().await;
    assert_eq!(verdict(&host), "communication-bound");
    // Toggling overlap changes the step time and the trace.
    let step = text_of(&host, "[data-step-time]");
    assert!(step.contains("with overlap"), "{step}");
    let pixels = layer_svg(&host, ".plot .layer");
    assert!(pixels.contains("time in the step"), "{pixels}");
    el("input.overlap").click();
    tick().await;
    let after = text_of(&host, "[data-step-time]");
    assert!(after.contains("without overlap"), "{after}");
    assert_ne!(step, after);
    assert_ne!(pixels, layer_svg(&host, ".plot .layer"));
    // Bad input: a notice, and the last valid state stays.
    batch.set_value("lots");
    batch
        .dispatch_event(&Event::new("change").unwrap())
        .unwrap();
    tick().await;
    assert!(!el("[data-notice]").hidden());
    assert_eq!(text_of(&host, "[data-step-time]"), after);
    assert_eq!(verdict(&host), "communication-bound");
}
