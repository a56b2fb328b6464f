//! Schedules as data: which CPU takes a step where the run would otherwise follow
//! simulated time.
//!
//! A run's default order is the ready queue's: the CPU that is ready earliest acts next
//! (ties to the lower id). A schedule names the steps where another ready CPU goes instead,
//! as `STEP:CPU` picks in step order, e.g. `12:1,30:0` ("at step 12 CPU 1 acts, at step 30
//! CPU 0"); every other step keeps the default. The empty schedule is the default run, so
//! every existing run, hash and golden is unchanged. A picked CPU must be ready at its step
//! (have work, an IPI or a timer pending: a CPU waiting on a lock or on IPI acks is not);
//! it acts at its own clock, so after a pick the event times are each CPU's own clock and
//! need not grow from step to step.
//!
//! This is what links (`sched=`) and the CLI (`--schedule`) carry, and what the
//! interleaving explorer prints for each outcome it finds.

use std::fmt;

use crate::topology::CpuId;

/// Most picks a schedule may hold (a link stays short; an explored schedule of a small
/// race scenario needs tens).
pub const MAX_PICKS: usize = 4096;

/// A schedule: the steps where a CPU other than the earliest ready one acts.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Schedule {
    picks: Vec<(u64, CpuId)>,
}

impl Schedule {
    /// A schedule of `picks`, which must be in increasing step order.
    pub fn new(picks: Vec<(u64, CpuId)>) -> Result<Self, String> {
        if picks.len() > MAX_PICKS {
            return Err(format!("a schedule holds at most {MAX_PICKS} picks, this one {}", picks.len()));
        }
        for (i, w) in picks.windows(2).enumerate() {
            if w[1].0 <= w[0].0 {
                return Err(format!(
                    "pick {} (`{}:{}`) is not after pick {} (`{}:{}`): picks go in increasing step order",
                    i + 2,
                    w[1].0,
                    w[1].1,
                    i + 1,
                    w[0].0,
                    w[0].1
                ));
            }
        }
        Ok(Schedule { picks })
    }

    /// Reads `STEP:CPU,STEP:CPU,…` (spaces around items allowed; empty text is the default
    /// schedule). Errors name the item by its position.
    pub fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        if text.is_empty() {
            return Ok(Schedule::default());
        }
        let mut picks = Vec::new();
        for (i, item) in text.split(',').enumerate() {
            let item = item.trim();
            let pos = i + 1;
            let (step, cpu) = item
                .split_once(':')
                .ok_or_else(|| format!("pick {pos} (`{}`): expected STEP:CPU, e.g. `12:1`", shorten(item)))?;
            let step: u64 = step.trim().parse().map_err(|_| {
                format!(
                    "pick {pos} (`{}`): the step `{}` is not a whole number",
                    shorten(item),
                    shorten(step.trim())
                )
            })?;
            let cpu: CpuId = cpu.trim().parse().map_err(|_| {
                format!(
                    "pick {pos} (`{}`): the CPU `{}` is not a CPU number (0 to {})",
                    shorten(item),
                    shorten(cpu.trim()),
                    CpuId::MAX
                )
            })?;
            picks.push((step, cpu));
            if picks.len() > MAX_PICKS {
                return Err(format!("a schedule holds at most {MAX_PICKS} picks"));
            }
        }
        Schedule::new(picks)
    }

    /// No picks: the default order.
    pub fn is_empty(&self) -> bool {
        self.picks.is_empty()
    }

    /// The picks, in step order.
    pub fn picks(&self) -> &[(u64, CpuId)] {
        &self.picks
    }

    /// The pick at index `i`.
    pub fn get(&self, i: usize) -> Option<(u64, CpuId)> {
        self.picks.get(i).copied()
    }

    /// Checks every pick's CPU against a machine of `nr_cpus` CPUs.
    pub fn check_cpus(&self, nr_cpus: usize) -> Result<(), String> {
        for (i, &(step, cpu)) in self.picks.iter().enumerate() {
            if usize::from(cpu) >= nr_cpus {
                return Err(format!(
                    "pick {} (`{step}:{cpu}`): this machine has CPUs 0 to {}",
                    i + 1,
                    nr_cpus.saturating_sub(1)
                ));
            }
        }
        Ok(())
    }
}

impl fmt::Display for Schedule {
    /// The canonical text: `STEP:CPU` picks joined by commas, nothing for the default.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (step, cpu)) in self.picks.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{step}:{cpu}")?;
        }
        Ok(())
    }
}

/// At most 24 characters of `s` for a message.
fn shorten(s: &str) -> String {
    // Control characters as escapes, so the message stays one line.
    let mut out: String = s
        .chars()
        .take(24)
        .map(|c| {
            if c.is_control() {
                c.escape_debug().to_string()
            } else {
                c.to_string()
            }
        })
        .collect();
    if s.chars().count() > 24 {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn reads_picks_and_prints_them_back() {
        let s = Schedule::parse(" 12:1, 30:0 ").unwrap();
        assert_eq!(s.picks(), &[(12, 1), (30, 0)]);
        assert_eq!(s.to_string(), "12:1,30:0");
        assert!(Schedule::parse("").unwrap().is_empty());
        assert_eq!(Schedule::default().to_string(), "");
    }

    #[test]
    fn names_the_pick_that_is_wrong() {
        assert_eq!(
            Schedule::parse("12:1,x").unwrap_err(),
            "pick 2 (`x`): expected STEP:CPU, e.g. `12:1`"
        );
        assert_eq!(
            Schedule::parse("4:1,a:2").unwrap_err(),
            "pick 2 (`a:2`): the step `a` is not a whole number"
        );
        assert_eq!(
            Schedule::parse("4:70000").unwrap_err(),
            "pick 1 (`4:70000`): the CPU `70000` is not a CPU number (0 to 65535)"
        );
        assert_eq!(
            Schedule::parse("9:1,9:2").unwrap_err(),
            "pick 2 (`9:2`) is not after pick 1 (`9:1`): picks go in increasing step order"
        );
        assert_eq!(
            Schedule::parse("5:7").unwrap().check_cpus(4).unwrap_err(),
            "pick 1 (`5:7`): this machine has CPUs 0 to 3"
        );
        let long = (0..5000).map(|i| format!("{i}:0")).collect::<Vec<_>>().join(",");
        assert!(Schedule::parse(&long).unwrap_err().contains("at most 4096 picks"));
        let garbage = "\u{0}\u{1}ÿ:::,,";
        assert!(Schedule::parse(garbage).unwrap_err().starts_with("pick 1"));
    }

    proptest! {
        #[test]
        fn any_schedule_reads_back_as_itself(mut steps in proptest::collection::btree_set(0u64..1_000_000_000_000, 0..40), cpus in proptest::collection::vec(0u16..512, 40)) {
            let picks: Vec<(u64, CpuId)> = std::mem::take(&mut steps).into_iter().zip(cpus).collect();
            let s = Schedule::new(picks).unwrap();
            prop_assert_eq!(Schedule::parse(&s.to_string()).unwrap(), s);
        }
    }
}
