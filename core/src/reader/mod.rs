//! The reader's own chips and models, beside the registry and never inside it.
//!
//! | file | what |
//! |---|---|
//! | `chip.rs` | a reader's chip from a small JSON object whose numbers carry units, as the same [`crate::hardware::Chip`] the registry holds |
//! | `hf_config.rs` | a Hugging Face `config.json` as a [`crate::model::config::ModelConfig`] (feature `library`) |
//! | `library.rs` | the reader's saved chips and models under a versioned schema (feature `library`) |
//! | `compact.rs` | the one-line compact form of a reader's chip or model that pages read and links carry |

pub mod chip;
pub mod compact;
#[cfg(feature = "library")]
pub mod hf_config;
#[cfg(feature = "library")]
pub mod library;
