//! Invariants checked after every step in tests: free memory adds up, every mapping
//! points at an allocated frame that the rmap can find and whose mapcount counts it (across
//! every mm), a private page mapped more than once is mapped read-only (copy-on-write), and
//! no TLB holds a translation the page table no longer has unless a flush for it is
//! under way (or the CPU is lazy and behind, and will flush when it switches back), and
//! the access sampler's indexes agree with the page tables.

use crate::engine::Sim;
use crate::machine::{pg, Wait};
use crate::registry::Invariant;

/// Checks every mechanism's invariants; the error says which one broke and where.
pub fn check(sim: &Sim) -> Result<(), String> {
    for inv in crate::registry::invariants() {
        (inv.check)(sim).map_err(|e| format!("{}: {e}", inv.name))?;
    }
    Ok(())
}

/// The core's invariants.
pub const CORE: &[Invariant] = &[
    Invariant {
        name: "free memory adds up",
        check: free_memory_adds_up,
    },
    Invariant {
        name: "mappings follow the rmap",
        check: mappings_follow_the_rmap,
    },
    Invariant {
        name: "no stale TLB entry",
        check: no_stale_tlb_entry,
    },
    Invariant {
        name: "access indexes follow the page table",
        check: access_indexes_follow_the_page_table,
    },
];

/// Every access index (`bulk` random accesses) is the one a rebuild from the page table
/// gives: every PTE write kept it current.
fn access_indexes_follow_the_page_table(sim: &Sim) -> Result<(), String> {
    let nodes = sim.cfg.topo.pfn_ranges();
    for (mi, m) in sim.st.mms.iter().enumerate() {
        for ix in &m.access {
            let again = crate::machine::access_index::AccessIndex::build(
                ix.start,
                ix.pages,
                ix.pattern,
                sim.cfg.topo.tlb_entries,
                nodes.clone(),
                |v| m.pte(v),
            );
            if **ix != again {
                return Err(format!(
                    "mm {mi}: the index of {:#x}..{:#x} counts {} load-slow and {} store-slow shares (pages when uniform); the page table has {} and {}",
                    ix.start,
                    ix.start + ix.pages,
                    ix.load_slow_share(),
                    ix.store_slow_share(),
                    again.load_slow_share(),
                    again.store_slow_share()
                ));
            }
        }
    }
    Ok(())
}

/// One ledger: a frame is flagged FREE exactly when it is in a block on its zone's buddy
/// lists or a page on a PCP list, each free page is there once, and each zone's
/// `NR_FREE_PAGES` is the pages of its buddy blocks.
fn free_memory_adds_up(sim: &Sim) -> Result<(), String> {
    let st = &sim.st;
    let pa = &st.page_alloc;
    let mut listed = vec![false; st.frames.len() as usize];
    let mut put = |pfn: u32, order: u8, what: &str| -> Result<(), String> {
        for p in pfn..pfn + (1u32 << order) {
            let Some(seen) = listed.get_mut(p as usize) else {
                return Err(format!("{what}: pfn {p} is beyond memory"));
            };
            if std::mem::replace(seen, true) {
                return Err(format!("{what}: pfn {p} is free twice (on two lists, or twice on one)"));
            }
        }
        Ok(())
    };
    for (z, zone) in pa.zones.iter().enumerate() {
        let mut pages = 0u32;
        for (pfn, order, _mt) in zone.buddy.blocks_listed() {
            put(pfn, order, &format!("buddy lists of node {}", zone.nid))?;
            pages += 1 << order;
        }
        if pages != zone.buddy.nr_free {
            return Err(format!(
                "zone of node {}: NR_FREE_PAGES is {} but its buddy blocks hold {pages} pages",
                zone.nid, zone.buddy.nr_free
            ));
        }
        for cpu in 0..sim.cfg.topo.nr_cpus() {
            let pcp = &pa.pcp[pa.pcp_index(cpu as crate::topology::CpuId, z)];
            for (pindex, list) in pcp.lists.iter().enumerate() {
                let order = crate::mm::page_alloc::pindex_to_order(pindex);
                for &pfn in list {
                    put(pfn, order, &format!("PCP of CPU {cpu} for node {}", zone.nid))?;
                }
            }
        }
    }
    for pfn in 0..st.frames.len() {
        let flagged = st.frames.get(pfn).has(pg::FREE);
        if flagged != listed[pfn as usize] {
            return Err(if flagged {
                format!("pfn {pfn} is flagged free but is on no buddy or PCP list")
            } else {
                format!("pfn {pfn} is on a free list but is not flagged free")
            });
        }
    }
    Ok(())
}

/// Every PTE that names a frame names an allocated one, found again by the rmap walk,
/// and counted in its mapcount; a private page mapped more than once is read-only.
fn mappings_follow_the_rmap(sim: &Sim) -> Result<(), String> {
    let st = &sim.st;
    let mut mapped = vec![0u32; st.frames.len() as usize];
    for (mi, m) in st.mms.iter().enumerate() {
        for (vi, v) in m.vmas.iter().enumerate() {
            for vpn in v.start..v.end() {
                let pte = m.pte(vpn);
                if pte.is_none() {
                    continue;
                }
                if pte.pfn() >= st.frames.len() {
                    return Err(format!("mm {} vpn {vpn:#x} maps pfn {} beyond memory", m.pid, pte.pfn()));
                }
                let page = st.frames.get(pte.pfn());
                if page.has(pg::FREE) {
                    return Err(format!("mm {} vpn {vpn:#x} maps pfn {}, which is free", m.pid, pte.pfn()));
                }
                let root = st.roots.get(page.mapping as usize);
                let found = root.is_some_and(|r| r.vmas.contains(&(mi as u16, vi as u16))) && v.address_of(page) == Some(vpn);
                if !found {
                    return Err(format!(
                        "mm {} vpn {vpn:#x} maps pfn {}, but the page's rmap (root {}, index {:#x}) does not lead back to it",
                        m.pid,
                        pte.pfn(),
                        page.mapping,
                        page.index
                    ));
                }
                if !pte.is_migration() {
                    mapped[pte.pfn() as usize] += 1;
                }
                // Copy-on-write: a private page mapped by several PTEs is read-only in all.
                if v.kind == crate::scenario::VmaKind::Anon && pte.write() && page.mapcount > 1 {
                    return Err(format!(
                        "mm {} vpn {vpn:#x} maps pfn {} writable, but the page is mapped {} times (a COW page must be write-protected)",
                        m.pid,
                        pte.pfn(),
                        page.mapcount
                    ));
                }
            }
        }
    }
    // try_to_unmap_one (and wp_page_copy) clear the PTE before they drop the page's
    // rmap: in between, the mapcount may count one more than the PTEs that map it.
    let mut unmapping = vec![0u32; st.frames.len() as usize];
    for s in &st.stacks {
        for f in s.iter() {
            if let Some(n) = f.unmapping().and_then(|pfn| unmapping.get_mut(pfn as usize)) {
                *n += 1;
            }
        }
    }
    for (pfn, p) in st.frames.iter() {
        let (m, k) = (mapped[pfn as usize], unmapping[pfn as usize]);
        if !p.has(pg::FREE) && !(m..=m + k).contains(&u32::from(p.mapcount)) {
            return Err(format!(
                "pfn {pfn} has mapcount {} but {} PTEs map it",
                p.mapcount, mapped[pfn as usize]
            ));
        }
    }
    Ok(())
}

/// A TLB entry must match a present PTE, unless a flush that will remove it is under way.
fn no_stale_tlb_entry(sim: &Sim) -> Result<(), String> {
    let st = &sim.st;
    for c in &st.cpus {
        for e in c.tlb.entries() {
            let m = &st.mms[e.mm as usize];
            let pte = m.pte(e.vpn);
            let valid = pte.hw_present() && pte.pfn() == e.pfn && (pte.write() || !e.write);
            if valid {
                continue;
            }
            // A lazy CPU is skipped by shootdowns; it flushes when it switches back (its
            // tlb_gen is behind). A CPU that left the mm drops its entries when it returns.
            let lazy_behind = (c.lazy && c.seen_gen < m.tlb_gen) || c.loaded_mm != Some(e.mm);
            // A function between changing PTEs and flushing them (a fork write-protects
            // the parent's PTEs first and flushes once at the end).
            let pending = st.stacks.iter().any(|s| s.iter().any(|f| f.flush_under_way(e.mm)));
            let flushing = lazy_behind
                || pending
                || m.flush_pending > 0
                || st.cpus.iter().any(|x| x.wait == Wait::Acks || x.inbox.iter().any(|i| i.mm == e.mm));
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
