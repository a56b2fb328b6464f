//! Schedules as data (`core/schedule.rs`): picks act where they say, a pick of the CPU the
//! default order would take changes nothing, replays from checkpoints follow the schedule,
//! and a schedule that does not fit the run stops it with a message naming the pick.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // reason: a test may stop at the first surprise

use mmviz_engine::builtin;
use mmviz_engine::core::Schedule;
use mmviz_engine::engine::{RunError, Sim};
use mmviz_engine::patches::ToggleSet;
use mmviz_engine::run;
use mmviz_engine::scenario::{self, Scenario};
use mmviz_engine::simulation::Simulation;

fn race() -> Scenario {
    scenario::parse(builtin::find("mremap-race-101").unwrap().text, &[]).unwrap()
}

/// Every step's CPU, in order, of a run of `s`.
fn cpus_of(s: &Scenario) -> Vec<u16> {
    let mut sim = Sim::new(s, &ToggleSet::default(), false);
    let mut out = Vec::new();
    while let Some(info) = sim.step() {
        out.push(info.cpu);
    }
    sim.check_stuck().unwrap();
    out
}

#[test]
fn picking_what_the_default_order_picks_changes_nothing() {
    let base = race();
    let default_cpus = cpus_of(&base);
    let default_hash = run::event_hash(&base, &ToggleSet::default()).unwrap();
    // Every 7th step picked explicitly, as the default order would.
    let picks: Vec<(u64, u16)> = default_cpus.iter().enumerate().step_by(7).map(|(i, &c)| (i as u64, c)).collect();
    assert!(picks.len() > 10);
    let mut s = base.clone();
    s.schedule = Schedule::new(picks).unwrap();
    assert_eq!(run::event_hash(&s, &ToggleSet::default()).unwrap(), default_hash);
}

#[test]
fn a_pick_makes_another_ready_cpu_act_at_that_step() {
    let mut s = race();
    let default_cpus = cpus_of(&s);
    // At step 4 the default order runs CPU 0 (its fault); CPU 1 is ready too (computing).
    assert_eq!(default_cpus[4], 0);
    s.schedule = Schedule::parse("4:1").unwrap();
    let picked = cpus_of(&s);
    assert_eq!(picked[4], 1);
    assert_eq!(&picked[..4], &default_cpus[..4]);
    assert_ne!(picked, default_cpus);
}

#[test]
fn a_prepared_run_replays_its_schedule_from_every_checkpoint() {
    let mut s = race();
    s.schedule = Schedule::parse("4:1,9:3,20:4").unwrap();
    let mut streamed = Sim::new(&s, &ToggleSet::default(), true);
    let mut events = Vec::new();
    while let Some(e) = streamed.step_event() {
        events.push((e.step, e.cpu, e.function, e.line, e.time_ns));
    }
    let mut sim = Simulation::from_scenario(s, &ToggleSet::default()).unwrap();
    while !sim.is_prepared() {
        sim.prepare(1_000).unwrap();
    }
    assert_eq!(sim.total_steps(), events.len() as u64);
    // Backwards, so each seek replays from a checkpoint.
    for step in (1..=events.len() as u64).rev().step_by(3) {
        sim.seek(step).unwrap();
        let e = sim.event(step - 1).unwrap();
        assert_eq!((e.step, e.cpu, e.function, e.line, e.time_ns), events[step as usize - 1]);
    }
}

#[test]
fn a_schedule_that_does_not_fit_names_its_pick() {
    let run_with = |text: &str| {
        let mut s = race();
        s.schedule = Schedule::parse(text).unwrap();
        let mut sim = Sim::new(&s, &ToggleSet::default(), false);
        sim.run_to_end()
    };
    // CPU 2 (the flusher's) sleeps at step 4.
    match run_with("4:2") {
        Err(RunError::Schedule(m)) => {
            assert!(m.starts_with("pick 1 (`4:2`): CPU 2 has nothing to do at step 4"), "{m}");
            assert!(m.ends_with("ready then: CPU 0, 1, 3, 4"), "{m}");
        }
        other => panic!("{other:?}"),
    }
    match run_with("4:1,100000:0") {
        Err(RunError::Schedule(m)) => assert!(m.starts_with("pick 2 (`100000:0`): the run ended at step "), "{m}"),
        other => panic!("{other:?}"),
    }
    // A CPU the machine does not have is refused before the run, and by the run too.
    assert!(Schedule::parse("3:40").unwrap().check_cpus(race().topology.nr_cpus()).is_err());
    match run_with("3:40") {
        Err(RunError::Schedule(m)) => assert!(m.contains("this machine has CPUs 0 to 4"), "{m}"),
        other => panic!("{other:?}"),
    }
}
