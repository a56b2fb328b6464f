// Lecture and embed slice: how the lab is shown (the full lab, lecture mode for a room, or
// embedded in another page), lecture mode's first slide and speaker notes, the steps an embed
// may show, and the room's answers to the scenario's questions (predict, then reveal).
//
// A question (`[[question]]`, answered by the engine from the run) is asked at its chapter's
// first step, before the steps that answer it: playing stops there, and a clicker's "next"
// reveals the answer before it moves on. An A/B comparison asks none (its two runs answer
// differently; each lane's panels show their own counters).
import type { StateCreator } from 'zustand';
import type { QuestionView } from '../engine/types';
import { chapterIndexAt } from './simSlice';
import type { AppState, LectureSlice, QuestionState } from './types';

const NO_STATE: QuestionState = { guess: null, revealed: false, revealedAt: null, skipped: false };

/** What the room did with question `index` (nothing yet by default). */
export function questionState(s: Pick<AppState, 'questionStates'>, index: number): QuestionState {
  return s.questionStates[index] ?? NO_STATE;
}

const NO_QUESTIONS: readonly QuestionView[] = [];

/** The questions of the run on screen (none in an A/B comparison). */
export function questionsOf(s: Pick<AppState, 'runs' | 'ab'>): readonly QuestionView[] {
  return s.ab ? NO_QUESTIONS : (s.runs.a.summary?.questions ?? NO_QUESTIONS);
}

/** The question asked at `step` that waits for its answer (neither revealed nor skipped), or null. */
export function waitingQuestionAt(s: Pick<AppState, 'runs' | 'ab' | 'questionStates'>, step: number): QuestionView | null {
  return questionsOf(s).find((q) => q.step === step && !questionState(s, q.index).revealed && !questionState(s, q.index).skipped) ?? null;
}

/**
 * The question shown at `step`, or null: one waiting for its answer while the cursor is in its
 * steps (`step..=end`), or one answered, at the step it was revealed at and at the step that
 * shows the answer; of several, the last one asked. A skipped question is not shown.
 */
export function questionShownAt(s: Pick<AppState, 'runs' | 'ab' | 'questionStates'>, step: number): QuestionView | null {
  let shown: QuestionView | null = null;
  for (const q of questionsOf(s)) {
    const st = questionState(s, q.index);
    if (st.skipped) continue;
    const visible = st.revealed ? step === st.revealedAt || step === q.revealStep : step >= q.step && step <= Math.max(q.step, q.end);
    if (visible && (!shown || q.step >= shown.step)) shown = q;
  }
  return shown;
}

/** Creates the lecture and embed slice. */
export const createLectureSlice: StateCreator<AppState, [], [], LectureSlice> = (set, get) => {
  const patchQuestion = (index: number, patch: Partial<QuestionState>): void =>
    set((s) => ({ questionStates: { ...s.questionStates, [index]: { ...questionState(s, index), ...patch } } }));
  return {
    mode: 'lab',
    lectureIntro: false,
    notesOpen: false,
    range: null,
    questionStates: {},
    embedQuery: false,

    enterLecture: (intro = false) => set((s) => (s.mode === 'embed' ? {} : { mode: 'lecture', lectureIntro: intro })),
    leaveIntro: () => set({ lectureIntro: false }),
    exitLecture: () => set((s) => (s.mode === 'lecture' ? { mode: 'lab', lectureIntro: false, notesOpen: false } : {})),
    setNotesOpen: (notesOpen) => set({ notesOpen }),
    setView: (lecture, embed, range) => {
      const embedded = embed || get().embedQuery;
      set({
        mode: embedded ? 'embed' : lecture ? 'lecture' : 'lab',
        lectureIntro: !embedded && lecture === 'intro',
        // Only an embed keeps to a range of steps.
        range: embedded ? range : null,
      });
    },
    setEmbedQuery: (embedQuery) => set(embedQuery ? { embedQuery, mode: 'embed', lectureIntro: false } : { embedQuery }),

    setGuess: (index, guess) => patchQuestion(index, { guess }),
    reveal: (index) => patchQuestion(index, { revealed: true, revealedAt: get().runs.a.targetStep, skipped: false }),
    skipQuestion: (index) => patchQuestion(index, { skipped: true }),
    resetQuestions: () => set({ questionStates: {} }),

    lectureNext: async () => {
      const s = get();
      const summary = s.runs.a.summary;
      if (!summary) return;
      s.pause();
      if (s.lectureIntro) {
        set({ lectureIntro: false });
        const first = summary.chapters[0]?.step ?? 0;
        if (s.runs.a.targetStep !== first && !s.ab) await s.seek(first);
        return;
      }
      const step = s.ab ? null : s.runs.a.targetStep;
      const waiting = step === null ? null : waitingQuestionAt(s, step);
      if (waiting) {
        s.reveal(waiting.index);
        return;
      }
      await s.goChapter(1);
    },

    lecturePrev: async () => {
      const s = get();
      const summary = s.runs.a.summary;
      if (!summary || s.lectureIntro) return;
      s.pause();
      const step = s.runs.a.targetStep;
      const first = summary.chapters[0]?.step ?? 0;
      // From the first chapter (or before it), back to the first slide.
      if (s.mode === 'lecture' && (summary.chapters.length === 0 || (chapterIndexAt(summary.chapters, step) <= 0 && step <= first))) {
        set({ lectureIntro: true });
        return;
      }
      await s.goChapter(-1);
    },
  };
};
