//! A serving engine as a discrete-event simulation (Part 7, "Designing an
//! Effective Inference Engine"): requests arrive with a prompt and an output
//! length, are prefilled, and are then decoded one token per step with
//! continuous batching, either on the same chips (*interleaved*: a prefill
//! pauses every sequence decoding on that replica) or on separate pools
//! (*disaggregated*: prefill servers hand each KV cache over the network to a
//! generate server). Prompts may start with shared prefixes (a system prompt,
//! then a conversation's history) that a prefix cache, an LRU trie of KV
//! caches, lets prefill skip.
//!
//! Nothing is timed by hand: each prefill lasts the larger of
//! `2·P·tokens / (chips·C·MFU)` and one load of the weights
//! ([`crate::inference::prefill_time`]), each decode step lasts the book's
//! general step time `B·KV/W + max(2·B·P/C, P_bytes/W)` with the KV bytes the
//! batch actually holds ([`crate::inference::decode_step`]), and a KV handover
//! takes its bytes over the chip's data-centre network. The simulation is
//! deterministic for a seed, so a widget can replay it and a test can pin it.
//!
//! ```
//! use ridgeline_core::inference::serving_engine::{simulate, SimParams};
//!
//! let mut p = SimParams::default();
//! p.requests = 300;
//! let r = simulate(&p).unwrap();
//! assert_eq!(r.completed, 300);
//! assert!(r.ttft.p95 >= r.ttft.p50 && r.itl.p95 >= r.itl.p50);
//! assert_eq!(r, simulate(&p).unwrap()); // the same seed gives the same run
//! ```

use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};

use crate::hardware::{chip, Chip, Link};
use crate::inference::{
    decode_step, prefill_time, DecodeWorkload, Precision, ServingModel, ServingSlice,
};
use crate::rng::Rng;
use crate::units::{Bytes, BytesPerSec, Seconds};

/// The most requests one simulation may hold.
pub const MAX_REQUESTS: u32 = 200_000;
/// The most replicas in one pool.
pub const MAX_REPLICAS: u64 = 64;
/// The most distinct system prompts or conversations per system prompt.
pub const MAX_PREFIXES: u32 = 64;
/// Samples kept of KV-cache occupancy over time.
pub const OCCUPANCY_SAMPLES: usize = 240;
/// The timeline window lasts this many full-batch decode steps.
pub const TIMELINE_STEPS: f64 = 48.0;
/// The most spans the timeline keeps.
pub const MAX_SPANS: usize = 4000;

/// Where prefill runs (Part 7's interleaved against disaggregated serving):
/// on the generate replicas, or on a pool of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrefillPlacement {
    /// Prefill and decode share each replica; a prefill pauses its decode batch.
    Interleaved,
    /// Prefill servers and generate servers are separate pools.
    Disaggregated,
}

impl PrefillPlacement {
    /// The URL/picker name.
    pub fn name(self) -> &'static str {
        match self {
            PrefillPlacement::Interleaved => "interleaved",
            PrefillPlacement::Disaggregated => "disaggregated",
        }
    }

    /// Parses [`PrefillPlacement::name`].
    pub fn parse(text: &str) -> Option<PrefillPlacement> {
        match text.trim() {
            "interleaved" => Some(PrefillPlacement::Interleaved),
            "disaggregated" => Some(PrefillPlacement::Disaggregated),
            _ => None,
        }
    }
}

/// How a generate replica fills its decode slots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Batching {
    /// A slot is refilled the moment its sequence finishes.
    Continuous,
    /// A batch is admitted only when the previous one has finished entirely
    /// (interleaved: prefills run only while the replica's batch is empty).
    Static,
}

impl Batching {
    /// The URL/picker name.
    pub fn name(self) -> &'static str {
        match self {
            Batching::Continuous => "continuous",
            Batching::Static => "static",
        }
    }

    /// Parses [`Batching::name`].
    pub fn parse(text: &str) -> Option<Batching> {
        match text.trim() {
            "continuous" => Some(Batching::Continuous),
            "static" => Some(Batching::Static),
            _ => None,
        }
    }
}

/// Everything a serving simulation depends on.
#[derive(Debug, Clone, PartialEq)]
pub struct SimParams {
    /// Model preset id (see [`crate::model::config`]).
    pub model: String,
    /// Chip id (see [`crate::hardware`]).
    pub chip: String,
    /// Formats of weights, KV caches and matmuls.
    pub precision: Precision,
    /// Interleaved or disaggregated.
    pub layout: PrefillPlacement,
    /// Continuous or static batching.
    pub batching: Batching,
    /// Chips per generate replica (its tensor-parallel degree); in the
    /// interleaved layout, chips per replica.
    pub decode_tp: u64,
    /// Generate replicas (interleaved: replicas).
    pub decode_replicas: u64,
    /// Chips per prefill replica (disaggregated only).
    pub prefill_tp: u64,
    /// Prefill replicas (disaggregated only).
    pub prefill_replicas: u64,
    /// Decode slots per replica: the largest decode batch.
    pub max_batch: u64,
    /// Requests simulated.
    pub requests: u32,
    /// Mean arrival rate, requests per second (Poisson arrivals).
    pub arrival_rate: f64,
    /// Distinct system prompts (0: prompts share no system prompt).
    pub system_prompts: u32,
    /// Tokens of each system prompt.
    pub system_len: u32,
    /// Distinct conversations under each system prompt (0: no history).
    pub conversations: u32,
    /// Tokens of a conversation's history.
    pub history_len: u32,
    /// Shortest new user turn, tokens.
    pub user_min: u32,
    /// Longest new user turn, tokens.
    pub user_max: u32,
    /// Fewest generated tokens per request.
    pub output_min: u32,
    /// Most generated tokens per request.
    pub output_max: u32,
    /// Tokens of KV cache the prefix cache may keep (0: no prefix caching).
    pub prefix_cache_tokens: u64,
    /// Prefill's model FLOPs utilisation, in (0, 1].
    pub prefill_mfu: f64,
    /// Seed of the arrival and length draws.
    pub seed: u64,
}

impl Default for SimParams {
    /// LLaMA 3-8B in bf16 on TPU v5e: two 4-chip prefill replicas feeding one
    /// 4-chip generate replica of 64 slots, chat-like prompts with shared system
    /// prompts and histories.
    fn default() -> SimParams {
        SimParams {
            model: "llama3-8b".into(),
            chip: "v5e".into(),
            precision: Precision::BF16,
            layout: PrefillPlacement::Disaggregated,
            batching: Batching::Continuous,
            decode_tp: 4,
            decode_replicas: 1,
            prefill_tp: 4,
            prefill_replicas: 1,
            max_batch: 64,
            requests: 2000,
            arrival_rate: 20.0,
            system_prompts: 4,
            system_len: 512,
            conversations: 16,
            history_len: 1024,
            user_min: 32,
            user_max: 256,
            output_min: 64,
            output_max: 512,
            prefix_cache_tokens: 200_000,
            prefill_mfu: 0.5,
            seed: 1,
        }
    }
}

/// A distribution's summary: median, 95th percentile and mean.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Percentiles {
    /// Median.
    pub p50: Seconds,
    /// 95th percentile.
    pub p95: Seconds,
    /// Mean.
    pub mean: Seconds,
}

/// KV-cache occupancy of the generate pool at one moment.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Occupancy {
    /// Simulated time.
    pub t: Seconds,
    /// Fraction of the pool's free HBM holding live KV entries (what paged
    /// attention allocates).
    pub used: f64,
    /// Fraction reserved if every slot in use holds a full-length cache (what a
    /// padded, unpaged cache allocates).
    pub reserved: f64,
}

/// What one replica of the engine is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Prefill and generate on the same chips (interleaved).
    Both,
    /// A prefill server (disaggregated).
    Prefill,
    /// A generate server (disaggregated).
    Decode,
}

/// One step of one replica: a prefill or a decode step, and when it ran.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EngineStep {
    /// Index of the replica in [`EngineWindow::lanes`].
    pub lane: u32,
    /// A prefill (true) or a decode step (false).
    pub prefill: bool,
    /// Start, from the first arrival.
    pub start: Seconds,
    /// Duration.
    pub duration: Seconds,
    /// Prompt tokens computed (prefill) or sequences in the batch (decode).
    pub size: u64,
}

/// What every replica did during a window in the middle of the run: the
/// figure of the engine's steps.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct EngineWindow {
    /// Start of the window, from the first arrival.
    pub from: Seconds,
    /// End of the window.
    pub to: Seconds,
    /// Each replica's role, in lane order (prefill pool first).
    pub lanes: Vec<Role>,
    /// Busy intervals that overlap the window, in the order they ended.
    pub spans: Vec<EngineStep>,
}

/// What a simulation produced.
#[derive(Debug, Clone, PartialEq)]
pub struct SimReport {
    /// Requests that finished (all of them).
    pub completed: u32,
    /// Prompt tokens over all requests.
    pub prompt_tokens: u64,
    /// Prompt tokens prefill actually computed (the rest came from the prefix cache).
    pub prefill_tokens: u64,
    /// Tokens generated (the first comes out of prefill).
    pub generated_tokens: u64,
    /// Time from the first arrival to the last token.
    pub makespan: Seconds,
    /// Time to first token.
    pub ttft: Percentiles,
    /// Inter-token latency: the gap between consecutive tokens of a request.
    pub itl: Percentiles,
    /// Chips in both pools.
    pub chips: u64,
    /// Generated tokens per second per chip over the whole run.
    pub tokens_per_sec_per_chip: f64,
    /// Decode tokens per second per generate chip over the decode steps that
    /// start in the middle 60 % of the run (the steady state).
    pub steady_decode_per_chip: f64,
    /// Mean decode batch over all decode steps.
    pub mean_batch: f64,
    /// Prompt tokens served from the prefix cache over all prompt tokens.
    pub prefix_hit_rate: f64,
    /// Requests whose prompt found at least one cached prefix.
    pub request_hit_rate: f64,
    /// Decode steps run, summed over replicas.
    pub decode_steps: u64,
    /// Mean KV handover time (disaggregated; zero when interleaved).
    pub mean_transfer: Seconds,
    /// Occupancy of the generate pool's KV space over time.
    pub occupancy: Vec<Occupancy>,
    /// Every replica's steps in a window of the run.
    pub timeline: EngineWindow,
}

fn field_err(field: &str, msg: impl std::fmt::Display) -> String {
    format!("{field}: {msg}")
}

fn count_in(field: &str, v: u64, lo: u64, hi: u64) -> Result<u64, String> {
    if v < lo || v > hi {
        Err(field_err(field, format!("{v} is outside {lo} to {hi}")))
    } else {
        Ok(v)
    }
}

/// The validated inputs with every constant the event loop needs.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// The model.
    pub model: ServingModel,
    /// The chip.
    pub chip: &'static Chip,
    /// One generate replica.
    pub decode: ServingSlice,
    /// One prefill replica (the generate replica again when interleaved).
    pub prefill: ServingSlice,
    /// KV bytes per token of context.
    pub kv_per_token: Bytes,
    /// The longest context a request reaches.
    pub max_context: u64,
    /// HBM for KV caches on one generate replica once the weights are in.
    pub kv_capacity: Bytes,
    /// Bandwidth a KV cache is handed over at.
    pub transfer_bw: BytesPerSec,
}

impl SimParams {
    /// Checks every field and resolves the model, chip and slices. Errors name
    /// the field: a model or chip id the registry lacks, counts out of range,
    /// lengths beyond the model's context, weights or slots that do not fit.
    pub fn resolve(&self) -> Result<Resolved, String> {
        let model = ServingModel::preset(&self.model).map_err(|e| field_err("model", e))?;
        let chip = chip(&self.chip)
            .ok_or_else(|| field_err("chip", format!("no chip {:?} in the registry", self.chip)))?;
        count_in("decode_tp", self.decode_tp, 1, 4096)?;
        count_in("decode_replicas", self.decode_replicas, 1, MAX_REPLICAS)?;
        if self.layout == PrefillPlacement::Disaggregated {
            count_in("prefill_tp", self.prefill_tp, 1, 4096)?;
            count_in("prefill_replicas", self.prefill_replicas, 1, MAX_REPLICAS)?;
        }
        count_in("max_batch", self.max_batch, 1, 4096)?;
        count_in("requests", self.requests as u64, 1, MAX_REQUESTS as u64)?;
        if !(self.arrival_rate.is_finite() && self.arrival_rate > 0.0 && self.arrival_rate <= 1e6) {
            return Err(field_err(
                "arrival_rate",
                format!("{} is not a rate in (0, 1e6] requests/s", self.arrival_rate),
            ));
        }
        count_in(
            "system_prompts",
            self.system_prompts as u64,
            0,
            MAX_PREFIXES as u64,
        )?;
        count_in(
            "conversations",
            self.conversations as u64,
            0,
            MAX_PREFIXES as u64,
        )?;
        count_in("user_min", self.user_min as u64, 1, 1 << 20)?;
        count_in(
            "user_max",
            self.user_max as u64,
            self.user_min as u64,
            1 << 20,
        )?;
        count_in("output_min", self.output_min as u64, 1, 1 << 20)?;
        count_in(
            "output_max",
            self.output_max as u64,
            self.output_min as u64,
            1 << 20,
        )?;
        if !crate::check::is_fraction(self.prefill_mfu) {
            return Err(field_err(
                "prefill_mfu",
                format!("{} is not a fraction in (0, 1]", self.prefill_mfu),
            ));
        }
        let sys = if self.system_prompts > 0 {
            self.system_len as u64
        } else {
            0
        };
        let hist = if self.conversations > 0 {
            self.history_len as u64
        } else {
            0
        };
        let max_context = sys + hist + self.user_max as u64 + self.output_max as u64;
        let limit = model.config.max_seq;
        if max_context > limit {
            return Err(field_err(
                "output_max",
                format!(
                    "prompts and outputs reach {max_context} tokens, beyond the model's {limit}-token context"
                ),
            ));
        }
        let slice =
            |tp: u64, field: &str| ServingSlice::new(chip, tp).map_err(|e| field_err(field, e));
        let decode = slice(self.decode_tp, "decode_tp")?;
        let prefill = match self.layout {
            PrefillPlacement::Interleaved => decode,
            PrefillPlacement::Disaggregated => slice(self.prefill_tp, "prefill_tp")?,
        };
        let p = self.precision;
        let weights = model.param_bytes(p.weights);
        let kv_per_token = model.kv_per_token(p.kv);
        let fits = |s: &ServingSlice, field: &str| -> Result<Bytes, String> {
            let free = s.hbm_capacity() - weights;
            if free.0 <= 0.0 {
                Err(field_err(
                    field,
                    format!(
                        "the weights take {} but {} hold {} (GB = 10^9 bytes)",
                        crate::format::decimal_bytes(weights.0),
                        crate::format::count(s.tp, "chip", "chips"),
                        crate::format::decimal_bytes(s.hbm_capacity().0)
                    ),
                ))
            } else {
                Ok(free)
            }
        };
        let free = fits(&decode, "decode_tp")?;
        let prefill_free = fits(&prefill, "prefill_tp")?;
        let slots = kv_per_token * (self.max_batch * max_context) as f64;
        let cache = kv_per_token * self.prefix_cache_tokens as f64;
        let (decode_need, prefill_need) = match self.layout {
            PrefillPlacement::Interleaved => (slots + cache, Bytes(0.0)),
            PrefillPlacement::Disaggregated => (slots, cache + kv_per_token * max_context as f64),
        };
        if decode_need > free {
            return Err(field_err(
                "max_batch",
                format!(
                    "{} sequences of up to {max_context} tokens (plus the prefix cache) need {} of KV cache but a replica has {} free",
                    self.max_batch,
                    crate::format::decimal_bytes(decode_need.0),
                    crate::format::decimal_bytes(free.0)
                ),
            ));
        }
        if prefill_need > prefill_free {
            return Err(field_err(
                "prefix_cache_tokens",
                format!(
                    "the prefix cache needs {} but a prefill replica has {} free",
                    crate::format::decimal_bytes(prefill_need.0),
                    crate::format::decimal_bytes(prefill_free.0)
                ),
            ));
        }
        let transfer_bw = chip
            .bandwidth(Link::Dcn)
            .or_else(|| chip.bandwidth(Link::ScaleOut))
            .or_else(|| chip.interconnect().map(|l| l.bandwidth))
            .ok_or_else(|| field_err("chip", "the registry gives it no network link"))?;
        Ok(Resolved {
            model,
            chip,
            decode,
            prefill,
            kv_per_token,
            max_context,
            kv_capacity: free,
            transfer_bw,
        })
    }
}

impl Resolved {
    /// One decode step of `batch` sequences holding `context` tokens in all.
    pub fn decode_time(&self, p: Precision, batch: u64, context: u64) -> Result<Seconds, String> {
        let b = batch as f64;
        let kv = self.kv_per_token * (context as f64 / b);
        let work = DecodeWorkload::new(
            b,
            self.model.active_params,
            self.model.param_bytes(p.weights),
            kv,
        )
        .map_err(|e| e.to_string())?;
        decode_step(&work, &self.decode, p.compute)
            .map(|s| s.total)
            .map_err(|e| e.to_string())
    }

    /// The decode step's three terms, precomputed so the event loop can take
    /// millions of steps: equal to [`Resolved::decode_time`] (a test checks it).
    pub fn step_cost(&self, p: Precision) -> Result<StepCost, String> {
        let w = self.decode.hbm_bandwidth();
        let c = self.decode.peak(p.compute).map_err(|e| e.to_string())?;
        Ok(StepCost {
            kv_per_token: (self.kv_per_token / w).0,
            flops_per_seq: 2.0 * self.model.active_params / c.0,
            weight_load: (self.model.param_bytes(p.weights) / w).0,
        })
    }

    /// Prefill of `tokens` new tokens: compute at `mfu`, never faster than one
    /// load of the weights.
    pub fn prefill_time(&self, p: Precision, tokens: u64, mfu: f64) -> Result<Seconds, String> {
        let compute = prefill_time(
            &self.model,
            tokens.max(1) as f64,
            &self.prefill,
            p.compute,
            mfu,
        )
        .map_err(|e| e.to_string())?;
        let load = self.model.param_bytes(p.weights) / self.prefill.hbm_bandwidth();
        Ok(if compute > load { compute } else { load })
    }
}

/// The analytic steady state of a full generate replica: the book's step time
/// at batch `max_batch` with every sequence halfway through its output
/// (context `prompt + output/2`), as decode tokens per second per chip.
pub fn analytic_decode_per_chip(
    params: &SimParams,
    prompt: f64,
    output: f64,
) -> Result<f64, String> {
    let r = params.resolve()?;
    let b = params.max_batch as f64;
    let t = r.decode_time(
        params.precision,
        params.max_batch,
        crate::check::whole((b * (prompt + output / 2.0)).round())
            .ok_or_else(|| "the tokens in flight are too many to count".to_string())?,
    )?;
    Ok(b / t.0 / params.decode_tp as f64)
}

/// The book's decode step time split into per-token, per-sequence and fixed
/// terms: `context·KV/W + max(B·2P/C, P_bytes/W)`, in seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepCost {
    /// Seconds to read one token of KV cache.
    pub kv_per_token: f64,
    /// Seconds of matmul FLOPs per sequence in the batch.
    pub flops_per_seq: f64,
    /// Seconds to load the weights once.
    pub weight_load: f64,
}

impl StepCost {
    /// One step of `batch` sequences holding `context` tokens in all.
    pub fn step(&self, batch: u64, context: u64) -> f64 {
        context as f64 * self.kv_per_token
            + (batch as f64 * self.flops_per_seq).max(self.weight_load)
    }
}

// ---------------------------------------------------------------- the prefix trie

/// A node of the prefix cache: one prompt segment (a system prompt or a
/// conversation's history) under its parent.
#[derive(Debug, Clone)]
struct Node {
    parent: usize,
    key: u32,
    tokens: u64,
    last_used: u64,
    children: Vec<usize>,
    alive: bool,
}

/// The KV prefix cache of Part 7's figure: an LRU trie of prompt segments whose
/// caches are kept, sharing common prefixes.
#[derive(Debug, Clone)]
pub struct PrefixTrie {
    nodes: Vec<Node>,
    capacity: u64,
    held: u64,
    tick: u64,
}

impl PrefixTrie {
    /// An empty cache holding at most `capacity` tokens.
    pub fn new(capacity: u64) -> PrefixTrie {
        PrefixTrie {
            nodes: vec![Node {
                parent: 0,
                key: 0,
                tokens: 0,
                last_used: 0,
                children: Vec::new(),
                alive: true,
            }],
            capacity,
            held: 0,
            tick: 0,
        }
    }

    /// Tokens currently cached.
    pub fn held(&self) -> u64 {
        self.held
    }

    /// The cached segments, parents before children: `(node, parent, key,
    /// tokens)`, node 0 being the empty root (never listed).
    pub fn segments(&self) -> Vec<(usize, usize, u32, u64)> {
        self.nodes
            .iter()
            .enumerate()
            .filter(|(i, n)| *i != 0 && n.alive)
            .map(|(i, n)| (i, n.parent, n.key, n.tokens))
            .collect()
    }

    fn child(&self, at: usize, key: u32) -> Option<usize> {
        self.nodes[at]
            .children
            .iter()
            .copied()
            .find(|&c| self.nodes[c].key == key)
    }

    /// Looks up a prompt made of `path` segments `(key, tokens)` and caches the
    /// segments it lacks, evicting least-recently used leaves. Returns the
    /// tokens found already cached (a prefix of the path).
    pub fn lookup_insert(&mut self, path: &[(u32, u64)]) -> u64 {
        self.tick += 1;
        let mut at = 0;
        let mut hit = 0;
        let mut missing = false;
        let mut on_path = vec![0usize];
        for &(key, tokens) in path {
            if tokens == 0 {
                continue;
            }
            match self.child(at, key) {
                Some(c) if !missing => {
                    hit += tokens;
                    at = c;
                }
                _ => {
                    missing = true;
                    if self.held + tokens > self.capacity {
                        self.evict(self.held + tokens - self.capacity, &on_path);
                    }
                    if self.held + tokens > self.capacity {
                        break;
                    }
                    let id = self.nodes.len();
                    self.nodes.push(Node {
                        parent: at,
                        key,
                        tokens,
                        last_used: self.tick,
                        children: Vec::new(),
                        alive: true,
                    });
                    self.nodes[at].children.push(id);
                    self.held += tokens;
                    at = id;
                }
            }
            self.nodes[at].last_used = self.tick;
            on_path.push(at);
        }
        hit
    }

    fn evict(&mut self, mut need: u64, keep: &[usize]) {
        while need > 0 {
            let victim = self
                .nodes
                .iter()
                .enumerate()
                .filter(|(i, n)| *i != 0 && n.alive && n.children.is_empty() && !keep.contains(i))
                .min_by_key(|(_, n)| n.last_used)
                .map(|(i, _)| i);
            let Some(v) = victim else { return };
            let parent = self.nodes[v].parent;
            self.nodes[parent].children.retain(|&c| c != v);
            self.nodes[v].alive = false;
            self.held -= self.nodes[v].tokens;
            need = need.saturating_sub(self.nodes[v].tokens);
        }
    }
}

// ---------------------------------------------------------------- the event loop

#[derive(Debug, Clone, Copy)]
struct Request {
    arrival: f64,
    system: Option<u32>,
    conversation: Option<u32>,
    user: u32,
    output: u32,
}

impl Request {
    fn prompt(&self, p: &SimParams) -> u64 {
        self.system.map_or(0, |_| p.system_len as u64)
            + self.conversation.map_or(0, |_| p.history_len as u64)
            + self.user as u64
    }
}

fn draw_requests(p: &SimParams) -> Vec<Request> {
    let mut rng = Rng::new(p.seed ^ 0x5EED_5EED_0000_0001);
    let mut unit = move || rng.open_unit();
    let mut t = 0.0;
    (0..p.requests)
        .map(|_| {
            t += -unit().ln() / p.arrival_rate;
            let pick = |u: f64, n: u32| {
                crate::check::whole::<u32>(u * f64::from(n))
                    .unwrap_or(0)
                    .min(n.saturating_sub(1))
            };
            let system = (p.system_prompts > 0).then(|| pick(unit(), p.system_prompts));
            let conversation = (p.conversations > 0).then(|| pick(unit(), p.conversations));
            let span = |lo: u32, hi: u32, u: f64| lo + pick(u, hi - lo + 1);
            let user = span(p.user_min, p.user_max, unit());
            let output = span(p.output_min, p.output_max, unit());
            Request {
                arrival: t,
                system,
                conversation,
                user,
                output,
            }
        })
        .collect()
}

#[derive(Debug, Clone, Copy)]
enum Busy {
    Idle,
    Prefill { id: u32, start: f64, tokens: u64 },
    Decode { tokens: u64, start: f64 },
}

#[derive(Debug, Clone, Copy)]
struct Seq {
    context: u64,
    left: u32,
    last: f64,
}

struct Server {
    role: Role,
    busy: Busy,
    active: Vec<Seq>,
    context: u64,
    // Static batching: the replica is admitting a new batch.
    filling: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Ready(u32),
    Free(u32),
}

struct Event {
    t: f64,
    seq: u64,
    kind: Kind,
}

impl PartialEq for Event {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl Eq for Event {}
impl PartialOrd for Event {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Event {
    // Reversed, so that the max-heap pops the earliest event (ties: first scheduled).
    fn cmp(&self, o: &Self) -> Ordering {
        o.t.total_cmp(&self.t).then(o.seq.cmp(&self.seq))
    }
}

/// Inter-token gaps in log-spaced bins (0.5 % wide): percentiles within that
/// precision without keeping millions of samples.
struct LogHistogram {
    bins: Vec<u64>,
    count: u64,
    sum: f64,
}

const HIST_LO: f64 = 1e-7;
const HIST_STEP: f64 = 0.005;

impl LogHistogram {
    fn new() -> LogHistogram {
        LogHistogram {
            bins: vec![0; 5200],
            count: 0,
            sum: 0.0,
        }
    }

    fn add(&mut self, x: f64, n: u64) {
        // Past the last bin (or not a number): the last bin.
        let i = crate::check::whole((x.max(HIST_LO) / HIST_LO).ln() / HIST_STEP.ln_1p())
            .unwrap_or(usize::MAX);
        let last = self.bins.len() - 1;
        self.bins[i.min(last)] += n;
        self.count += n;
        self.sum += x * n as f64;
    }

    fn quantile(&self, q: f64) -> f64 {
        let target = crate::check::whole((q * self.count as f64).ceil().max(1.0)).unwrap_or(1);
        let mut seen = 0;
        for (i, &n) in self.bins.iter().enumerate() {
            seen += n;
            if seen >= target {
                return HIST_LO * ((i as f64 + 0.5) * HIST_STEP.ln_1p()).exp();
            }
        }
        0.0
    }

    fn summary(&self) -> Percentiles {
        if self.count == 0 {
            return Percentiles::default();
        }
        Percentiles {
            p50: Seconds(self.quantile(0.5)),
            p95: Seconds(self.quantile(0.95)),
            mean: Seconds(self.sum / self.count as f64),
        }
    }
}

fn exact(mut xs: Vec<f64>) -> Percentiles {
    if xs.is_empty() {
        return Percentiles::default();
    }
    xs.sort_by(f64::total_cmp);
    let at = |q: f64| {
        let rank = crate::check::whole((q * xs.len() as f64).ceil()).unwrap_or(xs.len());
        xs[rank.clamp(1, xs.len()) - 1]
    };
    Percentiles {
        p50: Seconds(at(0.5)),
        p95: Seconds(at(0.95)),
        mean: Seconds(xs.iter().sum::<f64>() / xs.len() as f64),
    }
}

struct Engine<'a> {
    p: &'a SimParams,
    r: Resolved,
    cost: StepCost,
    reqs: Vec<Request>,
    servers: Vec<Server>,
    events: BinaryHeap<Event>,
    seq: u64,
    prefill_q: VecDeque<u32>,
    decode_q: VecDeque<u32>,
    trie: PrefixTrie,
    ttft: Vec<f64>,
    first: Vec<f64>,
    itl: LogHistogram,
    prefill_tokens: u64,
    generated: u64,
    completed: u32,
    hits: u32,
    decode_steps: u64,
    batch_sum: u64,
    transfer_sum: f64,
    transfers: u64,
    steps: Vec<(f64, f64, u64)>,
    trace: Vec<(f64, u64, u64)>,
    next_record: f64,
    record_every: f64,
    last_t: f64,
    window: (f64, f64),
    spans: Vec<EngineStep>,
}

impl Engine<'_> {
    fn push(&mut self, t: f64, kind: Kind) {
        self.seq += 1;
        self.events.push(Event {
            t,
            seq: self.seq,
            kind,
        });
    }

    fn path(&self, req: &Request) -> [(u32, u64); 2] {
        let sys = req.system.map_or((0, 0), |s| (s, self.p.system_len as u64));
        let conv = req
            .conversation
            .map_or((0, 0), |c| (c, self.p.history_len as u64));
        [sys, conv]
    }

    fn start(&mut self, s: usize, now: f64) -> Result<(), String> {
        let role = self.servers[s].role;
        let stat = self.p.batching == Batching::Static;
        if self.servers[s].active.is_empty() {
            self.servers[s].filling = true;
        }
        if role == Role::Decode && (!stat || self.servers[s].active.is_empty()) {
            while slots_free(&self.servers[s], self.p.max_batch) {
                let Some(id) = self.decode_q.pop_front() else {
                    break;
                };
                let req = self.reqs[id as usize];
                let server = &mut self.servers[s];
                let context = req.prompt(self.p) + 1;
                server.context += context;
                server.active.push(Seq {
                    context,
                    left: req.output - 1,
                    last: self.first[id as usize],
                });
            }
        }
        let can_prefill = role == Role::Prefill
            || (role == Role::Both
                && slots_free(&self.servers[s], self.p.max_batch)
                && (!stat || self.servers[s].filling));
        if can_prefill {
            if let Some(id) = self.prefill_q.pop_front() {
                let req = self.reqs[id as usize];
                let prompt = req.prompt(self.p);
                let cached = if self.p.prefix_cache_tokens > 0 {
                    let path = self.path(&req);
                    self.trie.lookup_insert(&path)
                } else {
                    0
                };
                if cached > 0 {
                    self.hits += 1;
                }
                let computed = (prompt - cached.min(prompt)).max(1);
                self.prefill_tokens += computed;
                let d = self
                    .r
                    .prefill_time(self.p.precision, computed, self.p.prefill_mfu)?;
                self.servers[s].busy = Busy::Prefill {
                    id,
                    start: now,
                    tokens: computed,
                };
                self.push(now + d.0, Kind::Free(server_id(s)));
                return Ok(());
            }
        }
        if role != Role::Prefill && !self.servers[s].active.is_empty() {
            let server = &self.servers[s];
            let b = server.active.len() as u64;
            let d = self.cost.step(b, server.context);
            self.servers[s].busy = Busy::Decode {
                tokens: b,
                start: now,
            };
            self.servers[s].filling = false;
            self.push(now + d, Kind::Free(server_id(s)));
            return Ok(());
        }
        self.servers[s].busy = Busy::Idle;
        Ok(())
    }

    fn transfer_time(&self, req: &Request) -> f64 {
        if self.p.layout == PrefillPlacement::Interleaved {
            return 0.0;
        }
        (self.r.kv_per_token * req.prompt(self.p) as f64 / self.r.transfer_bw).0
    }

    fn wake(&mut self, role: Role, now: f64) -> Result<(), String> {
        for s in 0..self.servers.len() {
            let r = self.servers[s].role;
            if matches!(self.servers[s].busy, Busy::Idle) && (r == role || r == Role::Both) {
                self.start(s, now)?;
            }
        }
        Ok(())
    }

    fn record(&mut self, now: f64) {
        // A few samples per output sample are enough for the occupancy plot.
        if now < self.next_record {
            return;
        }
        self.next_record = now + self.record_every;
        let (mut used, mut held) = (0, 0);
        for s in &self.servers {
            if s.role != Role::Prefill {
                used += s.context;
                held += s.active.len() as u64;
            }
        }
        self.trace.push((now, used, held));
    }

    fn keep_span(&mut self, s: usize, prefill: bool, start: f64, now: f64, size: u64) {
        let (from, to) = self.window;
        if now > from && start < to && self.spans.len() < MAX_SPANS {
            self.spans.push(EngineStep {
                lane: server_id(s),
                prefill,
                start: Seconds(start),
                duration: Seconds(now - start),
                size,
            });
        }
    }

    fn finish(&mut self, s: usize, now: f64) -> Result<(), String> {
        self.last_t = self.last_t.max(now);
        match self.servers[s].busy {
            Busy::Idle => {}
            Busy::Prefill { id, start, tokens } => {
                self.keep_span(s, true, start, now, tokens);
                let req = self.reqs[id as usize];
                self.ttft.push(now - req.arrival);
                self.first[id as usize] = now;
                self.generated += 1;
                if req.output == 1 {
                    self.completed += 1;
                } else if self.servers[s].role == Role::Both {
                    let context = req.prompt(self.p) + 1;
                    let server = &mut self.servers[s];
                    server.context += context;
                    server.active.push(Seq {
                        context,
                        left: req.output - 1,
                        last: now,
                    });
                } else {
                    let d = self.transfer_time(&req);
                    self.transfer_sum += d;
                    self.transfers += 1;
                    self.push(now + d, Kind::Ready(id));
                }
            }
            Busy::Decode { tokens, start } => {
                self.keep_span(s, false, start, now, tokens);
                self.decode_steps += 1;
                self.batch_sum += tokens;
                self.steps.push((start, now - start, tokens));
                let server = &mut self.servers[s];
                // Every sequence in the batch gains one token of context.
                server.context += server.active.len() as u64;
                let mut i = 0;
                let mut done = 0;
                // Sequences that produced their last token together share one
                // gap: count runs rather than binning every token separately.
                let mut run = (f64::NAN, 0u64);
                while i < server.active.len() {
                    let q = &mut server.active[i];
                    let gap = now - q.last;
                    if gap == run.0 {
                        run.1 += 1;
                    } else {
                        if run.1 > 0 {
                            self.itl.add(run.0, run.1);
                        }
                        run = (gap, 1);
                    }
                    q.last = now;
                    q.context += 1;
                    q.left -= 1;
                    if q.left == 0 {
                        server.context -= q.context;
                        server.active.swap_remove(i);
                        done += 1;
                    } else {
                        i += 1;
                    }
                }
                if run.1 > 0 {
                    self.itl.add(run.0, run.1);
                }
                self.generated += tokens;
                self.completed += done;
            }
        }
        self.start(s, now)?;
        if self.servers[s].role != Role::Prefill {
            self.record(now);
        }
        Ok(())
    }
}

fn slots_free(s: &Server, max: u64) -> bool {
    (s.active.len() as u64) < max
}

/// Runs the simulation: every request arrives, is prefilled (through the prefix
/// cache), handed over if disaggregated, and decoded to its output length.
pub fn simulate(params: &SimParams) -> Result<SimReport, String> {
    let r = params.resolve()?;
    let reqs = draw_requests(params);
    let mut servers = Vec::new();
    let server = |role| Server {
        role,
        busy: Busy::Idle,
        active: Vec::new(),
        context: 0,
        filling: true,
    };
    match params.layout {
        PrefillPlacement::Interleaved => {
            for _ in 0..params.decode_replicas {
                servers.push(server(Role::Both));
            }
        }
        PrefillPlacement::Disaggregated => {
            for _ in 0..params.prefill_replicas {
                servers.push(server(Role::Prefill));
            }
            for _ in 0..params.decode_replicas {
                servers.push(server(Role::Decode));
            }
        }
    }
    let chips = match params.layout {
        PrefillPlacement::Interleaved => params.decode_replicas * params.decode_tp,
        PrefillPlacement::Disaggregated => {
            params.decode_replicas * params.decode_tp + params.prefill_replicas * params.prefill_tp
        }
    };
    let kv_capacity_tokens = r.kv_capacity / r.kv_per_token * params.decode_replicas as f64;
    let max_context = r.max_context;
    let n = reqs.len();
    // The timeline's window starts halfway through the arrivals and lasts
    // TIMELINE_STEPS decode steps of a full batch at half the longest context.
    let cost = r.step_cost(params.precision)?;
    let arrivals = reqs.last().map_or(0.0, |q| q.arrival);
    let full = cost.step(params.max_batch, params.max_batch * max_context / 2);
    let window = (arrivals / 2.0, arrivals / 2.0 + TIMELINE_STEPS * full);
    let mut e = Engine {
        p: params,
        cost,
        r,
        reqs,
        servers,
        events: BinaryHeap::with_capacity(2 * n),
        seq: 0,
        prefill_q: VecDeque::new(),
        decode_q: VecDeque::new(),
        trie: PrefixTrie::new(params.prefix_cache_tokens),
        ttft: Vec::with_capacity(n),
        first: vec![0.0; n],
        itl: LogHistogram::new(),
        prefill_tokens: 0,
        generated: 0,
        completed: 0,
        hits: 0,
        decode_steps: 0,
        batch_sum: 0,
        transfer_sum: 0.0,
        transfers: 0,
        steps: Vec::new(),
        trace: Vec::new(),
        next_record: 0.0,
        record_every: 0.0,
        last_t: 0.0,
        window,
        spans: Vec::new(),
    };
    // The run lasts at least until the last arrival.
    e.record_every = e.reqs.last().map_or(0.0, |q| q.arrival) / (8 * OCCUPANCY_SAMPLES) as f64;
    // Arrivals are already in time order, so they stay out of the heap: the
    // loop takes whichever comes first, an arrival (on ties) or an event.
    let mut next = 0;
    loop {
        let arrival = e.reqs.get(next).map(|q| q.arrival);
        let event = e.events.peek().map(|ev| ev.t);
        let ev = match (arrival, event) {
            (Some(a), Some(t)) if a <= t => None,
            (Some(_), None) => None,
            (_, Some(_)) => e.events.pop(),
            (None, None) => break,
        };
        let Some(ev) = ev else {
            let t = e.reqs[next].arrival;
            #[allow(clippy::cast_possible_truncation, reason = "below MAX_REQUESTS, a u32")]
            e.prefill_q.push_back(next as u32);
            next += 1;
            e.wake(Role::Prefill, t)?;
            continue;
        };
        match ev.kind {
            Kind::Ready(id) => {
                e.decode_q.push_back(id);
                e.wake(Role::Decode, ev.t)?;
            }
            Kind::Free(s) => e.finish(s as usize, ev.t)?,
        }
    }
    let first = e.reqs.first().map_or(0.0, |q| q.arrival);
    let makespan = (e.last_t - first).max(f64::MIN_POSITIVE);
    let prompt_tokens: u64 = e.reqs.iter().map(|q| q.prompt(params)).sum();
    let (lo, hi) = (first + 0.2 * makespan, first + 0.8 * makespan);
    let (mut tok, mut busy) = (0u64, 0.0);
    for &(start, d, b) in &e.steps {
        if start >= lo && start < hi {
            tok += b;
            busy += d;
        }
    }
    // Busy time summed over replicas, so tokens/busy is one replica's rate.
    let steady = if busy > 0.0 {
        tok as f64 / busy / params.decode_tp as f64
    } else {
        0.0
    };
    let occupancy = downsample(&e.trace, first, makespan, kv_capacity_tokens, max_context);
    let timeline = EngineWindow {
        from: Seconds(window.0 - first),
        to: Seconds(window.1 - first),
        lanes: e.servers.iter().map(|s| s.role).collect(),
        spans: std::mem::take(&mut e.spans)
            .into_iter()
            .map(|sp| EngineStep {
                start: Seconds(sp.start.0 - first),
                ..sp
            })
            .collect(),
    };
    Ok(SimReport {
        completed: e.completed,
        prompt_tokens,
        prefill_tokens: e.prefill_tokens,
        generated_tokens: e.generated,
        makespan: Seconds(makespan),
        ttft: exact(std::mem::take(&mut e.ttft)),
        itl: e.itl.summary(),
        chips,
        tokens_per_sec_per_chip: e.generated as f64 / makespan / chips as f64,
        steady_decode_per_chip: steady,
        mean_batch: if e.decode_steps > 0 {
            e.batch_sum as f64 / e.decode_steps as f64
        } else {
            0.0
        },
        prefix_hit_rate: 1.0 - e.prefill_tokens.min(prompt_tokens) as f64 / prompt_tokens as f64,
        request_hit_rate: e.hits as f64 / n as f64,
        decode_steps: e.decode_steps,
        mean_transfer: Seconds(if e.transfers > 0 {
            e.transfer_sum / e.transfers as f64
        } else {
            0.0
        }),
        occupancy,
        timeline,
    })
}

fn downsample(
    trace: &[(f64, u64, u64)],
    first: f64,
    span: f64,
    capacity_tokens: f64,
    max_context: u64,
) -> Vec<Occupancy> {
    let mut out = Vec::with_capacity(OCCUPANCY_SAMPLES);
    let mut i = 0;
    let mut last = (0u64, 0u64);
    for k in 0..OCCUPANCY_SAMPLES {
        let t = first + span * (k as f64 + 1.0) / OCCUPANCY_SAMPLES as f64;
        while i < trace.len() && trace[i].0 <= t {
            last = (trace[i].1, trace[i].2);
            i += 1;
        }
        out.push(Occupancy {
            t: Seconds(t - first),
            used: last.0 as f64 / capacity_tokens,
            reserved: (last.1 * max_context) as f64 / capacity_tokens,
        });
    }
    out
}

/// Bytes of KV cache a prompt of `tokens` hands from a prefill server to a
/// generate server, in the cache format of `precision`.
pub fn handover_bytes(model: &ServingModel, precision: Precision, tokens: f64) -> Bytes {
    model.kv_per_token(precision.kv) * tokens.max(0.0)
}

/// Server `s`'s id in events and spans: servers are built from at most
/// `MAX_REPLICAS` replicas, so the index always fits.
#[allow(
    clippy::cast_possible_truncation,
    reason = "servers are at most a few times MAX_REPLICAS"
)]
fn server_id(s: usize) -> u32 {
    s as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn small() -> SimParams {
        SimParams {
            requests: 400,
            ..SimParams::default()
        }
    }

    #[test]
    fn deterministic_for_a_seed_and_different_across_seeds() {
        let p = small();
        let a = simulate(&p).unwrap();
        assert_eq!(a, simulate(&p).unwrap());
        let b = simulate(&SimParams { seed: 2, ..p }).unwrap();
        assert_ne!(a.ttft, b.ttft);
    }

    #[test]
    fn conserves_requests_and_tokens() {
        for (layout, batching) in [
            (PrefillPlacement::Interleaved, Batching::Continuous),
            (PrefillPlacement::Disaggregated, Batching::Continuous),
            (PrefillPlacement::Interleaved, Batching::Static),
            (PrefillPlacement::Disaggregated, Batching::Static),
        ] {
            let p = SimParams {
                layout,
                batching,
                ..small()
            };
            let r = simulate(&p).unwrap();
            let reqs = draw_requests(&p);
            assert_eq!(r.completed, p.requests);
            let out: u64 = reqs.iter().map(|q| q.output as u64).sum();
            assert_eq!(r.generated_tokens, out, "{layout:?}");
            let prompt: u64 = reqs.iter().map(|q| q.prompt(&p)).sum();
            assert_eq!(r.prompt_tokens, prompt);
            assert!(r.prefill_tokens <= prompt && r.prefill_tokens >= p.requests as u64);
            // Every decode token beyond the first per request came from a step.
            assert_eq!(
                (r.mean_batch * r.decode_steps as f64).round() as u64,
                out - p.requests as u64
            );
            assert_eq!(r.occupancy.len(), OCCUPANCY_SAMPLES);
            assert!(r.occupancy.iter().all(|o| o.used <= o.reserved + 1e-12));
        }
    }

    #[test]
    fn steady_state_matches_the_analytic_pareto_point() {
        // Saturated generate replica: fixed lengths, no prefix sharing, prefill
        // capacity to spare and arrivals faster than the server drains them.
        let p = SimParams {
            requests: 3000,
            arrival_rate: 1e4,
            prefill_replicas: 8,
            system_prompts: 0,
            conversations: 0,
            user_min: 1024,
            user_max: 1024,
            output_min: 256,
            output_max: 256,
            prefix_cache_tokens: 0,
            max_batch: 48,
            ..SimParams::default()
        };
        let r = simulate(&p).unwrap();
        let analytic = analytic_decode_per_chip(&p, 1024.0, 256.0).unwrap();
        let err = (r.steady_decode_per_chip / analytic - 1.0).abs();
        assert!(
            err < 0.05,
            "sim {} vs analytic {analytic}",
            r.steady_decode_per_chip
        );
        assert!((r.mean_batch - 48.0).abs() < 2.0, "{}", r.mean_batch);
    }

    #[test]
    fn disaggregation_smooths_inter_token_latency() {
        let base = SimParams {
            requests: 1500,
            arrival_rate: 8.0,
            prefix_cache_tokens: 0,
            ..SimParams::default()
        };
        let inter = simulate(&SimParams {
            layout: PrefillPlacement::Interleaved,
            ..base.clone()
        })
        .unwrap();
        let dis = simulate(&base).unwrap();
        // Prefills stall the interleaved batch: its slow tokens are slower.
        assert!(
            inter.itl.p95 > dis.itl.p95,
            "{:?} vs {:?}",
            inter.itl,
            dis.itl
        );
    }

    #[test]
    fn prefix_caching_skips_prefill_work() {
        let on = simulate(&small()).unwrap();
        let off = simulate(&SimParams {
            prefix_cache_tokens: 0,
            ..small()
        })
        .unwrap();
        assert_eq!(off.prefix_hit_rate, 0.0);
        assert!(on.prefix_hit_rate > 0.5, "{}", on.prefix_hit_rate);
        assert!(on.request_hit_rate > 0.9);
        assert!(on.ttft.mean < off.ttft.mean);
        // A cache too small for one history still reuses system prompts.
        let tiny = simulate(&SimParams {
            prefix_cache_tokens: 600,
            ..small()
        })
        .unwrap();
        assert!(tiny.prefix_hit_rate > 0.0 && tiny.prefix_hit_rate < on.prefix_hit_rate);
    }

    #[test]
    fn static_batching_leaves_slots_empty_and_requests_waiting() {
        for layout in [
            PrefillPlacement::Interleaved,
            PrefillPlacement::Disaggregated,
        ] {
            let cont = SimParams {
                layout,
                requests: 600,
                arrival_rate: 15.0,
                ..SimParams::default()
            };
            let stat = SimParams {
                batching: Batching::Static,
                ..cont.clone()
            };
            let (c, s) = (simulate(&cont).unwrap(), simulate(&stat).unwrap());
            assert_eq!(s.completed, c.completed);
            assert_eq!(s.generated_tokens, c.generated_tokens);
            // A static batch decodes on while its slots empty, and newcomers
            // wait for the whole batch to finish: interleaved, before their
            // prefill (the first token); disaggregated, after it (the second).
            let (slow, fast) = match layout {
                PrefillPlacement::Interleaved => (s.ttft, c.ttft),
                PrefillPlacement::Disaggregated => (s.itl, c.itl),
            };
            assert!(slow.p95 > fast.p95, "{layout:?}: {slow:?} vs {fast:?}");
            assert!(s.makespan > c.makespan, "{layout:?}");
            assert!(
                s.tokens_per_sec_per_chip < c.tokens_per_sec_per_chip,
                "{layout:?}"
            );
        }
    }

    #[test]
    fn timeline_shows_each_replica_busy_without_overlap_in_the_window() {
        for layout in [
            PrefillPlacement::Interleaved,
            PrefillPlacement::Disaggregated,
        ] {
            let p = SimParams {
                layout,
                decode_replicas: 2,
                ..small()
            };
            let r = simulate(&p).unwrap();
            let t = &r.timeline;
            let lanes = match layout {
                PrefillPlacement::Interleaved => vec![Role::Both; 2],
                PrefillPlacement::Disaggregated => vec![Role::Prefill, Role::Decode, Role::Decode],
            };
            assert_eq!(t.lanes, lanes);
            assert!(t.from.0 > 0.0 && t.to > t.from);
            assert!(t.spans.iter().any(|s| s.prefill) && t.spans.iter().any(|s| !s.prefill));
            for s in &t.spans {
                // Each span overlaps the window and runs on a replica that may run it.
                assert!(s.start.0 < t.to.0 && s.start.0 + s.duration.0 > t.from.0);
                let role = t.lanes[s.lane as usize];
                assert!(s.duration.0 > 0.0 && s.size >= 1);
                if s.prefill {
                    assert_ne!(role, Role::Decode);
                } else {
                    assert_ne!(role, Role::Prefill);
                    assert!(s.size <= p.max_batch);
                }
            }
            for lane in 0..t.lanes.len() as u32 {
                let mut mine: Vec<_> = t.spans.iter().filter(|s| s.lane == lane).collect();
                mine.sort_by(|a, b| a.start.0.total_cmp(&b.start.0));
                for w in mine.windows(2) {
                    assert!(w[0].start.0 + w[0].duration.0 <= w[1].start.0 + 1e-12);
                }
            }
        }
    }

    #[test]
    fn fast_step_cost_is_the_books_step_time() {
        let p = SimParams::default();
        let r = p.resolve().unwrap();
        let c = r.step_cost(p.precision).unwrap();
        for (b, ctx) in [(1u64, 10u64), (7, 9000), (64, 64 * 2000), (300, 300 * 1500)] {
            let want = r.decode_time(p.precision, b, ctx).unwrap().0;
            assert!((c.step(b, ctx) / want - 1.0).abs() < 1e-12, "{b} {ctx}");
        }
    }

    #[test]
    fn trie_shares_prefixes_and_evicts_lru_leaves() {
        let mut t = PrefixTrie::new(1000);
        assert_eq!(t.lookup_insert(&[(1, 300), (7, 200)]), 0);
        assert_eq!(t.lookup_insert(&[(1, 300), (8, 200)]), 300);
        assert_eq!(t.held(), 700);
        assert_eq!(t.lookup_insert(&[(1, 300), (7, 200)]), 500);
        // Inserting 400 more evicts the least recently used leaf (conversation 8).
        assert_eq!(t.lookup_insert(&[(2, 400)]), 0);
        assert_eq!(t.held(), 900);
        assert_eq!(t.lookup_insert(&[(1, 300), (8, 200)]), 300);
        assert!(t.held() <= 1000);
    }

    #[test]
    fn bad_fields_are_named() {
        let bad = |f: fn(&mut SimParams), field: &str| {
            let mut p = SimParams::default();
            f(&mut p);
            let e = simulate(&p).unwrap_err();
            assert!(e.starts_with(field), "{e}");
        };
        bad(|p| p.model = "gpt-9".into(), "model");
        bad(|p| p.chip = "v99".into(), "chip");
        bad(|p| p.max_batch = 0, "max_batch");
        bad(|p| p.max_batch = 4000, "max_batch");
        bad(|p| p.arrival_rate = f64::NAN, "arrival_rate");
        bad(|p| p.user_max = 1, "user_max");
        bad(|p| p.output_max = 100_000, "output_max");
        bad(|p| p.prefill_mfu = 0.0, "prefill_mfu");
        bad(|p| p.decode_tp = 0, "decode_tp");
        bad(
            |p| {
                p.model = "llama3-70b".into();
                p.decode_tp = 1;
            },
            "decode_tp",
        );
    }

    #[test]
    fn ten_thousand_requests_run_fast() {
        let p = SimParams {
            requests: 10_000,
            arrival_rate: 20.0,
            decode_replicas: 2,
            prefill_replicas: 2,
            ..SimParams::default()
        };
        // CPU time of this thread (Linux's schedstat, in ns) where available:
        // wall time on a shared machine also counts waiting for a core.
        let cpu_ns = || {
            std::fs::read_to_string("/proc/thread-self/schedstat")
                .ok()
                .and_then(|t| t.split_whitespace().next()?.parse::<f64>().ok())
        };
        let (c0, t0) = (cpu_ns(), std::time::Instant::now());
        let r = simulate(&p).unwrap();
        let wall = t0.elapsed().as_secs_f64() * 1e3;
        let ms = match (c0, cpu_ns()) {
            (Some(a), Some(b)) => (b - a) / 1e6,
            _ => wall,
        };
        assert_eq!(r.completed, 10_000);
        // The budget is 50 ms in an optimised build; debug builds get 40x.
        let budget = if cfg!(debug_assertions) { 2000.0 } else { 50.0 };
        eprintln!(
            "serving_sim: 10,000 requests in {ms:.1} ms CPU ({wall:.1} ms wall), {} decode steps, batch {:.1}",
            r.decode_steps, r.mean_batch
        );
        assert!(ms < budget, "{ms} ms");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        #[test]
        fn any_valid_run_conserves_and_orders(
            seed in any::<u64>(),
            inter in any::<bool>(),
            rate in 0.5f64..200.0,
            batch in 1u64..64,
            sys in 0u32..6,
            conv in 0u32..6,
            out_lo in 1u32..40,
            cache in 0u64..5000,
        ) {
            let p = SimParams {
                seed,
                layout: if inter { PrefillPlacement::Interleaved } else { PrefillPlacement::Disaggregated },
                arrival_rate: rate,
                max_batch: batch,
                system_prompts: sys,
                conversations: conv,
                output_min: out_lo,
                output_max: out_lo + 30,
                prefix_cache_tokens: cache,
                requests: 120,
                ..SimParams::default()
            };
            let r = simulate(&p).unwrap();
            prop_assert_eq!(r.completed, 120);
            prop_assert!(r.ttft.p50 <= r.ttft.p95);
            prop_assert!(r.itl.p50 <= r.itl.p95);
            prop_assert!(r.mean_batch <= batch as f64 + 1e-9);
            prop_assert!((0.0..=1.0).contains(&r.prefix_hit_rate));
        }
    }
}
