//! Event counters. Where the kernel has a vmstat (or `/proc/interrupts`) name for a
//! quantity, the counter carries that name; model-only counters are marked as such.

use std::fmt;

macro_rules! counters {
    ($( $(#[doc = $doc:literal])* $variant:ident => $name:literal, )*) => {
        /// One counter of the model; the discriminant indexes [`Counters`].
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum Counter {
            $( $(#[doc = $doc])* $variant, )*
        }

        impl Counter {
            /// Every counter, in display order (kernel names first).
            pub const ALL: &'static [Counter] = &[$(Counter::$variant,)*];

            /// The name used in tables, JSON and scenario `[[expect]]` blocks.
            pub const fn name(self) -> &'static str {
                match self { $(Counter::$variant => $name,)* }
            }
        }
    };
}

counters! {
    /// `numa_pte_updates`: PTEs turned PROT_NONE by `change_prot_numa` (base pages).
    NumaPteUpdates => "numa_pte_updates",
    /// `numa_hint_faults`: hint faults counted in `numa_migrate_prep`.
    NumaHintFaults => "numa_hint_faults",
    /// `numa_hint_faults_local`: hint faults on a page already on the faulting CPU's node.
    NumaHintFaultsLocal => "numa_hint_faults_local",
    /// `numa_pages_migrated`: pages moved by `migrate_misplaced_page`.
    NumaPagesMigrated => "numa_pages_migrated",
    /// `pgmigrate_success`: pages `migrate_pages` moved.
    PgmigrateSuccess => "pgmigrate_success",
    /// `pgmigrate_fail`: pages `migrate_pages` gave up on.
    PgmigrateFail => "pgmigrate_fail",
    /// `nr_tlb_remote_flush`: flush operations that sent IPIs (sender side, once per op).
    NrTlbRemoteFlush => "nr_tlb_remote_flush",
    /// `nr_tlb_remote_flush_received`: IPIs handled by a CPU that had the mm loaded.
    NrTlbRemoteFlushReceived => "nr_tlb_remote_flush_received",
    /// `nr_tlb_local_flush_one`: pages flushed one by one (INVLPG) on the sender.
    NrTlbLocalFlushOne => "nr_tlb_local_flush_one",
    /// `nr_tlb_local_flush_all`: full local flushes (CR3 reload) on the sender.
    NrTlbLocalFlushAll => "nr_tlb_local_flush_all",
    /// `/proc/stat` `ctxt` (`nr_context_switches`): switches from one task to another.
    Ctxt => "ctxt",
    /// `pgreuse` (v5.10+): write faults on a COW page that `wp_page_reuse` made writable in place.
    Pgreuse => "pgreuse",
    /// `/proc/stat` `processes` (`total_forks`): processes created by `fork`.
    Processes => "processes",
    /// `/proc/interrupts` "TLB shootdowns" (`irq_tlb_count`): every IPI received.
    IrqTlbCount => "irq_tlb_count",
    /// Model only: user memory accesses completed.
    Accesses => "accesses",
    /// Model only: accesses that missed the TLB and walked the page table.
    TlbMisses => "tlb_misses",
    /// Model only: first-touch faults served by `do_anonymous_page`.
    AnonFaults => "anon_faults",
    /// Model only: PTEs `change_pte_range` left alone because the file page was dirty.
    ScanSkipDirtyFile => "scan_skip_dirty_file",
    /// Model only: `migrate_misplaced_page` bailed out on a dirty file page.
    MisplacedBailDirtyFile => "misplaced_bail_dirty_file",
    /// Model only: migrations that failed to isolate the page (already isolated, node full).
    MigrateIsolateFail => "migrate_isolate_fail",
    /// Model only: mappings `try_to_unmap_one` replaced, across every mm the rmap walk visited.
    RmapUnmaps => "rmap_unmaps",
    /// Model only: CPUs in `mm_cpumask` a shootdown skipped because they were in lazy TLB mode.
    LazyTlbSkips => "lazy_tlb_skips",
    /// Model only: write faults `wp_page_copy` resolved with a new page (v5.12 has no
    /// vmstat for them; `pgfault` counts every fault).
    CowCopies => "cow_copies",
    /// Model only: tasks load balancing moved to another CPU (the sum of the tasks'
    /// `se.nr_migrations` in `/proc/PID/sched`, placement at fork excluded).
    NrMigrations => "nr_migrations",
}

impl Counter {
    /// Looks a counter up by its name.
    pub fn from_name(name: &str) -> Option<Counter> {
        Counter::ALL.iter().copied().find(|c| c.name() == name)
    }

    /// Whether the kernel has this counter (vmstat or /proc/interrupts) rather than the model alone.
    pub const fn is_kernel(self) -> bool {
        (self as u8) <= (Counter::IrqTlbCount as u8)
    }
}

impl fmt::Display for Counter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Number of counters.
pub const NR_COUNTERS: usize = Counter::ALL.len();

/// A fixed array of counter values; copying it is cheap, so a step can diff before/after.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counters([u64; NR_COUNTERS]);

impl Default for Counters {
    fn default() -> Self {
        Counters([0; NR_COUNTERS])
    }
}

impl Counters {
    /// Adds `n` to counter `c`.
    #[inline]
    pub fn add(&mut self, c: Counter, n: u64) {
        self.0[c as usize] += n;
    }

    /// Adds one to counter `c`.
    #[inline]
    pub fn inc(&mut self, c: Counter) {
        self.add(c, 1);
    }

    /// The value of counter `c`.
    #[inline]
    pub fn get(&self, c: Counter) -> u64 {
        self.0[c as usize]
    }

    /// `(counter, value)` pairs in display order.
    pub fn iter(&self) -> impl Iterator<Item = (Counter, u64)> + '_ {
        Counter::ALL.iter().map(|&c| (c, self.get(c)))
    }

    /// Non-zero differences `self - before`, in display order.
    pub fn delta_since(&self, before: &Counters) -> Vec<(Counter, i64)> {
        Counter::ALL
            .iter()
            .filter_map(|&c| {
                let d = self.get(c) as i64 - before.get(c) as i64;
                (d != 0).then_some((c, d))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_counter_name_round_trips() {
        for &c in Counter::ALL {
            assert_eq!(Counter::from_name(c.name()), Some(c));
        }
        assert_eq!(Counter::from_name("no_such_counter"), None);
    }

    #[test]
    fn kernel_counters_come_first() {
        let first_model = Counter::ALL.iter().position(|c| !c.is_kernel());
        assert_eq!(first_model, Some(Counter::Accesses as usize));
        assert!(Counter::ALL[..Counter::Accesses as usize].iter().all(|c| c.is_kernel()));
    }

    #[test]
    fn delta_lists_only_changed_counters() {
        let before = Counters::default();
        let mut after = before;
        after.add(Counter::NumaHintFaults, 2);
        assert_eq!(after.delta_since(&before), vec![(Counter::NumaHintFaults, 2)]);
    }
}
