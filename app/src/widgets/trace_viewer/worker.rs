//! Reading a trace off the page's thread. The library bundle that carries
//! the trace viewer is also the worker's code: the page starts a module
//! worker on the bundle's boot module (`<meta name="ridgeline-library">`)
//! when the reader first opens a trace, and [`crate::islands::start`], finding
//! no window there, calls [`serve`] instead of mounting islands. The worker
//! takes the `File` itself (no copy on the page), reads and summarises it
//! with [`capture::reply`], and posts back the summary as JSON text.
//!
//! The page keeps one worker ([`Reader`]): a file chosen while another is
//! being read stops that worker and starts a fresh one, so the newest file
//! always wins. A page where no worker can start (no module workers, or the
//! worker fails to load or dies) reads the file on its own thread, as it
//! would without this module, and says so.

use std::cell::RefCell;
use std::rc::Rc;

use ridgeline_core::profiling::capture;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};

/// What the worker posts once it takes files.
const READY: &str = "ready";

/// In the worker: answers each `File` (or `Blob`) posted to it with
/// [`capture::reply`]'s text, or an empty text if the file could not be read,
/// after posting `"ready"` once.
pub fn serve() {
    let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let to_page = scope.clone();
    let on_message =
        Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |ev: web_sys::MessageEvent| {
            let to_page = to_page.clone();
            let blob: Option<web_sys::Blob> = ev.data().dyn_into().ok();
            wasm_bindgen_futures::spawn_local(async move {
                let bytes = match blob {
                    Some(b) => wasm_bindgen_futures::JsFuture::from(b.array_buffer())
                        .await
                        .ok()
                        .map(|buffer| js_sys::Uint8Array::new(&buffer).to_vec()),
                    None => None,
                };
                let reply = bytes.map(|b| capture::reply(&b)).unwrap_or_default();
                let _ = to_page.post_message(&JsValue::from_str(&reply));
            });
        });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The worker lives as long as its scope; so does its handler.
    on_message.forget();
    let _ = scope.post_message(&JsValue::from_str(READY));
}

/// How a file was read.
pub enum Outcome {
    /// The worker's reply: [`capture::from_reply`] reads it (empty when the
    /// worker could not read the file).
    Reply(String),
    /// No worker could read it: the file back, with the reason, to be read
    /// on the page's thread.
    Here(web_sys::File, String),
}

/// What to do with a file's outcome.
type Done = Box<dyn FnOnce(Outcome)>;

/// The page's side: at most one worker, started with the first file.
#[derive(Clone, Default)]
pub struct Reader(Rc<RefCell<State>>);

#[derive(Default)]
struct State {
    /// The worker, if one runs.
    live: Option<Live>,
    /// How many workers were started (each one's handlers know its number).
    started: u32,
    /// Why no worker can run here, once one failed.
    failed: Option<String>,
    /// How many files were opened (see [`Reader::ticket`]).
    opened: u64,
}

struct Live {
    worker: web_sys::Worker,
    /// Its number in [`State::started`].
    id: u32,
    /// Whether it said [`READY`].
    ready: bool,
    /// The file it reads (or will, once ready), whether it was posted, and
    /// what to do with the reply.
    job: Option<(web_sys::File, bool, Done)>,
}

impl Reader {
    /// A number for a file being opened, newer than every one before.
    pub fn ticket(&self) -> u64 {
        let mut state = self.0.borrow_mut();
        state.opened += 1;
        state.opened
    }

    /// Whether `ticket` is the newest file's, so that a file read on the
    /// page's thread after a newer one was chosen is not shown over it.
    pub fn is_latest(&self, ticket: u64) -> bool {
        self.0.borrow().opened == ticket
    }

    /// Reads `file` in the worker and hands `done` the outcome. A file still
    /// being read is dropped (its `done` is never called).
    pub fn read(&self, file: web_sys::File, done: impl FnOnce(Outcome) + 'static) {
        let mut state = self.0.borrow_mut();
        if let Some(why) = state.failed.clone() {
            drop(state);
            done(Outcome::Here(file, why));
            return;
        }
        if let Some(busy) = state.live.take_if(|l| l.job.is_some()) {
            busy.worker.terminate();
        }
        if state.live.is_none() {
            state.started += 1;
            match start(&self.0, state.started) {
                Ok(live) => state.live = Some(live),
                Err(why) => {
                    state.failed = Some(why.clone());
                    drop(state);
                    done(Outcome::Here(file, why));
                    return;
                }
            }
        }
        if let Some(live) = state.live.as_mut() {
            let posted = live.ready && live.worker.post_message(&file).is_ok();
            live.job = Some((file, posted, Box::new(done)));
        }
    }
}

/// Starts worker number `id` on the library bundle's boot module.
fn start(state: &Rc<RefCell<State>>, id: u32) -> Result<Live, String> {
    let url = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| {
            d.query_selector("meta[name=ridgeline-library]")
                .ok()
                .flatten()
        })
        .and_then(|m| m.get_attribute("content"))
        .ok_or_else(|| "this page names no reader bundle".to_string())?;
    let options = web_sys::WorkerOptions::new();
    options.set_type(web_sys::WorkerType::Module);
    let worker = web_sys::Worker::new_with_options(&url, &options)
        .map_err(|_| "this browser cannot start a module worker".to_string())?;
    let on_message = {
        let state = state.clone();
        Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |ev: web_sys::MessageEvent| {
            let text = ev.data().as_string().unwrap_or_default();
            let mut s = state.borrow_mut();
            let Some(live) = s.live.as_mut().filter(|l| l.id == id) else {
                return;
            };
            if text == READY {
                live.ready = true;
                if let Some((file, posted, _)) = live.job.as_mut() {
                    *posted = live.worker.post_message(file).is_ok();
                }
                return;
            }
            let job = live.job.take();
            drop(s);
            if let Some((_, _, done)) = job {
                done(Outcome::Reply(text));
            }
        })
    };
    let on_error = {
        let state = state.clone();
        Closure::<dyn FnMut(web_sys::Event)>::new(move |ev: web_sys::Event| {
            ev.prevent_default();
            let mut s = state.borrow_mut();
            let Some(live) = s.live.take_if(|l| l.id == id) else {
                return;
            };
            let why = "the background reader stopped".to_string();
            s.failed = Some(why.clone());
            drop(s);
            live.worker.terminate();
            if let Some((file, _, done)) = live.job {
                done(Outcome::Here(file, why));
            }
        })
    };
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    // The handlers go with the worker: a worker is started once, or again
    // only when a newer file stops one, so the few kept are cheap.
    on_message.forget();
    on_error.forget();
    Ok(Live {
        worker,
        id,
        ready: false,
        job: None,
    })
}
