//! Where CPU time goes, as a profiler with call chains sees it: every nanosecond a CPU
//! spends is charged to the task running there (user code, kernel code of a user
//! thread, a kernel thread, or idle) and, inclusively, to every kernel function on that
//! task's stack at the time (a function "and its callees", the way `perf report
//! --children` reads). Waiting counts where the kernel's CPU would be busy: spinning on a
//! lock and waiting for flush acknowledgements are kernel time of the waiting function;
//! a sleeping task uses no CPU. A task waiting for a page under migration
//! (`migration_entry_wait`) sleeps in `io_schedule`; the engine adds its time asleep to
//! [`Profile::iowait_ns`] when it is woken: neither user nor system time, and no function's.
//!
//! Off by default (the lab does not need it); `run::run` turns it on, so `mmviz run`,
//! `compare` and `[[expect]]` see metrics such as a share of time in `try_to_unmap`.

use crate::core::Stack;
use crate::registry::{Frame, NR_FUNCTIONS};

/// The function name of a user thread's bottom frame (`UserMode`).
const USER_CODE: &str = "user code";

/// Accumulated time, ns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Profile {
    /// Per function (by [`Frame::fn_index`]), inclusive of its callees.
    fn_ns: Vec<u64>,
    /// User threads in user mode.
    pub user_ns: u64,
    /// User threads in the kernel (system time).
    pub sys_ns: u64,
    /// Kernel threads.
    pub kthread_ns: u64,
    /// Idle CPUs.
    pub idle_ns: u64,
    /// Time user threads slept in `io_schedule` waiting for a page under migration
    /// (iowait; their CPUs ran other tasks or idled meanwhile).
    pub iowait_ns: u64,
    /// Per CPU: the clock up to which its time has been charged.
    accounted: Vec<u64>,
    /// Per CPU: time ahead that was charged already (`charge_extra`) and must not be
    /// charged again when the clock passes it.
    skip: Vec<u64>,
}

/// What a task was, for charging.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Who {
    /// A user thread.
    User,
    /// A kernel thread.
    Kthread,
    /// An idle task.
    Idle,
}

impl Profile {
    /// Nothing charged yet, for `nr_cpus` CPUs.
    pub fn new(nr_cpus: usize) -> Self {
        Profile {
            fn_ns: vec![0; NR_FUNCTIONS + 1],
            user_ns: 0,
            sys_ns: 0,
            kthread_ns: 0,
            idle_ns: 0,
            iowait_ns: 0,
            accounted: vec![0; nr_cpus],
            skip: vec![0; nr_cpus],
        }
    }

    /// Charges `ns` that the clock has not reached yet (weighted kernel work, see
    /// `Sim::charge`) to `who` and every function on `stack`.
    pub(crate) fn charge_extra(&mut self, who: Who, stack: &Stack<Frame>, ns: u64) {
        match who {
            Who::User if stack.len() > 1 => {
                self.sys_ns += ns;
                for f in stack.iter().skip(1) {
                    self.fn_ns[f.fn_index() as usize] += ns;
                }
            }
            Who::User => self.user_ns += ns,
            Who::Kthread => {
                self.kthread_ns += ns;
                for f in stack.iter() {
                    self.fn_ns[f.fn_index() as usize] += ns;
                }
            }
            Who::Idle => self.idle_ns += ns,
        }
    }

    /// The next `ns` of `cpu`'s clock were charged already (`charge_extra`).
    pub(crate) fn skip(&mut self, cpu: usize, ns: u64) {
        self.skip[cpu] += ns;
    }

    /// Takes back `ns` of a `skip` that did not happen.
    pub(crate) fn unskip(&mut self, cpu: usize, ns: u64) {
        self.skip[cpu] = self.skip[cpu].saturating_sub(ns);
    }

    /// Charges `cpu`'s time up to `now` to `who` and to every function on `stack`.
    #[inline(always)]
    pub(crate) fn charge(&mut self, cpu: usize, now: u64, who: Who, stack: &Stack<Frame>) {
        // Most calls find nothing new to charge (a call or return costs no time).
        if now > self.accounted[cpu] {
            self.charge_slow(cpu, now, who, stack);
        }
    }

    #[inline(never)]
    fn charge_slow(&mut self, cpu: usize, now: u64, who: Who, stack: &Stack<Frame>) {
        let from = self.accounted[cpu];
        self.accounted[cpu] = now;
        let skip = self.skip[cpu].min(now - from);
        self.skip[cpu] -= skip;
        let d = now - from - skip;
        match who {
            Who::Idle => self.idle_ns += d,
            Who::Kthread => {
                self.kthread_ns += d;
                for f in stack.iter() {
                    self.fn_ns[f.fn_index() as usize] += d;
                }
            }
            // A user thread's stack starts with its user code, which is therefore charged
            // everything the thread gets (`time_in` adds it up): only the kernel functions
            // above it are charged here, and a thread in user mode charges no function.
            Who::User if stack.len() > 1 => {
                self.sys_ns += d;
                for f in stack.iter().skip(1) {
                    self.fn_ns[f.fn_index() as usize] += d;
                }
            }
            Who::User => self.user_ns += d,
        }
    }

    /// Time spent in `function` and its callees, ns (0 for a function no frame runs).
    pub fn time_in(&self, function: &str) -> u64 {
        let own = crate::registry::frame_functions()
            .position(|f| f == function)
            .map_or(0, |i| self.fn_ns[i]);
        // User code is at the bottom of every user thread's stack (see `charge_slow`).
        if function == USER_CODE {
            own + self.user_ns + self.sys_ns
        } else {
            own
        }
    }

    /// Every function some task ran, with its inclusive time (it and its callees), ns,
    /// most first (ties by name): `perf report --children` over the whole run.
    pub fn by_function(&self) -> Vec<(&'static str, u64)> {
        let mut v: Vec<(&'static str, u64)> = crate::registry::frame_functions()
            .zip(self.fn_ns.iter().copied())
            .filter(|&(f, ns)| ns > 0 && f != USER_CODE)
            .collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        v
    }

    /// Every CPU's busy time (all but idle), ns.
    pub fn busy_ns(&self) -> u64 {
        self.user_ns + self.sys_ns + self.kthread_ns
    }

    /// Every CPU's time charged so far, idle included, ns (iowait is a sleeping task's
    /// time, not a CPU's).
    pub fn total_ns(&self) -> u64 {
        self.busy_ns() + self.idle_ns
    }

    /// What was charged after `earlier` (a copy of this profile taken before): the profile
    /// of a window of the run.
    pub fn since(&self, earlier: &Profile) -> Profile {
        Profile {
            fn_ns: self.fn_ns.iter().zip(&earlier.fn_ns).map(|(a, b)| a.saturating_sub(*b)).collect(),
            user_ns: self.user_ns.saturating_sub(earlier.user_ns),
            sys_ns: self.sys_ns.saturating_sub(earlier.sys_ns),
            kthread_ns: self.kthread_ns.saturating_sub(earlier.kthread_ns),
            idle_ns: self.idle_ns.saturating_sub(earlier.idle_ns),
            iowait_ns: self.iowait_ns.saturating_sub(earlier.iowait_ns),
            accounted: self.accounted.clone(),
            skip: self.skip.clone(),
        }
    }

    /// The share of busy CPU time spent in `function` and its callees, in percent
    /// (`None` when nothing ran): what a mechanism's `*_pct` metric reports.
    pub fn share_pct(&self, function: &str) -> Option<f64> {
        let busy = self.busy_ns();
        (busy > 0).then(|| 100.0 * self.time_in(function) as f64 / busy as f64)
    }
}
