//! `mmviz`: the engine headless. `run`, `compare`, `sweep`, `check`, `trace`, `bench` and
//! `topology --numactl FILE [--lscpu FILE]` (reads `numactl --hardware` and `lscpu` text),
//! `zoneinfo FILE [--numactl FILE --mem-scale N]` and `vmstat BEFORE AFTER` (read pasted
//! `/proc` files; with `--numactl`, what a run on that machine takes from the zoneinfo),
//! per the CLI contract in DESIGN.md. Exit codes: 0 success, 1 a failed expectation,
//! 2 bad input (with a one-line message naming the file, line and field).

use clap::{Parser, Subcommand};
use mmviz_engine::builtin;
use mmviz_engine::counters::Counter;
use mmviz_engine::engine::Sim;
use mmviz_engine::numactl;
use mmviz_engine::patches::{self, Kernel, ToggleSet, ToggleValue};
use mmviz_engine::run::{self, RunResult};
use mmviz_engine::scenario::{self, Scenario};
use mmviz_engine::simulation::Simulation;
use mmviz_engine::{lscpu, vmstat, zoneinfo};
use serde_json::{json, Map, Value};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

mod link;

#[derive(Parser)]
#[command(
    name = "mmviz",
    version,
    about = "Step through what the Linux memory manager does on a NUMA machine"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

/// How a run's toggles are chosen on top of the scenario's own: a kernel, then named
/// presets, then single toggles (each later one wins).
#[derive(clap::Args, Clone, Debug, Default)]
struct Choice {
    /// Set every toggle to a mainline kernel's behaviour, e.g. v4.17 (`compare`: a
    /// comma-separated list to compare kernels).
    #[arg(long, value_name = "VERSION")]
    kernel: Option<String>,
    /// Apply named presets (comma-separated, in order; `compare`: one run per name).
    #[arg(long, value_name = "NAME[,NAME]")]
    preset: Option<String>,
    /// Set a toggle: ID=VALUE (repeatable).
    #[arg(long = "set", value_name = "ID=VALUE")]
    set: Vec<String>,
    /// Which CPU acts at named steps instead of the one ready earliest: STEP:CPU picks in
    /// step order, comma-separated (e.g. `12:1,30:0`); what `explore` prints for an outcome.
    /// Not for `sweep`.
    #[arg(long, value_name = "STEP:CPU[,STEP:CPU]")]
    schedule: Option<String>,
}

/// `--link`: also print the lab link that opens what was run.
#[derive(clap::Args, Clone, Debug, Default)]
struct LinkArgs {
    /// Also print the link that opens these runs in the lab (side by side for a comparison),
    /// in the lab's own URL format.
    #[arg(long)]
    link: bool,
    /// Where the lab is published (default: $MMVIZ_PUBLIC_URL, else the lab on this machine).
    #[arg(long, value_name = "URL", requires = "link")]
    base: Option<String>,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run a scenario to the end and print its counters and metrics.
    Run {
        /// Scenario file, or the id of a built-in scenario.
        scenario: String,
        #[command(flatten)]
        choice: Choice,
        /// Override a scenario parameter: NAME=VALUE (repeatable).
        #[arg(long = "param", value_name = "NAME=VALUE")]
        param: Vec<String>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
        /// Also hash the whole event stream (one more run) and print it as `event_hash`.
        #[arg(long)]
        hash: bool,
        /// Also print where the CPU time went: every kernel function with its time and its
        /// callees', as `perf report --children` shows it, and its share of busy CPU time.
        #[arg(long)]
        profile: bool,
        /// Also measure the profile over part of the run only, START_S..END_S seconds of
        /// simulated time (repeatable), as a profiler sampling a window sees it: CPU times
        /// and `*_pct` shares such as try_to_unmap_pct, shown as `NAME [START..END s]`.
        #[arg(long = "profile-window", value_name = "START_S..END_S")]
        profile_window: Vec<String>,
        #[command(flatten)]
        link: LinkArgs,
    },
    /// Run once per value of a toggle (off, on / each enum value), per named preset
    /// (`--preset A,B`) or per kernel (`--kernel vA,vB`), and compare.
    Compare {
        /// Scenario file or built-in id.
        scenario: String,
        /// The toggle to vary.
        #[arg(long)]
        toggle: Option<String>,
        #[command(flatten)]
        choice: Choice,
        /// Override a scenario parameter: NAME=VALUE (repeatable).
        #[arg(long = "param", value_name = "NAME=VALUE")]
        param: Vec<String>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
        /// Print a table like a patch series' results instead: one row per run, one column
        /// per named counter or metric; counts relative to the first run (= 100.0),
        /// percentages (`*_pct`) as they are.
        #[arg(long, value_name = "NAME[,NAME]")]
        columns: Option<String>,
        /// Also list the counters that are 0 in every run.
        #[arg(long)]
        all: bool,
        /// Also print where each run's CPU time went: every kernel function with its time
        /// and its callees', as `perf report --children` shows it, side by side.
        #[arg(long)]
        profile: bool,
        /// Also measure the profile over part of the run only, START_S..END_S seconds of
        /// simulated time (repeatable), as a profiler sampling a window sees it: CPU times
        /// and `*_pct` shares such as try_to_unmap_pct, shown as `NAME [START..END s]`.
        #[arg(long = "profile-window", value_name = "START_S..END_S")]
        profile_window: Vec<String>,
        #[command(flatten)]
        link: LinkArgs,
    },
    /// A toggle's effect over seeds and over the values of one parameter: per value, the
    /// change of every counter asked for (default: those the scenario's [[expect]] blocks
    /// name) with its mean, min, max and each seed's.
    Sweep {
        /// Scenario file or built-in id.
        scenario: String,
        /// The toggle to compare (its first value against each later one).
        #[arg(long)]
        toggle: String,
        #[command(flatten)]
        choice: Choice,
        /// Override a scenario parameter: NAME=VALUE (repeatable).
        #[arg(long = "param", value_name = "NAME=VALUE")]
        param: Vec<String>,
        /// The parameter to vary: NAME=V1,V2,... (a comparison per value).
        #[arg(long, value_name = "NAME=V1,V2")]
        vary: Option<String>,
        /// Run at seeds 1 to N (default: the file's own seed).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1000))]
        seeds: Option<u64>,
        /// Counters or metrics to show: NAME[,NAME] (default: those the [[expect]] blocks name).
        #[arg(long, value_name = "NAME[,NAME]")]
        columns: Option<String>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
        /// Also measure the profile over part of the run only, START_S..END_S seconds of
        /// simulated time (repeatable), as a profiler sampling a window sees it: CPU times
        /// and `*_pct` shares such as try_to_unmap_pct, shown as `NAME [START..END s]`.
        #[arg(long = "profile-window", value_name = "START_S..END_S")]
        profile_window: Vec<String>,
    },
    /// Where two runs first part: step both side by side and print the first step whose
    /// events differ (CPU, task, event, function, code line, what it touched), with both
    /// events. A and B are a toggle's two values (`--toggle ID`, `--values A,B` for an enum),
    /// two presets (`--preset A,B`) or two kernels (`--kernel vA,vB`).
    Diverge {
        /// Scenario file or built-in id.
        scenario: String,
        /// The toggle whose values A and B take.
        #[arg(long)]
        toggle: Option<String>,
        /// With `--toggle`: the two values to compare (default: its first two, off and on).
        #[arg(long, value_name = "A,B")]
        values: Option<String>,
        #[command(flatten)]
        choice: Choice,
        /// Override a scenario parameter: NAME=VALUE (repeatable).
        #[arg(long = "param", value_name = "NAME=VALUE")]
        param: Vec<String>,
        /// Print JSON: `{"scenario", "a", "b", "step", "compared", "reason", "events": [a, b]}`.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        link: LinkArgs,
    },
    /// Every interleaving of a small scenario's CPUs, per value of a toggle: schedules
    /// explored (sleep sets and state caching), distinct outcomes, and every bad outcome (a
    /// lost write, a broken invariant, a stuck run) with the shortest schedule that reaches
    /// it as a `--schedule` that `run` and `trace` replay.
    Explore {
        /// Scenario file or built-in id.
        scenario: String,
        /// Explore once per value of this toggle (default: the scenario's `[explore]
        /// toggle`, else the toggles as set).
        #[arg(long)]
        toggle: Option<String>,
        #[command(flatten)]
        choice: Choice,
        /// Override a scenario parameter: NAME=VALUE (repeatable).
        #[arg(long = "param", value_name = "NAME=VALUE")]
        param: Vec<String>,
        /// States visited at most per toggle value (the search says when it was cut short;
        /// default: the scenario's `[explore] budget`, else 200000).
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
        budget: Option<u64>,
        /// Only schedules with at most this many deviations from the default order (delay
        /// bounding), 0 to 1000, or `any` for every schedule (default: the scenario's
        /// `[explore] delays`, else any).
        #[arg(long, value_name = "N|any", value_parser = parse_delays)]
        delays: Option<DelayBound>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Check the [[expect]] assertions of scenario files or folders (default: the built-ins).
    Check {
        /// Files, folders or built-in ids.
        scenarios: Vec<String>,
        /// Also run every expectation at seeds 1 to N (the file's own seed aside) and say at
        /// how many it holds: a check that holds only at the file's seed shows up here. Exit 1
        /// if one fails at any seed.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1000))]
        seeds: Option<u64>,
    },
    /// List the mechanisms and what each declares: toggles, operations, counters, event kinds.
    Mechanisms {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Print every micro-step of a run with its narration.
    Trace {
        /// Scenario file or built-in id.
        scenario: String,
        #[command(flatten)]
        choice: Choice,
        /// Override a scenario parameter: NAME=VALUE (repeatable).
        #[arg(long = "param", value_name = "NAME=VALUE")]
        param: Vec<String>,
        /// First step to print.
        #[arg(long, default_value_t = 0)]
        from: u64,
        /// Steps to print at most.
        #[arg(long, default_value_t = u64::MAX)]
        limit: u64,
    },
    /// Read a machine's topology from `numactl --hardware` and/or `lscpu` text and print it
    /// (with both: numactl's nodes, memory and distances with lscpu's CPU lists).
    #[command(arg_required_else_help = true)]
    Topology {
        /// A file holding `numactl --hardware` output (`-` for stdin).
        #[arg(long, value_name = "FILE")]
        numactl: Option<String>,
        /// A file holding `lscpu` output of the same machine (`-` for stdin).
        #[arg(long, value_name = "FILE")]
        lscpu: Option<String>,
        /// Print JSON: `{"nodes":[{"id","cpus","size_mb","free_mb"}],"distances"}` (with
        /// `--lscpu` alone: what lscpu says, CPUs, nodes, caches).
        #[arg(long)]
        json: bool,
    },
    /// Read `/proc/zoneinfo` text: each zone's sizes, watermarks and pagesets beside what the
    /// model derives for a zone of that size.
    Zoneinfo {
        /// A file holding `/proc/zoneinfo` (`-` for stdin).
        file: String,
        /// The same machine's `numactl --hardware` output: print, per node, what a run on it
        /// takes from the zoneinfo (`[machine] zoneinfo` beside `numactl`) instead.
        #[arg(long, value_name = "FILE")]
        numactl: Option<String>,
        /// With --numactl: the same machine's `lscpu` output.
        #[arg(long, value_name = "FILE", requires = "numactl")]
        lscpu: Option<String>,
        /// With --numactl: real 4 KiB pages per simulated page (`[machine] mem_scale`).
        #[arg(long, value_name = "N", requires = "numactl", default_value_t = 1)]
        mem_scale: u64,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// The difference of two `/proc/vmstat` snapshots of a real machine (the lab shows it beside
    /// the simulated counters of the same names).
    Vmstat {
        /// The first snapshot (`-` for stdin).
        before: String,
        /// The second snapshot.
        after: String,
        /// Seconds between the two: adds a per-second column.
        #[arg(long, value_name = "SECONDS")]
        interval: Option<f64>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Measure engine speed: steps per second and wall time per scenario.
    Bench {
        /// Files, folders or built-in ids (default: the built-ins).
        scenarios: Vec<String>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
        /// Counters-only runs per scenario; the median is reported (with min and max).
        #[arg(long, default_value_t = 1)]
        runs: usize,
        /// Override a scenario parameter: NAME=VALUE (repeatable).
        #[arg(long = "param", value_name = "NAME=VALUE")]
        param: Vec<String>,
        /// Also prepare the recorded run, seek to `--seeks` random steps (seeded) and
        /// report seek times and the checkpoints' memory.
        #[arg(long)]
        seek: bool,
        /// Random seeks for `--seek`.
        #[arg(long, default_value_t = 200)]
        seeks: usize,
        /// Also time one frame view: `seek` + `frame()` (filling the bulk arrays) +
        /// serde_json of its header, at `--runs` random steps (median reported).
        #[arg(long)]
        frame: bool,
        /// Seed of the random steps for `--seek` and `--frame`.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
}

/// A failure with its exit code.
struct Fail(u8, String);

fn bad(msg: impl Into<String>) -> Fail {
    Fail(2, msg.into())
}

/// `print!` to stdout; a closed pipe (`mmviz ... | head`) ends the program quietly, as
/// command-line tools do, instead of panicking.
macro_rules! out {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = write!(std::io::stdout(), $($t)*) {
            stdout_failed(&e)
        }
    }};
}

/// `println!` to stdout, like [`out!`].
macro_rules! outln {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = writeln!(std::io::stdout(), $($t)*) {
            stdout_failed(&e)
        }
    }};
}

mod explore;
mod sweep;

/// Stdout is gone: quietly for a closed pipe, with a message otherwise.
fn stdout_failed(e: &std::io::Error) -> ! {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
    eprintln!("mmviz: cannot write the output: {e}");
    std::process::exit(1)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match dispatch(cli.cmd) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Fail(code, msg)) => {
            eprintln!("mmviz: {msg}");
            ExitCode::from(code)
        }
    }
}

fn dispatch(cmd: Cmd) -> Result<(), Fail> {
    match cmd {
        Cmd::Run {
            scenario,
            choice,
            param,
            json,
            hash,
            profile,
            profile_window,
            link,
        } => {
            let (name, s) = load_scheduled(&scenario, &param, &choice)?;
            let toggles = toggles(&choice)?;
            let windows = windows(&profile_window)?;
            let r = run::run_with(&s, &toggles, &windows).map_err(|e| bad(format!("{name}: {e}")))?;
            let links = if link.link {
                vec![lab_link(&link, &scenario, &toggles, &param, &link::Compared::One, &s.schedule, 0)?]
            } else {
                Vec::new()
            };
            warn(&name, None, &r);
            let event_hash = if hash {
                Some(run::event_hash(&s, &toggles).map_err(|e| bad(format!("{name}: {e}")))?)
            } else {
                None
            };
            if json {
                let mut v = run_json(&s, &r);
                if let (Some(h), Some(obj)) = (event_hash, v.as_object_mut()) {
                    obj.insert("event_hash".into(), Value::String(format!("{h:016x}")));
                }
                if let (true, Some(obj)) = (profile, v.as_object_mut()) {
                    obj.insert("profile_ns".into(), profile_json(&r));
                }
                if let (Some(l), Some(obj)) = (links.first(), v.as_object_mut()) {
                    obj.insert("link".into(), Value::String(l.clone()));
                }
                outln!("{}", to_json(&v));
            } else {
                let wrows = window_rows(&[&r]);
                let mut names = rows(&[&r]);
                names.extend(wrows.iter().map(String::as_str));
                out!("{}", run::compare_table(&s.id, &[("value".into(), &r)], &names));
                if let Some(h) = event_hash {
                    outln!("event_hash {h:016x}");
                }
                if profile {
                    out!("{}", run::profile_table(&[("value".into(), &r)]));
                    for w in &r.windows {
                        outln!("Over {}:", w.window.label());
                        out!("{}", run::profile_table(&[("value".into(), &windowed(&r, w))]));
                    }
                }
                print_links(&links);
            }
            Ok(())
        }
        Cmd::Compare {
            scenario,
            toggle,
            choice,
            param,
            json,
            columns,
            all,
            profile,
            profile_window,
            link,
        } => compare(
            &scenario,
            toggle.map(|t| toggle_arg(&t)).as_deref(),
            &choice,
            &param,
            &CompareOut {
                json,
                columns,
                all,
                profile,
                windows: windows(&profile_window)?,
                link,
            },
        ),
        Cmd::Sweep {
            scenario,
            toggle,
            choice,
            param,
            vary,
            seeds,
            columns,
            json,
            profile_window,
        } => sweep::sweep(&sweep::SweepArgs {
            scenario: &scenario,
            toggle: &toggle_arg(&toggle),
            choice: &choice,
            param: &param,
            vary: vary.as_deref(),
            seeds,
            columns: columns.as_deref(),
            json,
            windows: windows(&profile_window)?,
        }),
        Cmd::Diverge {
            scenario,
            toggle,
            values,
            choice,
            param,
            json,
            link,
        } => {
            // A renamed toggle's --values are the old id's: read them as the new id's.
            let values = match (toggle.as_deref().and_then(patches::renamed), values) {
                (Some(r), Some(v)) => Some(
                    list(&v)
                        .into_iter()
                        .map(|x| r.translate(&ToggleValue::Enum(x.into())).map(|v| v.to_string()))
                        .collect::<Result<Vec<_>, _>>()
                        .map_err(|e| bad(format!("--values {v}: {e}")))?
                        .join(","),
                ),
                (_, v) => v,
            };
            let toggle = toggle.map(|t| toggle_arg(&t));
            diverge(&scenario, toggle.as_deref(), values.as_deref(), &choice, &param, json, &link)
        }
        Cmd::Check { scenarios, seeds } => check(&scenarios, seeds),
        Cmd::Explore {
            scenario,
            toggle,
            choice,
            param,
            budget,
            delays,
            json,
        } => explore::explore(&explore::ExploreArgs {
            scenario: &scenario,
            toggle: toggle.as_deref(),
            choice: &choice,
            param: &param,
            budget,
            delays,
            json,
        }),
        Cmd::Mechanisms { json } => {
            let ms = mmviz_engine::view::mechanism_views();
            if json {
                outln!("{}", serde_json::to_string_pretty(&ms).map_err(|e| Fail(1, e.to_string()))?);
                return Ok(());
            }
            for m in ms {
                outln!("{}: {}", m.id, m.title);
                if !m.toggles.is_empty() {
                    outln!("  toggles: {}", m.toggles.join(", "));
                }
                for o in &m.ops {
                    let args: Vec<String> = o
                        .args
                        .iter()
                        .map(|a| if a.required { a.name.to_string() } else { format!("[{}]", a.name) })
                        .collect();
                    outln!("  op {} {}: {}", o.name, args.join(" "), o.doc);
                }
                for c in &m.counters {
                    outln!("  counter {}{}: {}", c.name, if c.kernel { "" } else { " (model)" }, c.doc);
                }
                for (what, list) in [("knob", &m.knobs), ("cost", &m.costs)] {
                    for k in list {
                        let default = k.default.map_or("unset".to_string(), |d| d.to_string());
                        outln!("  {what} {} = {default}: {}", k.name, k.doc);
                    }
                }
                let kinds: Vec<&str> = m.events.iter().map(|e| e.name).collect();
                outln!("  events: {}", kinds.join(", "));
            }
            Ok(())
        }
        Cmd::Trace {
            scenario,
            choice,
            param,
            from,
            limit,
        } => {
            let (_, s) = load_scheduled(&scenario, &param, &choice)?;
            // Streams the run step by step: nothing is prepared or stored first.
            let mut sim = Sim::new(&s, &toggles(&choice)?, false);
            while sim.st.step < from && sim.step().is_some() {}
            sim.recording = true;
            let mut printed = 0;
            let mut ended = false;
            while printed < limit {
                let Some(e) = sim.step_event() else {
                    ended = true;
                    break;
                };
                printed += 1;
                let loc = if e.line.is_empty() {
                    e.function.to_string()
                } else {
                    format!("{}:{}", e.function, e.line)
                };
                outln!(
                    "{:>5} {:>9}ns cpu{:<2} {:<18} {:<28} {}",
                    e.step,
                    e.time_ns,
                    e.cpu,
                    e.kind.name(),
                    loc,
                    e.narration
                );
            }
            // A window cut by `--limit` is not a run that ended with work left.
            if ended {
                sim.check_stuck().map_err(|e| bad(format!("{scenario}: {e}")))?;
            }
            Ok(())
        }
        Cmd::Topology { numactl, lscpu, json } => topology(numactl.as_deref(), lscpu.as_deref(), json),
        Cmd::Zoneinfo {
            file,
            numactl: Some(numactl),
            lscpu,
            mem_scale,
            json,
        } => zoneinfo_run_cmd(&file, &numactl, lscpu.as_deref(), mem_scale, json),
        Cmd::Zoneinfo { file, json, .. } => zoneinfo_cmd(&file, json),
        Cmd::Vmstat {
            before,
            after,
            interval,
            json,
        } => vmstat_cmd(&before, &after, interval, json),
        Cmd::Bench {
            scenarios,
            json,
            runs,
            param,
            seek,
            seeks,
            frame,
            seed,
        } => bench(
            &scenarios,
            &BenchOpts {
                json,
                runs: runs.max(1),
                param,
                seek,
                seeks,
                frame,
                seed,
            },
        ),
    }
}

/// A pasted text from a file (`-`: stdin), not necessarily UTF-8 (the parser names the
/// first line it cannot read).
fn read_text(file: &str) -> Result<String, Fail> {
    let max = mmviz_engine::limits::MAX_PASTE_BYTES;
    let bytes = if file == "-" {
        let mut t = Vec::new();
        // One byte more than the limit tells an over-long input without reading all of it.
        std::io::stdin()
            .take(max as u64 + 1)
            .read_to_end(&mut t)
            .map_err(|e| bad(format!("-: cannot read stdin: {e}")))?;
        if t.len() > max {
            return Err(bad(format!(
                "-: stdin is over {} bytes; at most that is read",
                mmviz_engine::limits::group(max as u64)
            )));
        }
        t
    } else {
        let len = std::fs::metadata(file).map_err(|e| bad(format!("{file}: cannot read: {e}")))?.len();
        mmviz_engine::limits::check_bytes(&format!("{file}: the file"), usize::try_from(len).unwrap_or(usize::MAX), max).map_err(bad)?;
        std::fs::read(file).map_err(|e| bad(format!("{file}: cannot read: {e}")))?
    };
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

fn json_line<T: serde::Serialize>(v: &T) -> Result<(), Fail> {
    outln!("{}", serde_json::to_string(v).map_err(|e| Fail(1, e.to_string()))?);
    Ok(())
}

/// `mmviz topology --numactl FILE [--lscpu FILE]`: parse, then print JSON or a short summary.
fn topology(numactl_file: Option<&str>, lscpu_file: Option<&str>, json: bool) -> Result<(), Fail> {
    let l = match lscpu_file {
        Some(f) => Some(lscpu::parse(&read_text(f)?).map_err(|e| bad(format!("{f}: {e}")))?),
        None => None,
    };
    let Some(file) = numactl_file else {
        let Some(l) = l else {
            return Err(bad("topology: give --numactl FILE, --lscpu FILE or both"));
        };
        if json {
            return json_line(&l);
        }
        let cpus = l.cpus.map_or("? CPUs".to_string(), |c| format!("{c} CPU(s)"));
        outln!("{cpus}, {} NUMA node line(s)", l.nodes.len());
        for n in &l.nodes {
            let list = if n.cpus.is_empty() {
                "no CPUs".to_string()
            } else {
                format!("cpus {}", numactl::ranges(&n.cpus))
            };
            outln!("  node {}: {list}", n.id);
        }
        for c in &l.caches {
            outln!(
                "  {}: {} KiB{}",
                c.level,
                c.bytes / 1024,
                if c.total { " in all" } else { " per instance" }
            );
        }
        if let (Some(kb), Some(how)) = (l.llc_slice_kb, &l.llc_note) {
            outln!("llc_slice_kb = {kb} ({how})");
        }
        return Ok(());
    };
    let text = read_text(file)?;
    let hw = numactl::parse(&text).map_err(|e| bad(format!("{file}: {e}")))?;
    let hw = match (&l, lscpu_file) {
        (Some(l), Some(f)) => lscpu::merge(&hw, l).map_err(|e| bad(format!("{f}: {e}")))?,
        _ => hw,
    };
    if json {
        outln!("{}", serde_json::to_string(&hw).map_err(|e| Fail(1, e.to_string()))?);
        return Ok(());
    }
    let cpus: usize = hw.nodes.iter().map(|n| n.cpus.len()).sum();
    outln!("{} node(s), {cpus} CPU(s)", hw.nodes.len());
    for n in &hw.nodes {
        let free = n.free_mb.map_or("free unknown".to_string(), |f| format!("{f} MB free"));
        let list = if n.cpus.is_empty() {
            "no CPUs".to_string()
        } else {
            format!("cpus {}", numactl::ranges(&n.cpus))
        };
        outln!("  node {}: {list}; {} MB, {free}", n.id, n.size_mb);
    }
    match &hw.distances {
        None => outln!("distances: none"),
        Some(d) => {
            outln!("distances:");
            let head: Vec<String> = hw.nodes.iter().map(|n| format!("{:>4}", n.id)).collect();
            outln!("  node{}", head.join(""));
            for (n, row) in hw.nodes.iter().zip(d) {
                let cells: Vec<String> = row.iter().map(|v| format!("{v:>4}")).collect();
                outln!("  {:>3}:{}", n.id, cells.join(""));
            }
        }
    }
    Ok(())
}

/// `mmviz zoneinfo FILE`: each zone's sizes, watermarks and pagesets, and the model's.
fn zoneinfo_cmd(file: &str, json: bool) -> Result<(), Fail> {
    let z = zoneinfo::parse(&read_text(file)?).map_err(|e| bad(format!("{file}: {e}")))?;
    if json {
        return json_line(&z);
    }
    outln!(
        "{:<4} {:<8} {:>11} {:>11} {:>23} {:>23} {:>11}",
        "node",
        "zone",
        "managed",
        "free",
        "min/low/high",
        "model min/low/high",
        "pcp h/b"
    );
    for zone in &z.zones {
        let opt = |v: Option<u64>| v.map_or("-".to_string(), |v| v.to_string());
        let model = zone.model.as_ref().map_or("(not modelled)".to_string(), |m| {
            format!("{}/{}/{}", m.wmarks[0], m.wmarks[1], m.wmarks[2])
        });
        let pcp = zone.pagesets.first().map_or("-".to_string(), |p| format!("{}/{}", p.high, p.batch));
        outln!(
            "{:<4} {:<8} {:>11} {:>11} {:>23} {:>23} {:>11}",
            zone.node,
            zone.name,
            opt(zone.managed),
            opt(zone.free),
            format!("{}/{}/{}", zone.min, zone.low, zone.high),
            model,
            pcp
        );
    }
    outln!("read but not used by the model: {}", z.unused.join(", "));
    Ok(())
}

/// `mmviz zoneinfo FILE --numactl FILE [--lscpu FILE] [--mem-scale N]`: per node, the zone a
/// run on that machine gets (sizes and watermarks real and simulated, the pageset sizes and
/// where each comes from).
fn zoneinfo_run_cmd(file: &str, numactl_file: &str, lscpu_file: Option<&str>, mem_scale: u64, json: bool) -> Result<(), Fail> {
    if mem_scale == 0 {
        return Err(bad("--mem-scale 0: expected real pages per simulated page, 1 or more"));
    }
    let hw = numactl::parse(&read_text(numactl_file)?).map_err(|e| bad(format!("{numactl_file}: {e}")))?;
    let hw = match lscpu_file {
        Some(f) => {
            let l = lscpu::parse(&read_text(f)?).map_err(|e| bad(format!("{f}: {e}")))?;
            lscpu::merge(&hw, &l).map_err(|e| bad(format!("{f}: {e}")))?
        }
        None => hw,
    };
    let z = zoneinfo::parse(&read_text(file)?).map_err(|e| bad(format!("{file}: {e}")))?;
    let nodes = zoneinfo::node_zones(&z, &hw, mem_scale).map_err(|e| bad(format!("{file}: {e}")))?;
    if json {
        return json_line(&nodes);
    }
    outln!("the run's zone per node at mem_scale {mem_scale} (real 4 KiB pages per simulated page):");
    outln!(
        "{:<4} {:<20} {:>11} {:>9} {:>23} {:>17} {:>6} {:>17}",
        "node",
        "zones merged",
        "managed",
        "simulated",
        "min/low/high (sim)",
        "pcp from",
        "batch",
        "high_min/high_max"
    );
    for n in &nodes {
        let opt = |v: Option<u32>| v.map_or("model".to_string(), |v| v.to_string());
        let max = match (n.high_max, n.high_max_pasted) {
            (Some(v), true) => v.to_string(),
            (Some(v), false) => format!("{v}*"),
            (None, _) => "model".to_string(),
        };
        outln!(
            "{:<4} {:<20} {:>11} {:>9} {:>23} {:>17} {:>6} {:>17}",
            n.node,
            if n.zones.is_empty() {
                "(no memory)".to_string()
            } else {
                n.zones.join("+")
            },
            n.managed,
            n.sim_managed,
            format!("{}/{}/{}", n.sim_wmarks[0], n.sim_wmarks[1], n.sim_wmarks[2]),
            n.pageset_zone.as_deref().unwrap_or("(none printed)"),
            opt(n.batch),
            format!("{}/{max}", opt(n.high_min))
        );
    }
    outln!(
        "sizes and watermarks are divided by mem_scale; pageset sizes are per CPU, used as printed at any scale\n\
         * high_max not printed by this kernel: derived from the real zone (zone_highsize, fraction 8)\n\
         model: not printed, the model derives it from the simulated zone"
    );
    let crowded: Vec<String> = nodes
        .iter()
        .filter(|n| n.pcp_share >= 25)
        .map(|n| format!("node {} {} %", n.node, n.pcp_share))
        .collect();
    if !crowded.is_empty() {
        outln!(
            "at this scale the CPUs' lists can hold a large share of a node's simulated memory at high_min ({}): a smaller mem_scale keeps it as on the real machine",
            crowded.join(", ")
        );
    }
    Ok(())
}

/// `mmviz vmstat BEFORE AFTER [--interval S]`: what changed between two snapshots.
fn vmstat_cmd(before: &str, after: &str, interval: Option<f64>, json: bool) -> Result<(), Fail> {
    if let Some(i) = interval {
        if !(i.is_finite() && i > 0.0) {
            return Err(bad(format!("--interval {i}: expected seconds above 0")));
        }
    }
    let d = vmstat::delta(&read_text(before)?, &read_text(after)?).map_err(|e| {
        let file = if e.message.starts_with("before:") { before } else { after };
        bad(format!("{file}: {e}"))
    })?;
    if json {
        return json_line(&d);
    }
    for c in d.changes.iter().filter(|c| c.delta != 0) {
        match interval {
            Some(i) => outln!("{:<40} {:>16} {:>16.1}/s", c.name, c.delta, c.delta as f64 / i),
            None => outln!("{:<40} {:>16}", c.name, c.delta),
        }
    }
    let same = d.changes.iter().filter(|c| c.delta == 0).count();
    outln!(
        "{} counter(s) in both, {same} unchanged; only before: {}; only after: {}",
        d.changes.len(),
        d.only_before.len(),
        d.only_after.len()
    );
    Ok(())
}

fn to_json(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}

/// Table rows: every counter, the headline metrics, then any other metric a run has
/// (lock statistics appear only for lock classes the run used).
fn rows(results: &[&RunResult]) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Counter::all()
        .iter()
        .map(|c| c.name())
        .chain(["sim_time_ns", "accesses_per_ms", "throughput", "steps"])
        .collect();
    for r in results {
        for name in r.metrics.keys() {
            if !out.contains(name) {
                out.push(name);
            }
        }
    }
    out
}

/// The rows of the metrics over each profile window (`NAME [START..END s]`).
fn window_rows(results: &[&RunResult]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for r in results {
        for name in r.window_rows() {
            if !out.contains(&name) {
                out.push(name);
            }
        }
    }
    out
}

fn run_json(s: &Scenario, r: &RunResult) -> Value {
    let toggles: Map<String, Value> = r
        .toggles
        .iter()
        .map(|(k, v)| {
            let v = match v {
                ToggleValue::Bool(b) => Value::Bool(*b),
                ToggleValue::Enum(e) => Value::String(e.clone()),
            };
            (k.to_string(), v)
        })
        .collect();
    let counters: Map<String, Value> = r.counters.iter().map(|(c, v)| (c.name().to_string(), json!(v))).collect();
    let metrics: Map<String, Value> = r.metrics.iter().map(|(k, v)| (k.to_string(), json!(v))).collect();
    let mut v = json!({ "scenario": s.id, "toggles": toggles, "counters": counters, "metrics": metrics, "steps": r.steps });
    if let (false, Some(obj)) = (r.windows.is_empty(), v.as_object_mut()) {
        let ws: Vec<Value> = r
            .windows
            .iter()
            .map(|w| {
                let m: Map<String, Value> = w.metrics.iter().map(|(k, v)| (k.to_string(), json!(v))).collect();
                json!({ "start_s": w.window.start_ns as f64 / 1e9, "end_s": w.window.end_ns as f64 / 1e9, "metrics": m })
            })
            .collect();
        obj.insert("windows".into(), json!(ws));
    }
    let warnings = r.warnings();
    if let (false, Some(obj)) = (warnings.is_empty(), v.as_object_mut()) {
        obj.insert("warnings".into(), json!(warnings));
    }
    v
}

/// Prints a run's warnings ([`RunResult::warnings`]) on stderr, naming the scenario and,
/// in a comparison, the run's column.
fn warn(name: &str, col: Option<&str>, r: &RunResult) {
    for w in r.warnings() {
        match col {
            Some(c) => eprintln!("mmviz: warning: {name} ({c}): {w}"),
            None => eprintln!("mmviz: warning: {name}: {w}"),
        }
    }
}

/// The explicit toggles of a `--kernel`/`--preset`/`--set` choice.
fn toggles(choice: &Choice) -> Result<ToggleSet, Fail> {
    let mut t = ToggleSet::default();
    if let Some(k) = &choice.kernel {
        t.set_kernel(Kernel::parse(k).map_err(|e| bad(format!("--kernel: {e}")))?);
    }
    if let Some(p) = &choice.preset {
        t.apply_presets(p).map_err(|e| bad(format!("--preset: {e}")))?;
    }
    for (id, v) in sets(&choice.set)? {
        t.set(&id, v).map_err(|e| bad(format!("--set {id}: {e}")))?;
    }
    Ok(t)
}

/// Prints `mmviz: note: {msg}` on stderr, once per message (the toggles of a choice are
/// read once per run compared).
fn note_once(msg: String) {
    static SAID: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    if let Ok(mut said) = SAID.lock() {
        if !said.contains(&msg) {
            eprintln!("mmviz: note: {msg}");
            said.push(msg);
        }
    }
}

/// A toggle id from the command line: a renamed one (see `patches::RENAMED`) is replaced
/// by its successor, with a note on stderr saying so.
fn toggle_arg(id: &str) -> String {
    match patches::renamed(id) {
        Some(r) => {
            note_once(r.note());
            r.new.to_string()
        }
        None => id.to_string(),
    }
}

/// `--set ID=VALUE` arguments, checked.
fn sets(set: &[String]) -> Result<Vec<(String, ToggleValue)>, Fail> {
    set.iter()
        .map(|s| {
            let (id, v) = s
                .split_once('=')
                .ok_or_else(|| bad(format!("--set `{s}`: expected ID=VALUE, e.g. numa_delay_map=off")))?;
            if let Some(r) = patches::renamed(id) {
                let value = r
                    .translate(&ToggleValue::Enum(v.into()))
                    .map_err(|e| bad(format!("--set {s}: {e}")))?;
                note_once(format!("{}; --set {s} runs {}={value}", r.note(), r.new));
                return Ok((r.new.to_string(), value));
            }
            let patch = patches::find(id.trim()).ok_or_else(|| {
                bad(format!(
                    "--set {s}: unknown toggle `{}` (known toggles: {})",
                    id.trim(),
                    patches::known_ids()
                ))
            })?;
            let v = patch.parse_value(v).map_err(|e| bad(format!("--set {s}: {e}")))?;
            Ok((id.trim().to_string(), v))
        })
        .collect()
}

/// Comma-separated names, trimmed, empties dropped.
fn list(text: &str) -> Vec<&str> {
    text.split(',').map(str::trim).filter(|n| !n.is_empty()).collect()
}

/// How `mmviz compare` prints.
struct CompareOut {
    json: bool,
    columns: Option<String>,
    all: bool,
    profile: bool,
    windows: Vec<run::Window>,
    link: LinkArgs,
}

/// `--profile-window START_S..END_S` arguments, checked.
fn windows(args: &[String]) -> Result<Vec<run::Window>, Fail> {
    args.iter()
        .map(|a| run::Window::parse(a).map_err(|e| bad(format!("--profile-window {e}"))))
        .collect()
}

/// A run's result as its window `w` shows it (metrics and profile over the window), for
/// the profile table.
fn windowed(r: &RunResult, w: &run::WindowResult) -> RunResult {
    RunResult {
        metrics: w.metrics.clone(),
        profile: w.profile.clone(),
        windows: Vec::new(),
        ..r.clone()
    }
}

/// `mmviz compare`: one run per value of `--toggle`, per `--preset` name or per
/// `--kernel` version (exactly one of them varies; the others set the base).
fn compare(scenario: &str, toggle: Option<&str>, choice: &Choice, param: &[String], out: &CompareOut) -> Result<(), Fail> {
    // A bad column name is found before the runs.
    let columns = out.columns.as_deref().map(list).unwrap_or_default();
    if let Some(bad_name) = columns.iter().find(|c| !run::is_value_name(c)) {
        return Err(bad(format!(
            "--columns: `{bad_name}` is neither a counter nor a metric (`mmviz mechanisms` lists them)"
        )));
    }
    let (name, s) = load_scheduled(scenario, param, choice)?;
    let presets = choice.preset.as_deref().map(list).unwrap_or_default();
    let kernels = choice.kernel.as_deref().map(list).unwrap_or_default();
    let fail = |e: mmviz_engine::simulation::Error| bad(format!("{name}: {e}"));
    // The lab shows two runs side by side: one link per later run, against the first.
    let mut links: Vec<String> = Vec::new();
    let (axis, cols, runs): (Value, Vec<String>, Vec<RunResult>) = if let Some(id) = toggle {
        if presets.len() > 1 || kernels.len() > 1 {
            return Err(bad("compare varies one thing: --toggle, or --preset A,B, or --kernel vA,vB"));
        }
        let base = toggles(choice)?;
        let runs = run::compare_with(&s, &base, id, &out.windows).map_err(fail)?;
        if out.link.link {
            if let Some((first, _)) = runs.first() {
                for (v, _) in runs.iter().skip(1) {
                    let c = link::Compared::Toggle {
                        id: id.to_string(),
                        a: first.clone(),
                        b: v.clone(),
                    };
                    links.push(lab_link(&out.link, scenario, &base, param, &c, &s.schedule, 0)?);
                }
            }
        }
        let cols = runs.iter().map(|(v, _)| format!("{id}={v}")).collect();
        (json!({ "toggle": id }), cols, runs.into_iter().map(|(_, r)| r).collect())
    } else if presets.len() > 1 || (presets.len() == 1 && kernels.len() <= 1) {
        if kernels.len() > 1 {
            return Err(bad("compare varies one thing: --preset A,B or --kernel vA,vB, not both"));
        }
        let base = toggles(&Choice {
            preset: None,
            ..choice.clone()
        })?;
        let runs = run::compare_presets_with(&s, &base, &presets, &sets(&choice.set)?, &out.windows).map_err(fail)?;
        if out.link.link {
            let key = |p: &str| link::preset_key(p).ok_or_else(|| bad(format!("--preset: unknown preset `{p}`")));
            let first = key(presets[0])?;
            for p in presets.iter().skip(1) {
                let c = link::Compared::Presets {
                    a: first.clone(),
                    b: key(p)?,
                };
                links.push(lab_link(&out.link, scenario, &base, param, &c, &s.schedule, 0)?);
            }
        }
        (json!({ "presets": presets }), presets.iter().map(|p| p.to_string()).collect(), runs)
    } else if !kernels.is_empty() {
        let mut sets = Vec::new();
        for k in &kernels {
            sets.push(toggles(&Choice {
                kernel: Some((*k).to_string()),
                ..choice.clone()
            })?);
        }
        let runs = run::run_many_with(&s, &sets, &out.windows).map_err(fail)?;
        if out.link.link {
            let base = toggles(&Choice {
                kernel: None,
                ..choice.clone()
            })?;
            for k in kernels.iter().skip(1) {
                let c = link::Compared::Kernels {
                    a: kernels[0].to_string(),
                    b: k.to_string(),
                };
                links.push(lab_link(&out.link, scenario, &base, param, &c, &s.schedule, 0)?);
            }
        }
        (json!({ "kernels": kernels }), kernels.iter().map(|k| k.to_string()).collect(), runs)
    } else {
        return Err(bad(
            "compare needs what to vary: --toggle ID, --preset A,B (named presets) or --kernel vA,vB (kernel versions)",
        ));
    };
    for (col, r) in cols.iter().zip(&runs) {
        warn(&name, Some(col), r);
    }
    if out.json {
        let runs_json = runs
            .iter()
            .map(|r| {
                let mut v = run_json(&s, r);
                if let (true, Some(obj)) = (out.profile, v.as_object_mut()) {
                    obj.insert("profile_ns".into(), profile_json(r));
                }
                v
            })
            .collect::<Vec<_>>();
        let mut json_out = json!({ "scenario": s.id, "runs": runs_json });
        if let (Some(o), Some(a)) = (json_out.as_object_mut(), axis.as_object()) {
            for (k, v) in a {
                o.insert(k.clone(), v.clone());
            }
            if out.link.link {
                o.insert("links".into(), json!(links));
            }
        }
        outln!("{}", to_json(&json_out));
    } else {
        let cols: Vec<(String, &RunResult)> = cols.into_iter().zip(runs.iter()).collect();
        let results: Vec<&RunResult> = runs.iter().collect();
        if columns.is_empty() {
            let mut names = rows(&results);
            if !out.all {
                // Counters no run moved say nothing about the difference.
                names.retain(|n| Counter::from_name(n).is_none() || results.iter().any(|r| r.value(n).is_some_and(|v| v != 0.0)));
            }
            let wrows = window_rows(&results);
            names.extend(wrows.iter().map(String::as_str));
            out!("{}", run::compare_table(&s.id, &cols, &names));
        } else {
            out!("{}", run::runs_table(&s.id, &cols, &columns));
        }
        if out.profile {
            out!("{}", run::profile_table(&cols));
            for (i, w) in out.windows.iter().enumerate() {
                let over: Vec<RunResult> = runs
                    .iter()
                    .map(|r| r.windows.get(i).map_or_else(|| r.clone(), |x| windowed(r, x)))
                    .collect();
                let wcols: Vec<(String, &RunResult)> = cols.iter().map(|(c, _)| c.clone()).zip(over.iter()).collect();
                outln!("Over {}:", w.label());
                out!("{}", run::profile_table(&wcols));
            }
        }
        print_links(&links);
    }
    Ok(())
}

/// The lab link for a run or a comparison of scenario `arg` (a file or a built-in id).
fn lab_link(
    args: &LinkArgs,
    arg: &str,
    toggles: &ToggleSet,
    param: &[String],
    compared: &link::Compared,
    schedule: &mmviz_engine::core::Schedule,
    step: u64,
) -> Result<String, Fail> {
    let (_, text) = read(arg)?;
    let base = link::base_url(args.base.as_deref());
    // A file that holds a built-in's text (scenarios/x.toml) is linked as that built-in.
    let builtin = builtin::BUILTINS.iter().find(|b| b.text == text);
    let scenario = match builtin {
        Some(b) => link::LinkScenario::Builtin { id: b.id, text: b.text },
        None => link::LinkScenario::Custom { text: &text },
    };
    let url = link::lab_link(&base, &scenario, toggles, &params(param)?, compared, &schedule.to_string(), step);
    // The lab refuses a longer link (web/src/share/url.ts reads the same limit).
    let fragment = url.split_once('#').map_or(0, |(_, f)| f.len());
    if fragment > mmviz_engine::limits::MAX_LINK_CHARS {
        return Err(bad(format!(
            "--link: the link to {arg} would be {} characters after `#`; the lab reads at most {} (limits.rs MAX_LINK_CHARS): link a shorter scenario",
            mmviz_engine::limits::group(fragment as u64),
            mmviz_engine::limits::group(mmviz_engine::limits::MAX_LINK_CHARS as u64)
        )));
    }
    Ok(url)
}

/// Prints links under a table: "link: URL" (or "link A/B: URL" for a comparison).
fn print_links(links: &[String]) {
    for l in links {
        outln!("link: {l}");
    }
}

/// A and B of `mmviz diverge`: what a lab link compares, the toggles both start from, and
/// each run's label and toggle set.
type TwoRuns = (link::Compared, ToggleSet, [(String, ToggleSet); 2]);

/// A and B of `mmviz diverge` (see [`TwoRuns`]).
fn two_choices(toggle: Option<&str>, values: Option<&str>, choice: &Choice) -> Result<TwoRuns, Fail> {
    let presets = choice.preset.as_deref().map(list).unwrap_or_default();
    let kernels = choice.kernel.as_deref().map(list).unwrap_or_default();
    let varied = usize::from(toggle.is_some()) + usize::from(presets.len() > 1) + usize::from(kernels.len() > 1);
    if varied != 1 {
        return Err(bad(
            "diverge compares two runs that differ in one thing: --toggle ID [--values A,B], --preset A,B or --kernel vA,vB",
        ));
    }
    let pair = |sets: Vec<(String, ToggleSet)>| -> Result<[(String, ToggleSet); 2], Fail> {
        let n = sets.len();
        <[(String, ToggleSet); 2]>::try_from(sets).map_err(|_| {
            bad(format!(
                "diverge compares exactly two runs, not {n}: name two values, presets or kernels"
            ))
        })
    };
    if let Some(id) = toggle {
        let patch =
            patches::find(id).ok_or_else(|| bad(format!("--toggle: unknown toggle `{id}` (known toggles: {})", patches::known_ids())))?;
        let vals: Vec<ToggleValue> = match values {
            Some(v) => list(v)
                .into_iter()
                .map(|x| patch.parse_value(x).map_err(|e| bad(format!("--values {x}: {e}"))))
                .collect::<Result<_, _>>()?,
            None if patch.values().len() == 2 => patch.values(),
            None => {
                return Err(bad(format!(
                    "--toggle {id} has {} values ({}): pick two with --values A,B",
                    patch.values().len(),
                    patch.values().iter().map(|v| v.to_string()).collect::<Vec<_>>().join(", ")
                )))
            }
        };
        let base = toggles(choice)?;
        let runs = pair(
            vals.iter()
                .map(|v| {
                    let mut t = base.clone();
                    t.set(id, v.clone()).map_err(|e| bad(format!("--toggle {id}: {e}")))?;
                    Ok((format!("{id}={v}"), t))
                })
                .collect::<Result<_, Fail>>()?,
        )?;
        let compared = link::Compared::Toggle {
            id: id.to_string(),
            a: vals[0].clone(),
            b: vals[1].clone(),
        };
        return Ok((compared, base, runs));
    }
    if presets.len() > 1 {
        let runs = pair(
            presets
                .iter()
                .map(|p| {
                    let t = toggles(&Choice {
                        preset: Some((*p).to_string()),
                        ..choice.clone()
                    })?;
                    Ok((p.to_string(), t))
                })
                .collect::<Result<_, Fail>>()?,
        )?;
        let key = |p: &str| link::preset_key(p).ok_or_else(|| bad(format!("--preset: unknown preset `{p}`")));
        let compared = link::Compared::Presets {
            a: key(presets[0])?,
            b: key(presets[1])?,
        };
        let base = toggles(&Choice {
            preset: None,
            ..choice.clone()
        })?;
        return Ok((compared, base, runs));
    }
    let runs = pair(
        kernels
            .iter()
            .map(|k| {
                let t = toggles(&Choice {
                    kernel: Some((*k).to_string()),
                    ..choice.clone()
                })?;
                Ok((k.to_string(), t))
            })
            .collect::<Result<_, Fail>>()?,
    )?;
    let compared = link::Compared::Kernels {
        a: kernels[0].to_string(),
        b: kernels[1].to_string(),
    };
    let base = toggles(&Choice {
        kernel: None,
        ..choice.clone()
    })?;
    Ok((compared, base, runs))
}

/// The event of step `step` of a run (narrated), replayed from the start.
fn event_at(s: &Scenario, t: &ToggleSet, step: u64) -> Option<mmviz_engine::trace::Event> {
    let mut sim = Sim::new(s, t, false);
    while sim.st.step < step {
        sim.step()?;
    }
    sim.recording = true;
    sim.step_event()
}

/// `mmviz diverge`: the first step where two runs of one scenario differ.
fn diverge(
    scenario: &str,
    toggle: Option<&str>,
    values: Option<&str>,
    choice: &Choice,
    param: &[String],
    json: bool,
    link: &LinkArgs,
) -> Result<(), Fail> {
    let (name, s) = load_scheduled(scenario, param, choice)?;
    let (compared, base, [(la, ta), (lb, tb)]) = two_choices(toggle, values, choice)?;
    let d = mmviz_engine::diverge::DivergenceSearch::new(&s, &ta, &tb).run();
    // The link opens both runs at the frame that shows the step where they part.
    let links = if link.link {
        vec![lab_link(
            link,
            scenario,
            &base,
            param,
            &compared,
            &s.schedule,
            d.step.map_or(0, |x| x + 1),
        )?]
    } else {
        Vec::new()
    };
    let events: Vec<Option<mmviz_engine::trace::Event>> = match d.step {
        Some(step) => vec![event_at(&s, &ta, step), event_at(&s, &tb, step)],
        None => Vec::new(),
    };
    if json {
        let evs: Vec<Value> = events
            .iter()
            .map(|e| match e {
                Some(e) => json!({ "step": e.step, "time_ns": e.time_ns, "cpu": e.cpu, "kind": e.kind.name(),
                    "function": e.function, "line": e.line, "narration": e.narration }),
                None => Value::Null,
            })
            .collect();
        let mut v = json!({ "scenario": s.id, "a": la, "b": lb, "step": d.step, "compared": d.compared,
            "reason": d.reason, "events": evs });
        if let (Some(l), Some(obj)) = (links.first(), v.as_object_mut()) {
            obj.insert("link".into(), Value::String(l.clone()));
        }
        outln!("{}", to_json(&v));
        return Ok(());
    }
    let Some(step) = d.step else {
        outln!("{name}: {la} and {lb} take the same {} steps: the runs never differ", d.compared);
        print_links(&links);
        return Ok(());
    };
    outln!(
        "{name}: {la} and {lb} first differ at step {step} (steps 0 to {} are the same)",
        step.saturating_sub(1)
    );
    if let Some(r) = &d.reason {
        outln!("{r}");
    }
    for (label, e) in [("A", &events[0]), ("B", &events[1])] {
        match e {
            Some(e) => outln!(
                "  {label}  step {}  {} ns  cpu{}  {}  {}:{}  {}",
                e.step,
                e.time_ns,
                e.cpu,
                e.kind.name(),
                e.function,
                e.line,
                e.narration
            ),
            None => outln!("  {label}  (the run has ended)"),
        }
    }
    print_links(&links);
    Ok(())
}

/// A run's profile as JSON: `{function: inclusive ns}`.
fn profile_json(r: &RunResult) -> Value {
    Value::Object(
        r.profile
            .iter()
            .map(|&(f, ns)| (f.to_string(), json!(ns)))
            .collect::<Map<String, Value>>(),
    )
}

fn params(param: &[String]) -> Result<Vec<(String, i64)>, Fail> {
    param
        .iter()
        .map(|p| {
            let (k, v) = p
                .split_once('=')
                .ok_or_else(|| bad(format!("--param `{p}`: expected NAME=VALUE")))?;
            let v: i64 = v
                .trim()
                .parse()
                .map_err(|_| bad(format!("--param {p}: `{}` is not a whole number", v.trim())))?;
            Ok((k.trim().to_string(), v))
        })
        .collect()
}

/// Reads a scenario file (or a built-in id) and parses it with `--param` overrides.
fn load(arg: &str, param: &[String]) -> Result<(String, Scenario), Fail> {
    let (name, text) = read(arg)?;
    let s = scenario::parse(&text, &params(param)?).map_err(|e| bad(format!("{name}: {e}")))?;
    Ok((name, s))
}

/// `--delays`: a bound, or none (`any`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct DelayBound(pub Option<u32>);

fn parse_delays(text: &str) -> Result<DelayBound, String> {
    if text == "any" {
        return Ok(DelayBound(None));
    }
    match text.parse::<u32>() {
        Ok(n) if n <= 1000 => Ok(DelayBound(Some(n))),
        _ => Err(format!("`{text}` is neither a whole number from 0 to 1000 nor `any`")),
    }
}

/// [`load`] with the choice's `--schedule` (checked against the scenario's machine).
fn load_scheduled(arg: &str, param: &[String], choice: &Choice) -> Result<(String, Scenario), Fail> {
    let (name, mut s) = load(arg, param)?;
    if let Some(text) = &choice.schedule {
        let schedule = mmviz_engine::core::Schedule::parse(text).map_err(|e| bad(format!("--schedule: {e}")))?;
        schedule
            .check_cpus(s.topology.nr_cpus())
            .map_err(|e| bad(format!("--schedule: {e} ({name})")))?;
        s.schedule = schedule;
    }
    Ok((name, s))
}

fn read(arg: &str) -> Result<(String, String), Fail> {
    let path = Path::new(arg);
    if path.exists() {
        return Ok((arg.to_string(), read_scenario_file(arg)?));
    }
    if let Some(b) = builtin::find(arg) {
        return Ok((format!("builtin:{}", b.id), b.text.to_string()));
    }
    Err(bad(format!(
        "{arg}: no such file, and no built-in scenario has that id (built-ins: {})",
        builtin::BUILTINS.iter().map(|b| b.id).collect::<Vec<_>>().join(", ")
    )))
}

/// A scenario file's text: refused at once when larger than the limit (before reading it), and
/// named by line and column when it is not UTF-8 text (binary garbage, a compressed file).
fn read_scenario_file(arg: &str) -> Result<String, Fail> {
    let path = Path::new(arg);
    let meta = std::fs::metadata(path).map_err(|e| bad(format!("{arg}: cannot read: {e}")))?;
    if meta.is_dir() {
        return Err(bad(format!("{arg}: a folder, not a scenario file (`mmviz check` takes folders)")));
    }
    let len = usize::try_from(meta.len()).unwrap_or(usize::MAX);
    mmviz_engine::limits::check_bytes(&format!("{arg}: the file"), len, mmviz_engine::limits::MAX_SCENARIO_BYTES).map_err(bad)?;
    let bytes = std::fs::read(path).map_err(|e| bad(format!("{arg}: cannot read: {e}")))?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let before = &e.as_bytes()[..at];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let column = at - before.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1) + 1;
        bad(format!(
            "{arg}: line {line}, column {column}: not UTF-8 text (byte {at}); a scenario is a TOML text file"
        ))
    })
}

/// Expands folders to their `*.toml` files (sorted); no arguments means the built-ins.
fn expand(args: &[String]) -> Result<Vec<String>, Fail> {
    if args.is_empty() {
        return Ok(builtin::BUILTINS.iter().map(|b| b.id.to_string()).collect());
    }
    let mut out = Vec::new();
    for a in args {
        let p = PathBuf::from(a);
        if p.is_dir() {
            let mut files: Vec<String> = std::fs::read_dir(&p)
                .map_err(|e| bad(format!("{a}: cannot list: {e}")))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "toml"))
                .map(|p| p.display().to_string())
                .collect();
            files.sort();
            if files.is_empty() {
                return Err(bad(format!("{a}: no .toml scenario files in this folder")));
            }
            out.extend(files);
        } else {
            out.push(a.clone());
        }
    }
    Ok(out)
}

fn check(args: &[String], seeds: Option<u64>) -> Result<(), Fail> {
    let mut failed = 0usize;
    let mut passed = 0usize;
    let mut fragile = 0usize;
    for a in expand(args)? {
        let (name, s) = load(&a, &[])?;
        let outcomes = run::check(&s).map_err(|e| bad(format!("{name}: {e}")))?;
        // `--seeds` runs the single-seed expectations again at other seeds; one measured
        // over seeds already (`seeds = N`) is not.
        let single: Vec<bool> = outcomes.iter().map(|o| o.expect.seeds.is_none()).collect();
        if outcomes.is_empty() {
            outln!("{name}: no [[expect]] blocks");
        }
        // Per expectation, the other seeds' (seed, value, ok), in order.
        let mut others: Vec<Vec<(u64, f64, bool)>> = vec![Vec::new(); outcomes.len()];
        if !outcomes.is_empty() {
            for seed in (1..=seeds.unwrap_or(0)).filter(|&x| x != s.seed) {
                let at = Scenario { seed, ..s.clone() };
                let os = run::check_with(&at, false).map_err(|e| bad(format!("{name} (seed {seed}): {e}")))?;
                let slots = single.iter().enumerate().filter(|(_, &one)| one).map(|(i, _)| i);
                for (i, o) in slots.zip(os) {
                    others[i].push((seed, o.value, o.ok));
                }
            }
        }
        for (o, other) in outcomes.into_iter().zip(others) {
            let e = &o.expect;
            let label = e.choice.label();
            let mut set = if label.is_empty() { String::new() } else { format!(" [{label}]") };
            if let Some(vs) = &e.vs {
                let l = vs.label();
                set.push_str(&format!(" vs [{}]", if l.is_empty() { "scenario defaults" } else { &l }));
            }
            let mut bounds = Vec::new();
            if let Some(x) = e.eq {
                bounds.push(format!("= {x}"));
            }
            if let Some(x) = e.min {
                bounds.push(format!(">= {x}"));
            }
            if let Some(x) = e.max {
                bounds.push(format!("<= {x}"));
            }
            if let Some((a, b)) = e.window {
                set.push_str(&format!(" over {}", run::Window { start_ns: a, end_ns: b }.label()));
            }
            let mean = e.seeds.map_or(String::new(), |n| format!("mean of seeds 1-{n} "));
            outln!(
                "{} {name}:{} {}{set}: {mean}{:.4} (want {})",
                if o.ok { "ok  " } else { "FAIL" },
                e.line,
                e.name,
                o.value,
                bounds.join(", ")
            );
            if !o.per_seed.is_empty() {
                let each: Vec<String> = o.per_seed.iter().map(|(seed, v)| format!("{seed}: {v:.4}")).collect();
                outln!("       seeds {}", each.join(", "));
            }
            for w in &o.warnings {
                outln!("       warning: {w}");
            }
            if o.ok {
                passed += 1;
            } else {
                failed += 1;
            }
            if !other.is_empty() {
                let held = other.iter().filter(|x| x.2).count();
                let (lo, hi) = other
                    .iter()
                    .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| (lo.min(x.1), hi.max(x.1)));
                let misses: Vec<String> = other.iter().filter(|x| !x.2).map(|x| format!("{} ({:.4})", x.0, x.1)).collect();
                if misses.is_empty() {
                    outln!("       other seeds: {held}/{} hold, {lo:.4} to {hi:.4}", other.len());
                } else {
                    fragile += 1;
                    outln!(
                        "       other seeds: {held}/{} hold, {lo:.4} to {hi:.4}; fails at seed {}",
                        other.len(),
                        misses.join(", ")
                    );
                }
            }
        }
    }
    if seeds.is_some() {
        outln!("{passed} passed, {failed} failed; {fragile} fail at another seed");
    } else {
        outln!("{passed} passed, {failed} failed");
    }
    if failed > 0 {
        return Err(Fail(1, format!("{failed} expectation(s) failed")));
    }
    if fragile > 0 {
        return Err(Fail(1, format!("{fragile} expectation(s) fail at another seed")));
    }
    Ok(())
}

/// Options of `mmviz bench`.
struct BenchOpts {
    json: bool,
    runs: usize,
    param: Vec<String>,
    seek: bool,
    seeks: usize,
    frame: bool,
    seed: u64,
}

/// Median, 95th percentile, min and max of `xs` (sorted in place).
fn spread(xs: &mut [f64]) -> Value {
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    if n == 0 {
        return Value::Null;
    }
    let median = if n % 2 == 1 { xs[n / 2] } else { (xs[n / 2 - 1] + xs[n / 2]) / 2.0 };
    let p95 = xs[((n as f64 * 0.95).ceil() as usize).clamp(1, n) - 1];
    json!({ "median": median, "p95": p95, "min": xs[0], "max": xs[n - 1], "n": n })
}

fn field(v: &Value, k: &str) -> f64 {
    v.get(k).and_then(Value::as_f64).unwrap_or(0.0)
}

/// splitmix64: the seeded steps for `--seek` and `--frame` (no dependency needed).
struct SplitMix(u64);

impl SplitMix {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        if n == 0 {
            0
        } else {
            z % n
        }
    }
}

fn ms(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn bench(args: &[String], o: &BenchOpts) -> Result<(), Fail> {
    let mut rows = Vec::new();
    for a in expand(args)? {
        let (name, s) = load(&a, &o.param)?;
        let mut walls = Vec::with_capacity(o.runs);
        let mut steps = 0;
        for _ in 0..o.runs {
            let t0 = Instant::now();
            let r = run::run(&s, &ToggleSet::default()).map_err(|e| bad(format!("{name}: {e}")))?;
            walls.push(t0.elapsed().as_secs_f64());
            if steps == 0 {
                warn(&name, None, &r);
            }
            steps = r.steps;
        }
        let wall_s = spread(&mut walls);
        let wall = field(&wall_s, "median");
        // Recording (narration, checkpoints) is what the lab pays; only teaching scenarios are recorded.
        let wall_rec = if builtin::is_teaching(&s.id) {
            let t1 = Instant::now();
            Simulation::from_scenario(s.clone(), &ToggleSet::default()).map_err(|e| bad(format!("{name}: {e}")))?;
            Some(t1.elapsed().as_secs_f64())
        } else {
            None
        };
        let steps_per_s = if wall > 0.0 { steps as f64 / wall } else { 0.0 };
        let mut row = json!({ "scenario": s.id, "steps": steps, "wall_s": wall, "steps_per_s": steps_per_s, "recorded_wall_s": wall_rec });
        if o.runs > 1 {
            let (lo, hi) = (field(&wall_s, "min"), field(&wall_s, "max"));
            row["runs"] = json!(o.runs);
            row["wall_spread_s"] = wall_s.clone();
            row["steps_per_s_range"] = json!([steps as f64 / hi.max(f64::MIN_POSITIVE), steps as f64 / lo.max(f64::MIN_POSITIVE)]);
        }
        if !o.json {
            let rec = wall_rec.map(|w| format!("  (recorded: {w:.4} s)")).unwrap_or_default();
            let spread_txt = if o.runs > 1 {
                format!(
                    "  (median of {}; {:.4}-{:.4} s)",
                    o.runs,
                    field(&wall_s, "min"),
                    field(&wall_s, "max")
                )
            } else {
                String::new()
            };
            outln!(
                "{:<28} {:>10} steps  {:>9.4} s  {:>12.0} steps/s{rec}{spread_txt}",
                s.id,
                steps,
                wall,
                steps_per_s
            );
        }
        if o.seek || o.frame {
            let t0 = Instant::now();
            let mut sim = Simulation::from_scenario(s.clone(), &ToggleSet::default()).map_err(|e| bad(format!("{name}: {e}")))?;
            let prepare_s = t0.elapsed().as_secs_f64();
            let total = sim.total_steps();
            let (count, bytes) = sim.checkpoint_bytes();
            let mut rng = SplitMix(o.seed);
            let mut out = json!({ "prepare_s": prepare_s, "checkpoints": count, "checkpoint_bytes": bytes, "total_steps": total });
            if o.seek {
                let mut times = Vec::with_capacity(o.seeks);
                for _ in 0..o.seeks {
                    let step = rng.below(total + 1);
                    let t = Instant::now();
                    sim.seek(step).map_err(|e| bad(format!("{name}: {e}")))?;
                    times.push(ms(t.elapsed()));
                }
                out["seek_ms"] = spread(&mut times);
            }
            if o.frame {
                let (mut seek_t, mut frame_t, mut ser_t, mut all_t) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
                let (mut header_bytes, mut bulk_bytes, mut ptes, mut frames, mut tlb) = (0, 0, 0, 0, 0);
                let window = mmviz_engine::view::FrameWindow::default();
                let mut bulk = mmviz_engine::view::FrameBulk::default();
                for _ in 0..o.runs {
                    let step = rng.below(total + 1);
                    let t = Instant::now();
                    sim.seek(step).map_err(|e| bad(format!("{name}: {e}")))?;
                    let t1 = Instant::now();
                    let f = sim.frame(&window, &mut bulk).map_err(|e| bad(format!("{name}: {e}")))?;
                    let t2 = Instant::now();
                    let text = serde_json::to_string(&f).map_err(|e| bad(format!("{name}: {e}")))?;
                    let t3 = Instant::now();
                    header_bytes = text.len();
                    bulk_bytes = bulk.byte_len();
                    ptes = bulk.pte_pid.len();
                    frames = bulk.frame_pfn.len();
                    tlb = bulk.tlb_pid.len();
                    seek_t.push(ms(t1 - t));
                    frame_t.push(ms(t2 - t1));
                    ser_t.push(ms(t3 - t2));
                    all_t.push(ms(t3 - t));
                }
                out["frame"] = json!({
                    "ptes": ptes,
                    "frames": frames,
                    "tlb_entries": tlb,
                    "header_json_bytes": header_bytes,
                    "bulk_bytes": bulk_bytes,
                    "seek_ms": spread(&mut seek_t),
                    "frame_ms": spread(&mut frame_t),
                    "serialise_ms": spread(&mut ser_t),
                    "total_ms": spread(&mut all_t),
                });
            }
            if !o.json {
                outln!(
                    "  prepared (recorded) in {prepare_s:.3} s; {count} checkpoints, {:.2} MB (checkpoint_bytes)",
                    bytes as f64 / 1e6
                );
                if let Some(t) = out.get("seek_ms") {
                    outln!(
                        "  seek ({} random steps, seed {}): median {:.3} ms, p95 {:.3} ms, max {:.3} ms",
                        o.seeks,
                        o.seed,
                        field(t, "median"),
                        field(t, "p95"),
                        field(t, "max")
                    );
                }
                if let Some(f) = out.get("frame") {
                    let m = |k: &str| f.get(k).map(|t| field(t, "median")).unwrap_or(0.0);
                    let n = |k: &str| f.get(k).and_then(Value::as_u64).unwrap_or(0);
                    outln!(
                        "  frame ({} PTEs, {} frames, {} TLB entries; {} bytes of arrays + {} JSON bytes of header), median of {}: \
                         seek {:.3} ms + frame() {:.3} ms + header serde_json {:.3} ms = {:.3} ms (max {:.3} ms)",
                        n("ptes"),
                        n("frames"),
                        n("tlb_entries"),
                        n("bulk_bytes"),
                        n("header_json_bytes"),
                        o.runs,
                        m("seek_ms"),
                        m("frame_ms"),
                        m("serialise_ms"),
                        m("total_ms"),
                        f.get("total_ms").map(|t| field(t, "max")).unwrap_or(0.0)
                    );
                }
            }
            row["recorded"] = out;
        }
        rows.push(row);
    }
    if o.json {
        outln!("{}", to_json(&Value::Array(rows)));
    }
    Ok(())
}
