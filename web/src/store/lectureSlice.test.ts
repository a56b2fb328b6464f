import { afterEach, describe, expect, it, vi } from 'vitest';
import { createFixtureEngine } from '../engine/fixtureEngine';
import { createAppStore, selectShareState } from './appStore';
import { questionShownAt, waitingQuestionAt } from './lectureSlice';

// numa-hint-fault-101 as recorded (numa_delay_map on): chapters at steps 0, 16, 34 and 50, a
// question at each of the last three (scenarios/numa-hint-fault-101.toml).
async function booted(fragment = '') {
  const store = createAppStore();
  await store.getState().boot(createFixtureEngine(), fragment);
  return store;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('lecture mode and its questions', () => {
  it('a link opens lecture mode on its first slide, and the link keeps it', async () => {
    const store = await booted('v=2&sc=numa-hint-fault-101&step=0&lecture=intro');
    expect(store.getState().mode).toBe('lecture');
    expect(store.getState().lectureIntro).toBe(true);
    expect(selectShareState(store.getState())?.lecture).toBe('intro');
    await store.getState().lectureNext();
    expect(store.getState().lectureIntro).toBe(false);
    expect(selectShareState(store.getState())?.lecture).toBe('on');
  });

  it('next reveals the question asked at the step before going on; previous goes back to the first slide', async () => {
    const store = await booted('v=2&sc=numa-hint-fault-101&step=0&lecture=1');
    const s = () => store.getState();
    const questions = s().runs.a.summary!.questions;
    expect(questions.map((q) => q.step)).toEqual([16, 34, 50]);
    await s().lectureNext();
    expect(s().runs.a.step).toBe(16);
    const q = waitingQuestionAt(s(), 16)!;
    expect(q.answer).toEqual({ kind: 'cpus', event: 'ipi_recv', cpus: [3], options: [0, 1, 2, 3] });
    expect(questionShownAt(s(), 16)).toBe(q);
    // Next reveals, and stays.
    await s().lectureNext();
    expect(s().runs.a.step).toBe(16);
    expect(s().questionStates[q.index]).toMatchObject({ revealed: true, revealedAt: 16 });
    expect(waitingQuestionAt(s(), 16)).toBeNull();
    expect(questionShownAt(s(), 16)).toBe(q);
    // The card follows the answer to the step that shows it, and leaves elsewhere.
    expect(questionShownAt(s(), q.revealStep)).toBe(q);
    expect(questionShownAt(s(), 20)).toBeNull();
    await s().lectureNext();
    expect(s().runs.a.step).toBe(34);
    await s().lecturePrev();
    expect(s().runs.a.step).toBe(16);
    await s().lecturePrev();
    expect(s().runs.a.step).toBe(0);
    await s().lecturePrev();
    expect(s().lectureIntro).toBe(true);
  });

  it('playing stops at a question that waits, and a skipped question is not shown', async () => {
    vi.useFakeTimers();
    const store = await booted('v=2&sc=numa-hint-fault-101&step=12');
    const s = () => store.getState();
    s().play();
    for (let i = 0; i < 10 && s().playing; i++) {
      s().tick();
      await vi.runAllTimersAsync();
    }
    expect(s().playing).toBe(false);
    expect(s().runs.a.step).toBe(16);
    s().skipQuestion(0);
    expect(questionShownAt(s(), 16)).toBeNull();
    expect(waitingQuestionAt(s(), 16)).toBeNull();
    // Another run answers anew: a rebuild forgets what the room did.
    await s().setToggle('numa_delay_map', false);
    expect(s().questionStates).toEqual({});
  });

  it('an embed keeps the cursor within its steps and makes no history entries', async () => {
    const store = await booted('v=2&sc=numa-hint-fault-101&step=5&embed=1&from=10&to=20');
    const s = () => store.getState();
    expect(s().mode).toBe('embed');
    expect(s().runs.a.step).toBe(10);
    await s().goLast();
    expect(s().runs.a.step).toBe(20);
    await s().stepBy(1);
    expect(s().runs.a.step).toBe(20);
    await s().goFirst();
    expect(s().runs.a.step).toBe(10);
    const mark = s().historyMark;
    await s().seekLane('a', 15, { history: true });
    expect(s().runs.a.step).toBe(15);
    expect(s().historyMark).toBe(mark);
    // Lecture mode is not offered inside an embed.
    s().enterLecture();
    expect(s().mode).toBe('embed');
    expect(selectShareState(s())).toMatchObject({ embed: true, range: { from: 10, to: 20 } });
  });
});
