//! `mm/mempolicy.c`: `mpol_misplaced` under the default NUMA-balancing policy.
//!
//! Follows Linux v5.12: a task with the default policy while balancing is on uses
//! `preferred_node_policy` with `MPOL_F_MOF | MPOL_F_MORON`, so the wanted node is the
//! faulting CPU's node, subject to `should_numa_migrate_memory`. VMA and task policies
//! other than the default are not modelled.

use crate::engine::{say, Sim};
use crate::mm::memory::FaultCtx;
use crate::topology::{CpuId, NodeId};
use crate::trace::{Ev, EventKind};

impl Sim {
    /// `mpol_misplaced`: the node the page should move to, or `None` (NUMA_NO_NODE).
    pub(crate) fn mpol_misplaced(&mut self, cpu: CpuId, f: &mut FaultCtx, _caller_line: &'static str) -> (Ev, Option<NodeId>) {
        let mm = self.cpu_mm(cpu);
        let pid = self.st.mms[mm as usize].pid;
        let polnid = self.cpu_node(cpu);
        let page_nid = f.page_nid.unwrap_or(polnid);
        let (ok, line, why) = self.should_numa_migrate_memory(cpu, f.pfn);
        self.charge(cpu, self.cfg.costs.numa_account_ns);
        let target = (ok && page_nid != polnid).then_some(polnid);
        let verdict = match (ok, target) {
            (false, _) => say!(self, "{why}: leave it"),
            (true, None) => say!(self, "{why}, and the page is already on node {polnid}: nothing to do"),
            (true, Some(t)) => say!(self, "{why}: migrate pfn {} from node {page_nid} to node {t}", f.pfn),
        };
        let ev = Ev::new(EventKind::MigrateDecision, "should_numa_migrate_memory", line)
            .pte(pid, f.vpn)
            .pfn(f.pfn)
            .say(say!(self, "mpol_misplaced: {verdict}"));
        (ev, target)
    }
}
