// Drives playback: one store tick per 1/speed seconds while playing.
import { useEffect } from 'react';
import { useAppStore, useAppStoreApi } from '../store/context';

/** Hook: runs the playback timer while the store says playing. */
export function usePlayback(): void {
  const store = useAppStoreApi();
  const playing = useAppStore((s) => s.playing);
  const speed = useAppStore((s) => s.speed);
  useEffect(() => {
    if (!playing) return;
    const id = setInterval(() => store.getState().tick(), Math.max(16, 1000 / speed));
    return () => clearInterval(id);
  }, [store, playing, speed]);
}
