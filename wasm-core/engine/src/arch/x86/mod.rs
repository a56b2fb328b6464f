//! x86.
pub mod mm;
