// @vitest-environment jsdom
// Pasted text is only ever text: a box's content, the line an error quotes and the engine's
// message are put in the DOM as text nodes, never parsed as markup.
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { NumberedTextarea, PasteError } from './PasteBox';

const PAYLOADS = ['<script>window.__pwned = 1</script>', '<img src=x onerror="window.__pwned = 1">', '<b>bold</b> &amp; <a href="javascript:alert(1)">x</a>'];

afterEach(() => {
  cleanup();
  delete (window as { __pwned?: number }).__pwned;
});

describe('PasteError', () => {
  it.each(PAYLOADS)('shows the line and the message as text: %s', (payload) => {
    const text = `pgfault 1\n${payload}\n`;
    const { container } = render(<PasteError message={`line 2: cannot read \`${payload}\`: expected \`name value\``} text={text} areaId="box" testId="err" what="Before snapshot" />);
    expect(container.querySelector('script, img, b, a')).toBeNull();
    expect(screen.getByTestId('err').textContent).toContain(payload);
    expect(screen.getByTestId('err').textContent).toContain('Before snapshot, line 2:');
    expect((window as { __pwned?: number }).__pwned).toBeUndefined();
  });

  it('drops the engine prefix of a merged machine and says when no line is named', () => {
    render(<PasteError message="Error: lscpu text line 7: NUMA node5 is not in the numactl text (its nodes: 0, 1)" text={'a\n'.repeat(8)} areaId="box" testId="err" what="lscpu" />);
    expect(screen.getByTestId('err').textContent).toContain('lscpu, line 7: NUMA node5 is not in the numactl text');
    cleanup();
    render(<PasteError message="the engine is gone" text="" areaId="box" testId="err" what="zoneinfo" />);
    expect(screen.getByTestId('err').textContent).toContain('Cannot read the zoneinfo: the engine is gone');
  });
});

describe('NumberedTextarea', () => {
  it.each(PAYLOADS)('keeps a payload as the textarea value: %s', (payload) => {
    let got = '';
    const { container } = render(<NumberedTextarea id="t" text={payload} onChange={(t) => (got = t)} mark={1} describedBy="d" placeholder="" testId="box" />);
    const area = screen.getByTestId('box') as HTMLTextAreaElement;
    expect(area.value).toBe(payload);
    expect(container.querySelector('script, img, b, a')).toBeNull();
    fireEvent.change(area, { target: { value: `${payload}\nmore` } });
    expect(got).toBe(`${payload}\nmore`);
    expect(container.querySelectorAll('[aria-hidden="true"] > div')).toHaveLength(1);
  });
});
