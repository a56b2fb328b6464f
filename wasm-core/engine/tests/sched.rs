//! The scheduler across CPUs: periodic load balancing (`rebalance_domains` →
//! `load_balance`, Linux v5.12) shares a node's CPUs fairly among more threads than CPUs.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // reason: a test may stop at the first surprise

use mmviz_engine::engine::Sim;
use mmviz_engine::patches::ToggleSet;
use mmviz_engine::scenario;
use mmviz_engine::testkit::TestScenario;

/// `threads` threads of one process bound to a node of `cpus` CPUs, each computing for
/// `secs` seconds; runs `window_ms` and returns each thread's CPU time (ns) and the
/// number of task migrations.
fn shares(cpus: usize, threads: usize, window_ms: u64) -> (Vec<u64>, u64) {
    let list: Vec<String> = (0..cpus).map(|c| c.to_string()).collect();
    let text = format!(
        r#"
format = 1
id = "share"
title = "t"
[knobs]
window_ms = {window_ms}
[machine]
[[machine.node]]
cpus = [{}]
mem_pages = 64
[[process]]
name = "p"
[[process.thread]]
count = {threads}
node = 0
ops = [{{ op = "compute", ns = 100000000000 }}]
"#,
        list.join(", ")
    );
    let s = scenario::parse(&text, &[]).unwrap();
    let mut sim = Sim::new(&s, &ToggleSet::default(), false);
    while sim.step().is_some() {}
    let now = sim.now();
    let times = sim
        .st
        .tasks
        .iter()
        .filter(|t| t.mm().is_some())
        .map(|t| {
            let running = sim
                .st
                .cpus
                .iter()
                .any(|c| usize::from(c.curr) < sim.st.tasks.len() && std::ptr::eq(&sim.st.tasks[usize::from(c.curr)], t));
            t.numa.sum_exec_runtime + if running { now.saturating_sub(t.numa.exec_start) } else { 0 }
        })
        .collect();
    (times, sim.st.counters.get(mmviz_engine::mech::core::NR_MIGRATIONS))
}

#[test]
fn more_threads_than_cpus_share_the_node_fairly_over_time() {
    // 6 threads on 4 CPUs: placement puts two CPUs at 2 threads and two at 1. Without
    // periodic balancing the lone threads keep a CPU each (100 %) and the others get half.
    // A lone CPU's load_balance moves a queued thread to itself every second attempt
    // (imbalance 512 = min(2 - 1.5, 1.5 - 1) tasks of 1024: 1024 >> 0 fails, 1024 >> 1
    // does not), attempts 4 ms × 16 apart, so over 20 s every thread gets close to 4/6 of
    // a CPU.
    let (t, migrations) = shares(4, 6, 20_000);
    let total: u64 = t.iter().sum();
    let fair = total / 6;
    assert!(migrations >= 20, "{migrations} migrations");
    for (i, &x) in t.iter().enumerate() {
        let dev = (x as f64 - fair as f64).abs() / fair as f64;
        assert!(dev < 0.15, "thread {i}: {x} ns of CPU against a fair {fair} ({t:?})");
    }
    // Early on, before the second attempt (64 ms), nothing has moved: the lone threads
    // are ahead.
    let (t, migrations) = shares(4, 6, 60);
    assert_eq!(migrations, 0);
    let max = *t.iter().max().unwrap();
    let min = *t.iter().min().unwrap();
    assert!(max as f64 > 1.8 * min as f64, "{t:?}");
    // As many threads as CPUs: nothing to balance.
    let (_, migrations) = shares(4, 4, 2_000);
    assert_eq!(migrations, 0);
}

/// Two nodes of two CPUs; threads may run anywhere unless `cpu` pins them.
fn two_nodes(threads: &[(&str, u64)]) -> Sim {
    let mut text = TestScenario::new()
        .knob("window_ms", 2)
        .two_nodes("cpus = [0, 1]\nmem_pages = 64", "cpus = [2, 3]\nmem_pages = 64")
        .then("[[process]]\nname = \"p\"")
        .text();
    for (pin, ns) in threads {
        text.push_str(&format!("[[process.thread]]\n{pin}\nops = [{{ op = \"compute\", ns = {ns} }}]\n"));
    }
    let s = scenario::parse(&text, &[]).unwrap();
    Sim::new(&s, &ToggleSet::default(), false)
}

/// The CPU each user thread is on (its run queue's), in file order.
fn cpus_of(sim: &Sim) -> Vec<u16> {
    sim.st.tasks.iter().filter(|t| t.mm().is_some()).map(|t| t.cpu).collect()
}

#[test]
fn new_threads_spread_over_the_nodes_first() {
    // find_idlest_group at the NUMA level: the second thread goes to the other node, not
    // to CPU 1 next to the first.
    let sim = two_nodes(&[("", 1_000_000); 4]);
    assert_eq!(cpus_of(&sim), vec![0, 2, 1, 3]);
}

#[test]
fn a_cpu_going_idle_pulls_from_its_own_node_before_a_busier_remote_one() {
    // CPU 0 runs one thread with one queued; CPU 2 one with two queued (one pinned there).
    // When the short thread on CPU 1 ends, newidle_balance walks the domains upward and
    // stops at its node: it takes CPU 0's queued thread, not one from the busier CPU 2.
    let long = 100_000_000;
    let mut sim = two_nodes(&[
        ("", long),
        ("", long),
        ("", 1_000_000),
        ("", long),
        ("", long),
        ("", long),
        ("cpu = 2", long),
    ]);
    assert_eq!(cpus_of(&sim), vec![0, 2, 1, 3, 0, 2, 2]);
    while sim.step().is_some() {}
    let cpus = cpus_of(&sim);
    assert_eq!(cpus[4], 1, "thread 4 moved from CPU 0 to CPU 1: {cpus:?}");
    assert_eq!(cpus[5], 2, "thread 5 stayed on CPU 2: {cpus:?}");
}

/// Two nodes of eight CPUs; `procs` single-thread processes (`bind`: their placement
/// line, if any) computing in 1 ms pieces (each a return to user space, where the idle
/// balancer is kicked) for `ms`.
fn two_big_nodes(procs: usize, bind: &str, ms: u64) -> Sim {
    two_big_nodes_at(21, procs, bind, ms)
}

/// The start of a scenario: two nodes of 8 CPUs at `distance`, a `ms` window.
fn two_big_nodes_machine(distance: u32, ms: u64) -> String {
    TestScenario::new()
        .knob("window_ms", ms)
        .distance(&format!("[[10, {distance}], [{distance}, 10]]"))
        .node("cpus = [0, 1, 2, 3, 4, 5, 6, 7]\nmem_pages = 64")
        .node("cpus = [8, 9, 10, 11, 12, 13, 14, 15]\nmem_pages = 64")
        .text()
}

/// [`two_big_nodes`] with the nodes `distance` apart.
fn two_big_nodes_at(distance: u32, procs: usize, bind: &str, ms: u64) -> Sim {
    let mut text = two_big_nodes_machine(distance, ms);
    for p in 0..procs {
        text.push_str(&format!(
            "[[process]]\nname = \"p{p}\"\n[[process.thread]]\n{bind}\nops = [{{ op = \"compute\", ns = 1000000 }}, {{ op = \"loop\" }}]\n"
        ));
    }
    let s = scenario::parse(&text, &[]).unwrap();
    Sim::new(&s, &ToggleSet::default(), false)
}

#[test]
fn forks_fill_the_parents_node_until_a_quarter_of_the_machine_is_busy_there() {
    // allow_numa_imbalance (v5.11): with 16 CPUs, the launcher's node (CPU 0's) takes
    // forks while fewer than 4 tasks run there; then the node with more idle CPUs does.
    let sim = two_big_nodes(6, "", 1);
    assert_eq!(cpus_of(&sim), vec![0, 1, 2, 3, 8, 9]);
}

#[test]
fn forks_stay_on_the_parents_node_when_the_nodes_are_farther_apart_than_reclaim_distance() {
    // sd_init (v5.12): a NUMA level farther than RECLAIM_DISTANCE (30) has no
    // SD_BALANCE_FORK, so the fork balancing that spread the sixth and seventh task above
    // does not look at node 1.
    let sim = two_big_nodes_at(30, 6, "", 1);
    assert_eq!(cpus_of(&sim), vec![0, 1, 2, 3, 8, 9], "30 is still near");
    let sim = two_big_nodes_at(32, 6, "", 1);
    assert_eq!(cpus_of(&sim), vec![0, 1, 2, 3, 4, 5]);
    // A process bound to the far node: its launcher moves there first, and its forks
    // spread over that node's CPUs.
    let sim = two_big_nodes_at(32, 3, "node = 1", 1);
    assert_eq!(cpus_of(&sim), vec![8, 9, 10]);
    // The idle balancer still evens the nodes out: it balances at every NUMA level.
    let mut sim = two_big_nodes_at(32, 6, "", 1000);
    while sim.step().is_some() {}
    let on_node1 = cpus_of(&sim).iter().filter(|&&c| c >= 8).count();
    assert_eq!(on_node1, 3, "{:?}", cpus_of(&sim));
}

#[test]
fn a_thread_bound_to_a_far_node_falls_back_to_its_first_allowed_cpu() {
    // v5.12 select_task_rq_fair (WF_FORK): past RECLAIM_DISTANCE only the parent's node
    // balances forks, and it has none of the CPUs the thread may use, so find_idlest_cpu
    // returns the parent's CPU; select_task_rq finds it not allowed and select_fallback_rq
    // takes the first allowed CPU (none on the parent's node): CPU 8, busy with q, although
    // CPUs 9-15 are idle. At distance 21 the same thread goes to an idle CPU of node 1.
    const PROCS: &str = r#"
[[process]]
name = "q"
[[process.thread]]
cpu = 8
ops = [{ op = "compute", ns = 1000000 }]
[[process]]
name = "p"
[[process.thread]]
ops = [{ op = "compute", ns = 1000000 }]
[[process.thread]]
node = 1
ops = [{ op = "compute", ns = 1000000 }]
"#;
    let text = |distance: u32| two_big_nodes_machine(distance, 1) + PROCS;
    let far = Sim::new(&scenario::parse(&text(32), &[]).unwrap(), &ToggleSet::default(), false);
    assert_eq!(cpus_of(&far), vec![8, 0, 8]);
    assert_eq!(far.st.cpus[8].rq.len(), 1, "p's second thread waits behind q");
    let near = Sim::new(&scenario::parse(&text(21), &[]).unwrap(), &ToggleSet::default(), false);
    let cpus = cpus_of(&near);
    assert_eq!(&cpus[..2], &[8, 0]);
    assert!(cpus[2] > 8, "an idle CPU of node 1: {cpus:?}");
}

#[test]
fn the_idle_balancer_evens_out_the_nodes_by_pushing_running_tasks() {
    // Four tasks start on node 0 and run alone on their CPUs: nothing is queued, so only
    // active balancing can move them. Node 1's idle CPU balances every 16 ms; after
    // cache_nice_tries + 2 = 4 failures the fifth attempt pushes one running task over,
    // and then one more (3 against 1 still leaves node 1 two idle CPUs ahead). At 2 and 2
    // the nodes are balanced and nothing else moves.
    let mut sim = two_big_nodes(4, "", 1000);
    assert_eq!(cpus_of(&sim), vec![0, 1, 2, 3]);
    while sim.step().is_some() {}
    let on_node1 = cpus_of(&sim).iter().filter(|&&c| c >= 8).count();
    assert_eq!(on_node1, 2, "{:?}", cpus_of(&sim));
    assert_eq!(sim.st.counters.get(mmviz_engine::mech::core::NR_MIGRATIONS), 2);
}

#[test]
fn pinned_tasks_keep_the_idle_balancer_from_moving_anything() {
    // LBF_ALL_PINNED: the same imbalance, but every task is bound to node 0.
    let mut sim = two_big_nodes(4, "node = 0", 1000);
    while sim.step().is_some() {}
    assert_eq!(cpus_of(&sim), vec![0, 1, 2, 3]);
    assert_eq!(sim.st.counters.get(mmviz_engine::mech::core::NR_MIGRATIONS), 0);
}
