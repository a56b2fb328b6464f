import { describe, expect, it } from 'vitest';
import { lectureCommandForKey, type LectureKeyInput } from './lectureKeys';

const key = (k: string, over: Partial<LectureKeyInput> = {}): LectureKeyInput => ({
  key: k,
  shiftKey: false,
  altKey: false,
  ctrlKey: false,
  metaKey: false,
  targetTakesText: false,
  ...over,
});

describe('lecture keys', () => {
  it('maps what clickers send: PageDown and Space go on, PageUp and Shift+Space back, arrows step', () => {
    expect(lectureCommandForKey(key('PageDown'))).toBe('next');
    expect(lectureCommandForKey(key(' '))).toBe('next');
    expect(lectureCommandForKey(key('PageUp'))).toBe('prev');
    expect(lectureCommandForKey(key(' ', { shiftKey: true }))).toBe('prev');
    expect(lectureCommandForKey(key('ArrowRight'))).toBe('forward');
    expect(lectureCommandForKey(key('ArrowDown'))).toBe('forward');
    expect(lectureCommandForKey(key('ArrowLeft'))).toBe('back');
    expect(lectureCommandForKey(key('ArrowUp'))).toBe('back');
    expect(lectureCommandForKey(key('Escape'))).toBe('exit');
    expect(lectureCommandForKey(key('n'))).toBe('notes');
    expect(lectureCommandForKey(key('f'))).toBe('fullscreen');
    expect(lectureCommandForKey(key('r'))).toBe('reveal');
    expect(lectureCommandForKey(key('p'))).toBe('togglePlay');
  });

  it('leaves browser shortcuts and other keys alone', () => {
    expect(lectureCommandForKey(key('PageDown', { ctrlKey: true }))).toBeNull();
    expect(lectureCommandForKey(key('r', { metaKey: true }))).toBeNull();
    expect(lectureCommandForKey(key('a'))).toBeNull();
    expect(lectureCommandForKey(key('Tab'))).toBeNull();
  });

  it('lets a text box keep its editing keys but not the clicker’s pages or Escape', () => {
    const typing = { targetTakesText: true };
    for (const k of ['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown', ' ', 'Home', 'End', 'n', 'f', 'r', 'p']) expect(lectureCommandForKey(key(k, typing))).toBeNull();
    expect(lectureCommandForKey(key('PageDown', typing))).toBe('next');
    expect(lectureCommandForKey(key('PageUp', typing))).toBe('prev');
    expect(lectureCommandForKey(key('Escape', typing))).toBe('exit');
  });
});
