//! `mm/mempolicy.c`: `mpol_misplaced` under the default NUMA-balancing policy.
//!
//! Follows Linux v5.12: a task with the default policy while balancing is on uses
//! `preferred_node_policy` with `MPOL_F_MOF | MPOL_F_MORON`, so the wanted node is the
//! faulting CPU's node, subject to `should_numa_migrate_memory`. VMA and task policies
//! other than the default are not modelled.

use crate::core::{Flow, Ret};
use crate::engine::{say, Sim};
use crate::mech::numa::ev as numa_ev;
use crate::mech::numa::NUMA_ACCOUNT_NS;
use crate::registry::{Frame, Function};
use crate::topology::CpuId;
use crate::trace::Ev;

/// `mpol_misplaced(page, vma, addr)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MpolMisplaced {
    pfn: u32,
    vpn: u32,
}

impl MpolMisplaced {
    /// Where should the page at `pfn` (mapped at `vpn`) live?
    pub fn frame(pfn: u32, vpn: u32) -> Frame {
        Frame::from(MpolMisplaced { pfn, vpn })
    }
}

impl Function for MpolMisplaced {
    /// One line: the policy node, filtered by `should_numa_migrate_memory`.
    fn step(&mut self, sim: &mut Sim, cpu: CpuId) -> (Ev, Flow<Frame>) {
        let mm = sim.cpu_mm(cpu);
        let pid = sim.st.mms[mm as usize].pid;
        let polnid = sim.cpu_node(cpu);
        let page_nid = sim.page_nid(self.pfn);
        let (ok, line, why) = crate::kernel::sched::numa::should_numa_migrate_memory(sim, cpu, self.pfn);
        sim.charge(cpu, sim.cfg.costs[NUMA_ACCOUNT_NS]);
        let target = (ok && page_nid != polnid).then_some(polnid);
        crate::kernel::sched::numa::note_hint_target(sim, cpu, self.vpn, target);
        let verdict = match (ok, target) {
            (false, _) => say!(sim, "{why}: leave it"),
            (true, None) => say!(sim, "{why}, and the page is already on node {polnid}: nothing to do"),
            (true, Some(t)) => say!(sim, "{why}: migrate pfn {} from node {page_nid} to node {t}", self.pfn),
        };
        let ev = Ev::new(numa_ev::MIGRATE_DECISION, "should_numa_migrate_memory", line)
            .pte(pid, self.vpn)
            .pfn(self.pfn)
            .say(say!(sim, "mpol_misplaced: {verdict}"));
        (ev, Flow::Return(Ret::Node(target)))
    }
}
