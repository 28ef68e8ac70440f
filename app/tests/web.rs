//! Component tests in headless Chromium (`cargo test -p ridgeline-app --target
//! wasm32-unknown-unknown`): mount a widget, drive its controls as a reader
//! would, and check what the reader would see.

#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use leptos::prelude::*;
use ridgeline_app::widgets::{widget_view, NAMES};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;
use web_sys::{Event, HtmlCanvasElement, HtmlElement, HtmlInputElement};

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

fn canvas_pixels(host: &HtmlElement, selector: &str) -> Vec<u8> {
    let canvas: HtmlCanvasElement = host
        .query_selector(selector)
        .unwrap()
        .unwrap()
        .unchecked_into();
    let ctx: web_sys::CanvasRenderingContext2d =
        canvas.get_context("2d").unwrap().unwrap().unchecked_into();
    ctx.get_image_data(0.0, 0.0, canvas.width() as f64, canvas.height() as f64)
        .unwrap()
        .data()
        .to_vec()
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
    let before = canvas_pixels(&host, "canvas.overlay");
    assert!(before.iter().any(|&b| b != 0), "the point layer is blank");

    // Slide to the far right: B = 2^20 tokens, far past the ridge.
    let s = slider(&host);
    set_input(&s, "400");
    tick().await;
    assert_eq!(verdict(&host), "compute-bound");
    let after = canvas_pixels(&host, "canvas.overlay");
    assert_ne!(before, after, "the point did not move");

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
