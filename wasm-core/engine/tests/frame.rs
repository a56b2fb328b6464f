//! The frame boundary: a frame's bulk arrays hold exactly the engine state of their window
//! (nothing dropped silently), windows tile the whole, and bad windows are errors.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // reason: a test may stop at the first surprise

use mmviz_engine::builtin::BUILTINS;
use mmviz_engine::view::{BulkWindow, FrameBulk, FrameWindow, DEFAULT_WINDOW, NO_PID, PTE_NONE};
use mmviz_engine::Simulation;

fn bench_frame_sim(accesses: i64) -> Simulation {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scripts/bench-frame-64cpu.toml")).unwrap();
    Simulation::new(&text, &[], &[("accesses".into(), accesses)]).unwrap()
}

#[test]
fn the_arrays_hold_every_pte_frame_and_tlb_entry_of_the_state() {
    for b in BUILTINS {
        let mut sim = Simulation::new(b.text, &[], &b.quick_params()).unwrap();
        let total = sim.total_steps();
        let mut bulk = FrameBulk::default();
        for step in [0, total / 3, total] {
            sim.seek(step).unwrap();
            let h = sim.frame(&FrameWindow::default(), &mut bulk).unwrap();
            let st = &sim.sim().st;
            let pages: u32 = st.mms.iter().flat_map(|m| m.vmas.iter()).map(|v| v.pages).sum();
            assert_eq!(
                h.pte_window,
                BulkWindow {
                    total: pages,
                    offset: 0,
                    count: pages.min(DEFAULT_WINDOW)
                },
                "{}",
                b.id
            );
            assert_eq!(h.frame_window.total, st.frames.len(), "{}", b.id);
            assert_eq!(bulk.pte_vpn.len(), h.pte_window.count as usize);
            assert_eq!(bulk.frame_pfn.len(), h.frame_window.count as usize);
            // Ordered by pid, then vpn; each PTE as the page table has it.
            for i in 0..bulk.pte_pid.len() {
                if i > 0 {
                    assert!(
                        (bulk.pte_pid[i - 1], bulk.pte_vpn[i - 1]) < (bulk.pte_pid[i], bulk.pte_vpn[i]),
                        "{}: PTE order at {i}",
                        b.id
                    );
                }
                let m = st.mms.iter().find(|m| m.pid == bulk.pte_pid[i]).unwrap();
                let p = m.pte(bulk.pte_vpn[i]);
                assert_eq!(bulk.pte_flags[i] & 3 == PTE_NONE, p.is_none());
                if !p.is_none() {
                    assert_eq!(bulk.pte_pfn[i], p.pfn());
                }
            }
            // A mapped frame's rmap points at a PTE that maps it.
            for i in 0..bulk.frame_pfn.len() {
                assert_eq!(bulk.frame_pfn[i], h.frame_window.offset + i as u32);
                if bulk.frame_map_pid[i] != NO_PID {
                    let m = st.mms.iter().find(|m| m.pid == bulk.frame_map_pid[i]).unwrap();
                    assert_eq!(m.pte(bulk.frame_map_vpn[i]).pfn(), bulk.frame_pfn[i]);
                }
            }
            // Every CPU's whole TLB.
            assert_eq!(bulk.tlb_cpu_start.len(), st.cpus.len() + 1);
            for (c, cpu) in st.cpus.iter().enumerate() {
                let (a, z) = (bulk.tlb_cpu_start[c] as usize, bulk.tlb_cpu_start[c + 1] as usize);
                assert_eq!(z - a, cpu.tlb.len());
                for (k, e) in cpu.tlb.entries().enumerate() {
                    assert_eq!((bulk.tlb_vpn[a + k], bulk.tlb_pfn[a + k]), (e.vpn, e.pfn));
                }
            }
            assert_eq!(h.cpus.len(), st.cpus.len());
        }
    }
}

#[test]
fn windows_tile_the_whole() {
    let mut sim = bench_frame_sim(20);
    sim.seek(sim.total_steps() / 2).unwrap();
    let mut all = FrameBulk::default();
    let h = sim.frame(&FrameWindow::default(), &mut all).unwrap();
    assert_eq!((h.pte_window.total, h.pte_window.count), (4096, 4096));
    assert_eq!((h.frame_window.total, h.frame_window.count), (8192, 8192));
    let mut part = FrameBulk::default();
    let (mut vpns, mut flags, mut pfns) = (Vec::new(), Vec::new(), Vec::new());
    for k in 0..5 {
        let w = FrameWindow {
            pte_offset: Some(k * 1000),
            pte_count: Some(1000),
            pfn_start: Some(k * 2000),
            pfn_count: Some(2000),
            ..FrameWindow::default()
        };
        let h = sim.frame(&w, &mut part).unwrap();
        assert_eq!(
            h.pte_window,
            BulkWindow {
                total: 4096,
                offset: k * 1000,
                count: 1000.min(4096 - k * 1000)
            }
        );
        assert_eq!(
            h.frame_window,
            BulkWindow {
                total: 8192,
                offset: k * 2000,
                count: 2000.min(8192 - k * 2000)
            }
        );
        vpns.extend_from_slice(&part.pte_vpn);
        flags.extend_from_slice(&part.pte_flags);
        pfns.extend_from_slice(&part.frame_flags);
    }
    assert_eq!(vpns, all.pte_vpn);
    assert_eq!(flags, all.pte_flags);
    assert_eq!(pfns, all.frame_flags);
    // A vpn range of one process.
    let first = all.pte_vpn[0];
    let w = FrameWindow {
        pid: Some(1),
        vpn_start: Some(first + 100),
        vpn_end: Some(first + 164),
        ..FrameWindow::default()
    };
    let h = sim.frame(&w, &mut part).unwrap();
    assert_eq!(
        h.pte_window,
        BulkWindow {
            total: 64,
            offset: 0,
            count: 64
        }
    );
    assert_eq!(part.pte_vpn, all.pte_vpn[100..164]);
}

#[test]
fn a_bad_window_is_an_error() {
    let sim = bench_frame_sim(2);
    let mut bulk = FrameBulk::default();
    let cases = [
        (
            FrameWindow {
                pid: Some(9),
                ..FrameWindow::default()
            },
            "no such process",
        ),
        (
            FrameWindow {
                pte_offset: Some(4097),
                ..FrameWindow::default()
            },
            "only 4096",
        ),
        (
            FrameWindow {
                pfn_start: Some(8193),
                ..FrameWindow::default()
            },
            "only 8192 frames",
        ),
        (
            FrameWindow {
                vpn_start: Some(9),
                vpn_end: Some(3),
                ..FrameWindow::default()
            },
            "backwards",
        ),
        (
            FrameWindow {
                pte_count: Some(u32::MAX),
                ..FrameWindow::default()
            },
            "at most",
        ),
    ];
    for (w, want) in cases {
        let e = sim.frame(&w, &mut bulk).unwrap_err().to_string();
        assert!(e.contains(want), "{w:?}: {e}");
        assert!(bulk.pte_pid.is_empty() && bulk.frame_pfn.is_empty());
    }
    // An offset at the very end is an empty window, not an error.
    let h = sim
        .frame(
            &FrameWindow {
                pte_offset: Some(4096),
                ..FrameWindow::default()
            },
            &mut bulk,
        )
        .unwrap();
    assert_eq!(
        h.pte_window,
        BulkWindow {
            total: 4096,
            offset: 4096,
            count: 0
        }
    );
}
