// Generated from wasm-core/engine/src/limits.rs; do not edit. Regenerate: MMVIZ_BLESS=1 cargo test -p mmviz-engine --test limits
// The engine's documented maxima, read by the lab's link decoder and paste boxes.

/** CPUs of a machine (ids 0 to this - 1) (machine.node[].cpus, a machine from numactl/lscpu). */
export const MAX_CPUS = 256;
/** NUMA nodes of a machine (machine.node, a machine from numactl). */
export const MAX_NODES = 64;
/** simulated pages of the machine (and of one node) (machine.node[].mem_pages (summed)). */
export const MAX_PAGES = 67108864;
/** pages of one VMA (process[].vma[].pages). */
export const MAX_VMA_PAGES = 67108864;
/** pages of all the VMAs of one process (process[].vma[].pages (summed)). */
export const MAX_PROCESS_PAGES = 268435456;
/** processes, `count`s expanded (process). */
export const MAX_PROCESSES = 1000;
/** VMAs of all processes, `count`s expanded (process[].vma). */
export const MAX_VMAS = 65536;
/** threads of all processes, `count`s expanded (process[].thread). */
export const MAX_THREADS = 8192;
/** operations of all threads, `count`s expanded (process[].thread[].ops). */
export const MAX_OPS = 262144;
/** the step budget of a run (knobs.max_steps). */
export const MAX_STEPS = 4294967296;
/** bytes of a scenario's text (a scenario file, the editor, a link's s=). */
export const MAX_SCENARIO_BYTES = 1048576;
/** bytes of one pasted text (numactl, lscpu, zoneinfo, vmstat boxes and machine.* texts). */
export const MAX_PASTE_BYTES = 1048576;
/** characters of a lab link after `#` (the lab's address, --link). */
export const MAX_LINK_CHARS = 200000;
