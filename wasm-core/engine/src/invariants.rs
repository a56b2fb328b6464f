//! Invariants checked after every step in tests: page accounting adds up, every
//! mapping points at an allocated frame, and no TLB holds a translation the page
//! table no longer has unless a flush for it is under way.

use crate::engine::Sim;
use crate::state::pg;

/// Checks every invariant; the error says which one broke and where.
pub fn check(sim: &Sim) -> Result<(), String> {
    let st = &sim.st;
    // Free lists hold exactly the FREE frames, each once, on their own node.
    let mut on_list = vec![false; st.pages.len()];
    for (nid, list) in st.free.iter().enumerate() {
        for &pfn in list {
            let p = st
                .pages
                .get(pfn as usize)
                .ok_or(format!("free list of node {nid} holds pfn {pfn} beyond memory"))?;
            if !p.has(pg::FREE) {
                return Err(format!("pfn {pfn} is on a free list but not marked free"));
            }
            if usize::from(p.nid) != nid {
                return Err(format!("pfn {pfn} of node {} is on node {nid}'s free list", p.nid));
            }
            if std::mem::replace(&mut on_list[pfn as usize], true) {
                return Err(format!("pfn {pfn} is on a free list twice"));
            }
        }
    }
    for (pfn, p) in st.pages.iter().enumerate() {
        if p.has(pg::FREE) != on_list[pfn] {
            return Err(format!("pfn {pfn}: free flag and free lists disagree"));
        }
    }
    // Every PTE that names a frame names an allocated one, and present PTEs match the rmap.
    for m in &st.mms {
        for v in &m.vmas {
            for (i, pte) in v.ptes.iter().enumerate() {
                if pte.is_none() {
                    continue;
                }
                let vpn = v.start + i as u32;
                let page =
                    st.pages
                        .get(pte.pfn() as usize)
                        .ok_or(format!("mm {} vpn {vpn:#x} maps pfn {} beyond memory", m.pid, pte.pfn()))?;
                if page.has(pg::FREE) {
                    return Err(format!("mm {} vpn {vpn:#x} maps pfn {}, which is free", m.pid, pte.pfn()));
                }
                if !pte.is_migration() && (usize::from(page.map_mm) != usize::from(m.pid) - 1 || page.map_vpn != vpn) {
                    return Err(format!(
                        "mm {} vpn {vpn:#x} maps pfn {} but the page's rmap says otherwise",
                        m.pid,
                        pte.pfn()
                    ));
                }
            }
        }
    }
    // A TLB entry must match a present PTE, unless a flush that will remove it is under way.
    for c in &st.cpus {
        for e in c.tlb.entries() {
            let m = &st.mms[e.mm as usize];
            let pte = m.pte(e.vpn);
            let valid = pte.hw_present() && pte.pfn() == e.pfn && (pte.write() || !e.write);
            if valid {
                continue;
            }
            // A lazy CPU is skipped by shootdowns; it flushes when it switches back (its tlb_gen is behind).
            let lazy_behind = c.lazy && c.seen_gen < m.tlb_gen;
            let flushing = lazy_behind
                || m.flush_pending > 0
                || st
                    .cpus
                    .iter()
                    .any(|x| x.flush.is_some_and(|f| f.mm == e.mm) || x.inbox.iter().any(|i| i.mm == e.mm));
            if !flushing {
                return Err(format!(
                    "CPU {} caches mm {} vpn {:#x} -> pfn {}, but the PTE is {} (pfn {}) and no flush is under way",
                    c.id,
                    m.pid,
                    e.vpn,
                    e.pfn,
                    pte.kind_name(),
                    pte.pfn()
                ));
            }
        }
    }
    Ok(())
}
