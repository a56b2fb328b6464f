// Test helpers for the store (imported by tests only).
import type { AppStore } from './appStore';
import type { LaneId, RunState } from './types';

/** Replaces fields of a lane's run directly (a test stands in for what the engine would have shown). */
export function setRunState(store: AppStore, patch: Partial<RunState>, lane: LaneId = 'a'): void {
  store.setState((s) => ({ runs: { ...s.runs, [lane]: { ...s.runs[lane], ...patch } } }));
}
