import { describe, expect, it } from 'vitest';
import { commandForKey, type KeyInput } from './keys';

const press = (key: string, over: Partial<KeyInput> = {}): ReturnType<typeof commandForKey> =>
  commandForKey({ key, altKey: false, ctrlKey: false, metaKey: false, targetTag: 'BODY', targetEditable: false, ...over });

describe('commandForKey', () => {
  it('maps the transport keys', () => {
    expect(press('ArrowLeft')).toBe('back');
    expect(press('ArrowRight')).toBe('forward');
    expect(press('Home')).toBe('first');
    expect(press('End')).toBe('last');
    expect(press('PageUp')).toBe('prevChapter');
    expect(press('PageDown')).toBe('nextChapter');
    expect(press(' ')).toBe('togglePlay');
    expect(press('x')).toBeNull();
  });
  it('does not fire while typing or with modifiers', () => {
    expect(press('ArrowLeft', { targetTag: 'INPUT' })).toBeNull();
    expect(press(' ', { targetTag: 'TEXTAREA' })).toBeNull();
    expect(press('Home', { targetTag: 'SELECT' })).toBeNull();
    expect(press('End', { targetTag: 'DIV', targetEditable: true })).toBeNull();
    expect(press('ArrowRight', { ctrlKey: true })).toBeNull();
    expect(press('ArrowRight', { altKey: true })).toBeNull();
  });
  it('steps from a toggle switch but leaves space to it; never from text or range inputs', () => {
    expect(press('ArrowRight', { targetTag: 'INPUT', targetType: 'checkbox', targetRole: 'switch' })).toBe('forward');
    expect(press(' ', { targetTag: 'INPUT', targetType: 'checkbox', targetRole: 'switch' })).toBeNull();
    expect(press('ArrowRight', { targetTag: 'INPUT', targetType: 'number' })).toBeNull();
    expect(press('ArrowRight', { targetTag: 'INPUT', targetType: 'range' })).toBeNull();
    expect(press('Home', { targetTag: 'INPUT' })).toBeNull();
  });
  it('leaves space to buttons but steps from them with arrows', () => {
    expect(press(' ', { targetTag: 'BUTTON' })).toBeNull();
    expect(press('ArrowRight', { targetTag: 'BUTTON' })).toBe('forward');
  });
});
