//! `mm/vmstat.c`: when each CPU's vmstat worker runs. `vmstat_update` (the per-CPU
//! delayed work `vmstat_work`, run by the CPU's kworker) folds the CPU's counter deltas
//! and queues itself again `round_jiffies_relative(sysctl_stat_interval)` later, as long
//! as there was something to fold (Linux v5.10 `vmstat_update`, standing for v5.12). The
//! rounding (`round_jiffies_common`, kernel/time/timer.c) puts the work on a whole second
//! of jiffies, skewed by 3 jiffies per CPU id so that the CPUs do not all fire at once:
//! CPU n's worker wakes once a second, at the jiffies where `(jiffies + 3n) % HZ == 0`.
//! Each wake-up is a `try_to_wake_up` of a nice-0 kworker on that CPU, which preempts the
//! task running there when that task is far enough ahead in vruntime
//! (`check_preempt_wakeup`).
//!
//! Where that second falls in a run is outside the kernel's control (how long the machine
//! had been up when the run began), so the jiffies at time 0 are drawn from the scenario's
//! seed, on a stream of their own (the workload's draws are not moved by it).
//!
//! Simplified: the worker wakes on every CPU, busy or idle (the kernel's timer is
//! deferrable and `need_update` would find nothing to fold on a CPU that stayed idle; the
//! model's extra wake-ups there run nothing and touch no user thread), and it costs its two
//! context switches only (no source gives `refresh_cpu_vm_stats`' own time). Its work
//! beyond the fold (the PCP series' `decay_pcp_high`) is `mm/page_alloc.rs`'s.

use crate::engine::Sim;
use crate::kernel::sched::numa::TICK_NS;
use crate::topology::CpuId;

/// `HZ` (ticks per second; the model's tick is `TICK_NS`).
const HZ: u64 = 1_000_000_000 / TICK_NS;

/// The jiffies at time 0, modulo `HZ`, for a run of `seed`: a stream of the seeded RNG
/// that the workload does not use.
pub(crate) fn jiffies_at_start(seed: u64) -> u64 {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(1);
    rng.random_range(0..HZ)
}

/// `__round_jiffies_relative(j, cpu)` as an absolute jiffy: `j` jiffies after `now_j`,
/// moved to the whole second (skewed by `3 × cpu`) below it when within a quarter second
/// past it, else to the one above.
fn round_jiffies(now_j: u64, j: u64, cpu: CpuId) -> u64 {
    let skew = 3 * u64::from(cpu);
    let target = now_j + j + skew;
    let rem = target % HZ;
    let rounded = if rem < HZ / 4 { target - rem } else { target - rem + HZ };
    let r = rounded - skew;
    if r > now_j {
        r
    } else {
        now_j + j
    }
}

/// When `cpu`'s vmstat worker, running at `now` (ns), queues its next run:
/// `round_jiffies_relative(sysctl_stat_interval)` (`vmstat_interval_ms`), in ns.
pub(crate) fn next_update(sim: &Sim, cpu: CpuId, now: u64) -> u64 {
    let interval = sim
        .cfg
        .knobs
        .value(crate::mech::page_alloc::VMSTAT_INTERVAL_NS)
        .div_ceil(TICK_NS)
        .max(1);
    let j0 = sim.cfg.jiffies0;
    let now_j = j0 + now / TICK_NS;
    (round_jiffies(now_j, interval, cpu) - j0) * TICK_NS
}

/// The first run of `cpu`'s worker in a run: the first of its whole-second slots after
/// time 0 (the work was queued before the run began).
pub(crate) fn first_update(jiffies0: u64, cpu: CpuId) -> u64 {
    let skew = 3 * u64::from(cpu);
    let to_slot = (HZ - (jiffies0 + skew) % HZ) % HZ;
    let to_slot = if to_slot == 0 { HZ } else { to_slot };
    to_slot * TICK_NS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cpus_vmstat_slot_is_a_whole_second_less_three_jiffies_per_cpu_id() {
        // HZ = 250, CPU 2 (skew 6): from jiffy 0, a second later is 250, skewed 256: 6
        // past a whole second, so down to 250, and back by the skew to 244.
        assert_eq!(round_jiffies(0, HZ, 2), 244);
        // Run at its slot (244), the next is a second later.
        assert_eq!(round_jiffies(244, HZ, 2), 494);
        // Run late (100 jiffies past the slot, beyond a quarter second), it rounds up.
        assert_eq!(round_jiffies(344 + 20, HZ, 2), 744);
        // The first slot after time 0 when the run starts at jiffy 10.
        assert_eq!(first_update(10, 2), (244 - 10) * TICK_NS);
        assert_eq!(first_update(244, 2), HZ * TICK_NS);
    }
}
