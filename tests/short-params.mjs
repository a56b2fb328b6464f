// The shortened runs of the Node-side tests (tests/wasm-native.test.mjs and the e2e walk over
// every built-in in web/e2e/run.mjs): a reproduction scenario with a `seconds` parameter runs
// SHORT_SECONDS simulated seconds there. Its numbers at full length are checked by
// `mmviz check scenarios/`; these tests check that native, wasm and the lab agree on a run.

/** Simulated seconds a shortened run lasts. */
export const SHORT_SECONDS = 5;

/**
 * The parameters that shorten a scenario's run: `{ seconds: SHORT_SECONDS }` when it has a
 * `seconds` parameter that allows it and runs longer by default, else `{}`.
 * @param {object} wasm the loaded wasm package @param {string} text the scenario's TOML
 */
export function shortParams(wasm, text) {
  const sim = new wasm.Simulation(text, {}, {});
  const has = sim.summary().params.some((p) => p.name === 'seconds' && p.min <= SHORT_SECONDS && SHORT_SECONDS < p.value);
  sim.free();
  return has ? { seconds: SHORT_SECONDS } : {};
}
