// Lecture mode's keys on window, in the capture phase: they run before any control sees the
// key, so a clicker's PageDown never reaches a button, a checkbox or a focused select.
import { useEffect } from 'react';
import { useAppStoreApi } from '../store/context';
import { questionShownAt } from '../store/lectureSlice';
import { consumeLeftOnPurpose, enterFullscreen, exitFullscreen, isFullscreen } from './fullscreen';
import { lectureCommandForKey } from './lectureKeys';

/** Whether `el` takes typed text (a guess box): it keeps the keys that edit it. */
function takesText(el: Element | null): boolean {
  if (!(el instanceof HTMLElement)) return false;
  if (el.isContentEditable || el.tagName === 'TEXTAREA') return true;
  return el instanceof HTMLInputElement && !['checkbox', 'radio', 'button', 'submit', 'reset', 'range'].includes(el.type);
}

/** Hook: while lecture mode is on, maps clicker keys to the lecture (see lectureKeys.ts). */
export function useLectureKeys(): void {
  const store = useAppStoreApi();
  useEffect(() => {
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
      const command = lectureCommandForKey({
        key: e.key,
        shiftKey: e.shiftKey,
        altKey: e.altKey,
        ctrlKey: e.ctrlKey,
        metaKey: e.metaKey,
        targetTakesText: takesText(e.target instanceof Element ? e.target : null),
      });
      if (!command) return;
      e.preventDefault();
      e.stopPropagation();
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
    };
  }, [store]);
}
