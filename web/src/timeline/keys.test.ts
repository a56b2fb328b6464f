import { describe, expect, it } from 'vitest';
import { commandForKey, MAPPED_KEY_NAMES, SHORTCUTS, type KeyInput } from './keys';

const press = (key: string, over: Partial<KeyInput> = {}): ReturnType<typeof commandForKey> =>
  commandForKey({ key, altKey: false, ctrlKey: false, metaKey: false, targetTag: 'BODY', targetEditable: false, ...over });

const select = { targetTag: 'SELECT' };
const scrubber = { targetTag: 'INPUT', targetType: 'range' };
const text = { targetTag: 'INPUT', targetType: 'text' };
const sw = { targetTag: 'INPUT', targetType: 'checkbox', targetRole: 'switch' };
const button = { targetTag: 'BUTTON' };
const clicked = { targetPointerFocused: true };

describe('commandForKey', () => {
  it('maps the lab keys on the page', () => {
    expect(press('ArrowLeft')).toBe('back');
    expect(press('ArrowRight')).toBe('forward');
    expect(press('Home')).toBe('first');
    expect(press('End')).toBe('last');
    expect(press('PageUp')).toBe('prevChapter');
    expect(press('PageDown')).toBe('nextChapter');
    expect(press(' ')).toBe('togglePlay');
    expect(press('?')).toBe('keySheet');
    expect(press('x')).toBeNull();
    expect(press('ArrowUp')).toBeNull();
  });

  it('never fires with Ctrl, Alt or Meta', () => {
    for (const mod of ['ctrlKey', 'altKey', 'metaKey'] as const) {
      expect(press('ArrowRight', { [mod]: true })).toBeNull();
      expect(press('PageDown', { [mod]: true })).toBeNull();
    }
  });

  it('leaves typing alone, but PageUp/PageDown work from a text field too', () => {
    for (const target of [text, { targetTag: 'INPUT', targetType: 'number' }, { targetTag: 'TEXTAREA' }, { targetTag: 'DIV', targetEditable: true }, { targetTag: 'DIV', targetRole: 'textbox' }]) {
      for (const key of ['ArrowLeft', 'ArrowRight', 'Home', 'End', ' ', '?']) expect(press(key, target)).toBeNull();
      expect(press('PageDown', target)).toBe('nextChapter');
      expect(press('PageUp', target)).toBe('prevChapter');
    }
    // Even in a field that got focus from a click.
    expect(press(' ', { ...text, ...clicked })).toBeNull();
  });

  it('a closed select never takes PageUp/PageDown/Space; it keeps the arrows only when reached with the keyboard', () => {
    expect(press('PageDown', select)).toBe('nextChapter');
    expect(press('PageUp', select)).toBe('prevChapter');
    expect(press(' ', select)).toBe('togglePlay');
    expect(press('ArrowRight', select)).toBeNull();
    expect(press('ArrowLeft', select)).toBeNull();
    expect(press('Home', select)).toBeNull();
    // After a mouse pick the arrows drive the lab.
    expect(press('ArrowRight', { ...select, ...clicked })).toBe('forward');
    expect(press('ArrowLeft', { ...select, ...clicked })).toBe('back');
    expect(press('End', { ...select, ...clicked })).toBe('last');
    expect(press('PageDown', { ...select, ...clicked })).toBe('nextChapter');
  });

  it('on the scrubber, PageUp/PageDown go by chapter and Space plays, like everywhere else', () => {
    expect(press('PageDown', scrubber)).toBe('nextChapter');
    expect(press('PageUp', scrubber)).toBe('prevChapter');
    expect(press(' ', scrubber)).toBe('togglePlay');
    expect(press('ArrowRight', scrubber)).toBe('forward');
    expect(press('Home', scrubber)).toBe('first');
    expect(press('End', { ...scrubber, ...clicked })).toBe('last');
  });

  it('buttons and switches keep Space when reached with the keyboard, not after a click', () => {
    for (const target of [button, sw, { targetTag: 'A' }, { targetTag: 'SUMMARY' }, { targetTag: 'DIV', targetRole: 'button' }, { targetTag: 'INPUT', targetType: 'checkbox' }]) {
      expect(press(' ', target)).toBeNull();
      expect(press(' ', { ...target, ...clicked })).toBe('togglePlay');
      expect(press('ArrowRight', target)).toBe('forward');
      expect(press('PageDown', target)).toBe('nextChapter');
    }
  });

  it('radio buttons keep their arrows and Space unless clicked', () => {
    const radio = { targetTag: 'INPUT', targetType: 'radio' };
    expect(press('ArrowRight', radio)).toBeNull();
    expect(press(' ', radio)).toBeNull();
    expect(press('PageDown', radio)).toBe('nextChapter');
    expect(press('ArrowRight', { ...radio, ...clicked })).toBe('forward');
  });
});

describe('the key sheet', () => {
  it('lists every key the mapping knows', () => {
    const listed = new Set(SHORTCUTS.flatMap((s) => s.keys));
    const candidates = ['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown', 'Home', 'End', 'PageUp', 'PageDown', ' ', 'Spacebar', '?', '/', 'Enter', 'Escape', 'Tab', 'k', 'j', 'b', '.'];
    const mapped = candidates.filter((k) => press(k) !== null && k !== 'Spacebar');
    expect(mapped.sort()).toEqual(Object.keys(MAPPED_KEY_NAMES).sort());
    for (const [key, name] of Object.entries(MAPPED_KEY_NAMES)) {
      expect(press(key)).not.toBeNull();
      expect(listed.has(name)).toBe(true);
    }
  });
});
