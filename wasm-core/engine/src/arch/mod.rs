//! Architecture code (x86 only: IPI-based TLB shootdowns exist there).
pub mod x86;
