//! NUMA balancing in the scheduler (`kernel/sched/fair.c`): `task_numa_work`,
//! `should_numa_migrate_memory`, `task_numa_fault`.
//!
//! Follows Linux v5.12. Left out: numa_group statistics and task placement
//! (`task_numa_placement`), and the adaptive scan period; the scan period is a knob.

use crate::engine::{say, Flow, Sim};
use crate::mm::memory::{FaultCtx, Next};
use crate::mm::mprotect::ScanCtx;
use crate::state::CPUPID_UNSET;
use crate::topology::CpuId;
use crate::trace::{Ev, EventKind};

impl Sim {
    /// `should_numa_migrate_memory`: returns (verdict, listing line, reason).
    pub(crate) fn should_numa_migrate_memory(&mut self, cpu: CpuId, pfn: u32) -> (bool, &'static str, String) {
        let mm = self.cpu_mm(cpu);
        let pid = u32::from(self.st.mms[mm as usize].pid);
        let this = (pid << 16) | u32::from(cpu);
        let last = std::mem::replace(&mut self.st.pages[pfn as usize].last_cpupid, this);
        let dst = self.cpu_node(cpu);
        let unset = last == CPUPID_UNSET;
        let same_pid = !unset && last >> 16 == pid;
        if self.st.mms[mm as usize].numa_scan_seq <= 4 && (unset || same_pid) {
            return (
                true,
                "S2",
                say!(self, "early in the task's life and no other task touched the page last"),
            );
        }
        if !unset {
            let last_nid = self.cpu_node((last & 0xffff) as CpuId);
            if last_nid != dst {
                return (
                    false,
                    "S3",
                    say!(
                        self,
                        "the previous hint fault came from node {last_nid}, not {dst}: two-stage filter says wait"
                    ),
                );
            }
        }
        (true, "S4", say!(self, "two consecutive faults from node {dst}"))
    }

    /// `task_numa_fault`: record the fault's locality; ends the fault.
    pub(crate) fn task_numa_fault(&mut self, cpu: CpuId, f: &mut FaultCtx) -> (Ev, Next) {
        let mm = self.cpu_mm(cpu);
        let pid = self.st.mms[mm as usize].pid;
        let here = self.cpu_node(cpu);
        self.charge(cpu, self.cfg.costs.numa_account_ns);
        let Some(nid) = f.page_nid else {
            return (
                Ev::new(EventKind::NumaFaultAccount, "do_numa_page", "O12")
                    .pte(pid, f.vpn)
                    .say(say!(self, "Nothing to account: retry the access")),
                Next::Finish,
            );
        };
        let nid = if f.migrated == Some(true) { f.target.unwrap_or(nid) } else { nid };
        if let Some(t) = self.st.cpus[cpu as usize].task {
            let loc = &mut self.st.tasks[t as usize].numa.locality;
            loc[usize::from(nid != here)] += 1;
            if f.migrated == Some(false) {
                loc[2] += 1;
            }
        }
        let outcome = match f.migrated {
            Some(true) => "migrated",
            Some(false) => "migration failed",
            None => "not migrated",
        };
        let ev = Ev::new(EventKind::NumaFaultAccount, "task_numa_fault", "Q1")
            .pte(pid, f.vpn)
            .say(say!(
                self,
                "task_numa_fault: thread {} records a {} fault on node {nid} ({outcome}); the access is retried",
                self.task_name(cpu),
                if nid == here { "local" } else { "remote" }
            ));
        (ev, Next::Finish)
    }

    /// `task_numa_work` for an explicit `scan` operation: marks one VMA (or all) PROT_NONE.
    pub(crate) fn task_numa_work_explicit(&mut self, cpu: CpuId, mm: u16, vma: Option<u16>) -> Ev {
        let m = &self.st.mms[mm as usize];
        let ranges: Vec<(u32, u32)> = match vma {
            Some(v) => vec![(m.vmas[v as usize].start, m.vmas[v as usize].end())],
            None => m.vmas.iter().map(|v| (v.start, v.end())).collect(),
        };
        let pages: u32 = ranges.iter().map(|(s, e)| e - s).sum();
        let pid = m.pid;
        self.st.cpus[cpu as usize].flow = Flow::Scan(Box::new(ScanCtx::new(ranges)));
        self.charge(cpu, 50);
        Ev::new(EventKind::ScanStart, "task_numa_work", "").say(say!(
            self,
            "task_numa_work on CPU {cpu}: the NUMA scanner of mm {pid} marks {pages} page(s) PROT_NONE so that the next access traps"
        ))
    }

    /// `task_numa_work` from the periodic tick: the next `scan_size_pages` of the mm.
    pub(crate) fn task_numa_work_auto(&mut self, cpu: CpuId, mm: u16) -> Ev {
        let budget = self.cfg.knobs.scan_size_pages;
        let m = &mut self.st.mms[mm as usize];
        let mut ranges = Vec::new();
        let mut left = budget;
        let (mut vi, mut off) = m.scan_offset;
        while left > 0 && (vi as usize) < m.vmas.len() {
            let v = &m.vmas[vi as usize];
            let n = (v.ptes.len() as u32 - off).min(left);
            ranges.push((v.start + off, v.start + off + n));
            left -= n;
            off += n;
            if off as usize >= v.ptes.len() {
                vi += 1;
                off = 0;
            }
        }
        if vi as usize >= m.vmas.len() {
            // reset_ptenuma_scan: wrap around, a new scan sequence.
            vi = 0;
            off = 0;
            m.numa_scan_seq += 1;
        }
        m.scan_offset = (vi, off);
        let pid = m.pid;
        self.st.cpus[cpu as usize].flow = Flow::Scan(Box::new(ScanCtx::new(ranges)));
        self.charge(cpu, 50);
        Ev::new(EventKind::ScanStart, "task_numa_work", "").say(say!(
            self,
            "The scan period of mm {pid} has passed: task_numa_work on CPU {cpu} marks up to {budget} more page(s) PROT_NONE"
        ))
    }
}
