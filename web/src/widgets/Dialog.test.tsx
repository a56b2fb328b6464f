// @vitest-environment jsdom
// The modal frame: named by its title, modal, the focus on open, kept inside by Tab and given
// back to the opener on close, and Escape and Close asking the owner to close.
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { Dialog, tabbables } from './Dialog';

/** A button that opens a dialog holding `body`; the dialog's closes are counted in `closes`. */
function Harness({ body, initialFocus, closes }: { body: React.ReactNode; initialFocus?: string; closes: string[] }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>
        Open it
      </button>
      <Dialog
        open={open}
        onClose={() => {
          closes.push('close');
          setOpen(false);
        }}
        title="A title"
        initialFocus={initialFocus}
      >
        {body}
      </Dialog>
    </>
  );
}

/** Opens the harness's dialog with the keyboard's focus on its button, as a person would. */
function openIt(body: React.ReactNode, initialFocus?: string): { opener: HTMLElement; closes: string[] } {
  const closes: string[] = [];
  render(<Harness body={body} initialFocus={initialFocus} closes={closes} />);
  const opener = screen.getByRole('button', { name: 'Open it' });
  opener.focus();
  fireEvent.click(opener);
  return { opener, closes };
}

afterEach(cleanup);

describe('Dialog', () => {
  it('is a modal dialog named by its visible title, its body shown only while open', () => {
    const { closes } = openIt(<p>body text</p>);
    const dialog = screen.getByRole('dialog', { name: 'A title' });
    expect(dialog.getAttribute('aria-modal')).toBe('true');
    expect(screen.getByRole('heading', { name: 'A title' })).toBeTruthy();
    expect(dialog.textContent).toContain('body text');
    fireEvent.click(screen.getByRole('button', { name: 'Close' }));
    expect(closes).toEqual(['close']);
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(screen.queryByText('body text')).toBeNull();
  });

  it('puts the focus on the body\'s first control (skipping disabled ones), else on Close, or where the owner says', () => {
    openIt(
      <>
        <button type="button" disabled>
          Off
        </button>
        <input aria-label="Field" />
      </>,
    );
    expect(document.activeElement).toBe(screen.getByRole('textbox', { name: 'Field' }));
    cleanup();
    openIt(<p>nothing to focus</p>);
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Close' }));
    cleanup();
    openIt(<input aria-label="Field" />, 'title');
    expect(document.activeElement).toBe(screen.getByRole('heading', { name: 'A title' }));
  });

  it('gives the focus back to the opener when Close or Escape closes it', () => {
    const { opener, closes } = openIt(<input aria-label="Field" />);
    fireEvent.click(screen.getByRole('button', { name: 'Close' }));
    expect(document.activeElement).toBe(opener);
    fireEvent.click(opener);
    fireEvent.keyDown(screen.getByRole('textbox', { name: 'Field' }), { key: 'Escape' });
    expect(closes).toEqual(['close', 'close']);
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(document.activeElement).toBe(opener);
  });

  it('keeps Tab inside: past the last control to the first (Close), Shift+Tab from the first to the last', () => {
    openIt(
      <>
        <input aria-label="Field" />
        <button type="button">Last</button>
      </>,
    );
    const close = screen.getByRole('button', { name: 'Close' });
    const last = screen.getByRole('button', { name: 'Last' });
    last.focus();
    fireEvent.keyDown(last, { key: 'Tab' });
    expect(document.activeElement).toBe(close);
    fireEvent.keyDown(close, { key: 'Tab', shiftKey: true });
    expect(document.activeElement).toBe(last);
    // In the middle the browser moves the focus itself.
    const field = screen.getByRole('textbox', { name: 'Field' });
    field.focus();
    const event = fireEvent.keyDown(field, { key: 'Tab' });
    expect(event).toBe(true);
    expect(document.activeElement).toBe(field);
    // The heading (focused by an owner) comes before everything: Shift+Tab goes to the last.
    const heading = screen.getByRole('heading', { name: 'A title' });
    heading.focus();
    fireEvent.keyDown(heading, { key: 'Tab', shiftKey: true });
    expect(document.activeElement).toBe(last);
  });

  it('counts a radio group once (its checked radio), and leaves out disabled, hidden and tabindex=-1 controls', () => {
    const root = document.createElement('div');
    root.innerHTML = `
      <button>a</button>
      <input type="radio" name="g" value="1"><input type="radio" name="g" value="2" checked>
      <input type="radio" name="h" value="1"><input type="radio" name="h" value="2">
      <button disabled>off</button><div hidden><button>hidden</button></div>
      <span tabindex="-1">skip</span><span tabindex="0">span</span><a>no href</a><a href="#x">link</a>`;
    const names = tabbables(root).map((el) => (el instanceof HTMLInputElement ? `${el.name}${el.value}` : el.textContent));
    expect(names).toEqual(['a', 'g2', 'h1', 'span', 'link']);
  });
});
