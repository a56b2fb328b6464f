// Lecture mode's keys on window, in the capture phase: they run before any control sees the
// key, so a clicker's PageDown never reaches a button, a checkbox or a focused select. Which key
// does what, and which stays with the focused control, is keys.ts's mapping (lectureCommandForKey).
import { useEffect } from 'react';
import { useAppStoreApi } from '../store/context';
import { questionShownAt } from '../store/lectureSlice';
import { trackFocusOrigin } from '../timeline/focusOrigin';
import { openKeySheet } from '../timeline/keySheetStore';
import { lectureCommandForKey } from '../timeline/keys';
import { consumeLeftOnPurpose, enterFullscreen, exitFullscreen, isFullscreen } from './fullscreen';

/** Hook: while lecture mode is on, maps clicker keys to the lecture. */
export function useLectureKeys(): void {
  const store = useAppStoreApi();
  useEffect(() => {
    const origin = trackFocusOrigin(window);
    // Leaving full screen on purpose (F, the button) keeps lecture mode; Escape (which the
    // browser takes for leaving full screen itself) leaves it.
    let wasFullscreen = isFullscreen();
    const onFullscreen = (): void => {
      const now = isFullscreen();
      if (wasFullscreen && !now && !consumeLeftOnPurpose()) store.getState().exitLecture();
      wasFullscreen = now;
    };
    const onKey = (e: KeyboardEvent): void => {
      const s = store.getState();
      if (s.mode !== 'lecture') return;
      const target = e.target instanceof HTMLElement ? e.target : null;
      // Keys in a modal dialog (the key sheet) belong to it.
      if (target?.closest('dialog[open]')) return;
      const command = lectureCommandForKey({
        key: e.key,
        shiftKey: e.shiftKey,
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
      e.preventDefault();
      e.stopPropagation();
      if (command === 'keySheet') {
        openKeySheet();
        return;
      }
      if (!s.runs.a.summary) return;
      switch (command) {
        case 'next':
          void s.lectureNext();
          break;
        case 'prev':
          void s.lecturePrev();
          break;
        case 'forward':
          s.pause();
          if (s.lectureIntro) void s.lectureNext();
          else void s.stepBy(1);
          break;
        case 'back':
          s.pause();
          if (!s.lectureIntro) void s.stepBy(-1);
          break;
        case 'first':
          s.pause();
          void s.goFirst();
          break;
        case 'last':
          s.pause();
          void s.goLast();
          break;
        case 'togglePlay':
          if (s.lectureIntro) s.leaveIntro();
          s.togglePlay();
          break;
        case 'notes':
          s.setNotesOpen(!s.notesOpen);
          break;
        case 'fullscreen':
          if (isFullscreen()) void exitFullscreen(true);
          else void enterFullscreen(document.documentElement);
          break;
        case 'reveal': {
          const q = questionShownAt(s, s.runs.a.targetStep);
          if (q) s.reveal(q.index);
          break;
        }
        case 'exit':
          if (s.notesOpen) s.setNotesOpen(false);
          else {
            s.exitLecture();
            void exitFullscreen();
          }
          break;
      }
    };
    window.addEventListener('keydown', onKey, { capture: true });
    document.addEventListener('fullscreenchange', onFullscreen);
    return () => {
      window.removeEventListener('keydown', onKey, { capture: true });
      document.removeEventListener('fullscreenchange', onFullscreen);
      origin.stop();
    };
  }, [store]);
}
