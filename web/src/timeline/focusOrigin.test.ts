// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { trackFocusOrigin } from './focusOrigin';

afterEach(() => {
  document.body.innerHTML = '';
});

function setUp(): { tracker: ReturnType<typeof trackFocusOrigin>; select: HTMLSelectElement; button: HTMLButtonElement; box: HTMLInputElement; label: HTMLLabelElement } {
  document.body.innerHTML = '<select id="s"><option>a</option></select><button id="b">b</button><label id="l"><span>switch</span><input id="c" type="checkbox"></label>';
  return {
    tracker: trackFocusOrigin(window),
    select: document.getElementById('s') as HTMLSelectElement,
    button: document.getElementById('b') as HTMLButtonElement,
    box: document.getElementById('c') as HTMLInputElement,
    label: document.getElementById('l') as HTMLLabelElement,
  };
}

const press = (el: Element): void => {
  el.dispatchEvent(new Event('pointerdown', { bubbles: true }));
};

describe('trackFocusOrigin', () => {
  it('knows a control focused by a click on it or on its label', () => {
    const { tracker, select, box, label } = setUp();
    press(select);
    select.focus();
    expect(tracker.pointerFocused(select)).toBe(true);
    press(label.querySelector('span') as Element);
    box.focus();
    expect(tracker.pointerFocused(box)).toBe(true);
    expect(tracker.pointerFocused(select)).toBe(false);
    tracker.stop();
  });

  it('leaves focus from Tab, or from a script after a click elsewhere, to the keyboard', () => {
    const { tracker, select, button } = setUp();
    press(button);
    button.focus();
    expect(tracker.pointerFocused(button)).toBe(true);
    // A script moves focus to the select right after the click on the button.
    select.focus();
    expect(tracker.pointerFocused(select)).toBe(false);
    // A click, then Tab: the keyboard's.
    press(select);
    window.dispatchEvent(new KeyboardEvent('keydown', { key: 'Tab' }));
    select.blur();
    select.focus();
    expect(tracker.pointerFocused(select)).toBe(false);
    tracker.stop();
  });

  it('counts a click on the element that already has focus', () => {
    const { tracker, select } = setUp();
    select.focus();
    expect(tracker.pointerFocused(select)).toBe(false);
    press(select);
    expect(tracker.pointerFocused(select)).toBe(true);
    tracker.stop();
  });
});
