// React access to the app store: a provider, typed hooks, and the lane a panel draws.
import { createContext, useContext, useMemo, useState, type ReactNode } from 'react';
import { useStore } from 'zustand';
import { useShallow } from 'zustand/react/shallow';
import { createAppStore, type AppStore } from './appStore';
import { cursorOf } from './playbackSlice';
import type { AppState, LaneId, MoveOptions, RunState } from './types';
import type { WindowRequest } from './bulkWindow';

const StoreContext = createContext<AppStore | null>(null);
const LaneContext = createContext<LaneId>('a');

/** Provides an app store (a new one unless `store` is given) to its children. */
export function StoreProvider({ store, children }: { store?: AppStore; children: ReactNode }) {
  const [own] = useState(() => store ?? createAppStore());
  return <StoreContext.Provider value={own}>{children}</StoreContext.Provider>;
}

/** The store instance from context (for imperative use in effects and handlers). */
export function useAppStoreApi(): AppStore {
  const store = useContext(StoreContext);
  if (!store) throw new Error('useAppStore must be used inside <StoreProvider>');
  return store;
}

/** Selects a value from the app store and re-renders when it changes. */
export function useAppStore<T>(selector: (state: AppState) => T): T {
  return useStore(useAppStoreApi(), selector);
}

/** Makes the panels inside draw lane `lane` (A unless said). */
export function LaneProvider({ lane, children }: { lane: LaneId; children: ReactNode }) {
  return <LaneContext.Provider value={lane}>{children}</LaneContext.Provider>;
}

/** The lane the calling panel draws. */
export function useLane(): LaneId {
  return useContext(LaneContext);
}

/** Selects a value from the run of the calling panel's lane and re-renders when it changes. */
export function useRun<T>(selector: (run: RunState) => T): T {
  const lane = useLane();
  return useAppStore((s) => selector(s.runs[lane]));
}

/** What a panel can do to its own lane: go to one of its steps, page its PTE and frame windows. */
export interface LaneActions {
  lane: LaneId;
  /** Moves the cursor so that this lane shows `step`. */
  seek: (step: number, options?: MoveOptions) => Promise<void>;
  setBulkWindow: (w: WindowRequest) => Promise<void>;
  showPte: (pid: number, vpn: number) => Promise<boolean>;
  showPfn: (pfn: number) => Promise<boolean>;
}

/** The calling panel's lane actions (stable across renders). */
export function useLaneActions(): LaneActions {
  const lane = useLane();
  const store = useAppStoreApi();
  return useMemo(
    () => ({
      lane,
      seek: (step, options) => store.getState().seekLane(lane, step, options),
      setBulkWindow: (w) => store.getState().setBulkWindow(lane, w),
      showPte: (pid, vpn) => store.getState().showPte(lane, pid, vpn),
      showPfn: (pfn) => store.getState().showPfn(lane, pfn),
    }),
    [lane, store],
  );
}

/** The transport's cursor: A's steps alone, the A/B axis in a comparison. */
export function useCursor(): { position: number; target: number; last: number; ready: boolean } {
  return useAppStore(useShallow(cursorOf));
}
