// React access to the app store: a provider and typed hooks.
import { createContext, useContext, useState, type ReactNode } from 'react';
import { useStore } from 'zustand';
import { createAppStore, type AppStore } from './appStore';
import type { AppState } from './types';

const StoreContext = createContext<AppStore | null>(null);

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
