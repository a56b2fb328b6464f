// Global shortcuts (← → space Home End PageUp PageDown, ? for the key sheet): which key goes to
// the lab and which to the focused control is keys.ts's pure mapping.
import { useEffect } from 'react';
import { useAppStoreApi } from '../store/context';
import { trackFocusOrigin } from './focusOrigin';
import { openKeySheet } from './keySheetStore';
import { commandForKey } from './keys';

/** Hook: installs the keyboard shortcuts on window while mounted. */
export function useKeyboard(): void {
  const store = useAppStoreApi();
  useEffect(() => {
    const origin = trackFocusOrigin(window);
    const onKey = (e: KeyboardEvent): void => {
      if (e.defaultPrevented) return;
      const target = e.target instanceof HTMLElement ? e.target : null;
      // Keys in a modal dialog (the machine box) belong to it, not to the run behind it.
      if (target?.closest('dialog[open]')) return;
      const command = commandForKey({
        key: e.key,
        altKey: e.altKey,
        ctrlKey: e.ctrlKey,
        metaKey: e.metaKey,
        targetTag: target?.tagName ?? 'BODY',
        targetEditable: target?.isContentEditable ?? false,
        targetRole: target?.getAttribute('role') ?? null,
        targetType: target instanceof HTMLInputElement ? target.type : null,
        targetPointerFocused: origin.pointerFocused(target),
      });
      if (!command) return;
      if (command === 'keySheet') {
        e.preventDefault();
        openKeySheet();
        return;
      }
      const s = store.getState();
      if (!s.runs.a.summary) return;
      e.preventDefault();
      switch (command) {
        case 'back':
          s.pause();
          void s.stepBy(-1);
          break;
        case 'forward':
          s.pause();
          void s.stepBy(1);
          break;
        case 'first':
          s.pause();
          void s.goFirst();
          break;
        case 'last':
          s.pause();
          void s.goLast();
          break;
        case 'prevChapter':
          void s.goChapter(-1);
          break;
        case 'nextChapter':
          void s.goChapter(1);
          break;
        case 'togglePlay':
          s.togglePlay();
          break;
      }
    };
    window.addEventListener('keydown', onKey);
    return () => {
      window.removeEventListener('keydown', onKey);
      origin.stop();
    };
  }, [store]);
}
