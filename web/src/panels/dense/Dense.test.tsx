// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cellXPx, cellYPx, gridLayout } from './denseMath';
import { readPalette } from './palette';
import { FrameCanvas } from './FrameCanvas';
import { PteCanvas, pteGridOptions } from './PteCanvas';
import { testBulk } from './testBulk';
import { TlbCanvas } from './TlbCanvas';
import { parseIndex, WindowPager } from './WindowPager';

// jsdom has no PointerEvent: without it a pointer event carries no coordinates.
if (typeof window.PointerEvent === 'undefined') {
  class PointerEventPolyfill extends MouseEvent {
    readonly pointerId: number;
    constructor(type: string, init: PointerEventInit = {}) {
      super(type, init);
      this.pointerId = init.pointerId ?? 0;
    }
  }
  window.PointerEvent = PointerEventPolyfill as unknown as typeof PointerEvent;
}

// jsdom has no 2D context: a stand-in that counts the full and partial puts and keeps the last image.
let puts = 0;
let lastImage: ImageData | null = null;
beforeEach(() => {
  puts = 0;
  lastImage = null;
  const ctx = {
    createImageData: (w: number, h: number) => ({ width: w, height: h, data: new Uint8ClampedArray(w * h * 4) }),
    putImageData: (img: ImageData) => {
      puts++;
      lastImage = img;
    },
    save: () => {},
    restore: () => {},
    setTransform: () => {},
    setLineDash: () => {},
    strokeRect: () => {},
  };
  vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockImplementation(() => ctx as unknown as CanvasRenderingContext2D);
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

/** Centre of PTE cell `k` of a grid of `count` cells, as laid out in jsdom (no width: 640 px, root font 17 px). */
function pteCentre(count: number, k: number): { clientX: number; clientY: number } {
  const l = gridLayout(count, 640, pteGridOptions(17));
  return { clientX: cellXPx(l, k) + l.cellPx / 2, clientY: cellYPx(l, k) + l.cellPx / 2 };
}

describe('PteCanvas', () => {
  it('has one canvas per process, each named by its summary', () => {
    render(<PteCanvas bulk={testBulk()} processes={[{ pid: 1, name: 'bench' }]} />);
    const imgs = screen.getAllByRole('img');
    expect(imgs).toHaveLength(2);
    expect(imgs[0]?.getAttribute('aria-label')).toBe('4 PTEs of pid 1 (bench), vpn 0x10–0x13: 1 present, 1 PROT_NONE, 1 migration, 1 none; 1 writable, 1 dirty, 2 accessed.');
    expect(imgs[1]?.getAttribute('aria-label')).toMatch(/^1 PTE of pid 2,/);
    expect(screen.getByText(/4 PTEs/)).toBeTruthy();
  });

  it('draws once per frame: not again for the same arrays, again for new ones', () => {
    const bulk = testBulk();
    const { rerender } = render(<PteCanvas bulk={bulk} />);
    expect(puts).toBe(2);
    rerender(<PteCanvas bulk={bulk} />);
    expect(puts).toBe(2);
    const next = testBulk();
    next.pteFlags[2] = 1;
    rerender(<PteCanvas bulk={next} />);
    // Only pid 1's grid changed (one cell): one partial put; pid 2's grid was not drawn again.
    expect(puts).toBe(3);
  });

  it('paints each PTE in the colour of its kind', () => {
    // One process only, so that the last image is its grid.
    const bulk = testBulk();
    const one = { ...bulk, ptePid: bulk.ptePid.subarray(0, 4), pteVpn: bulk.pteVpn.subarray(0, 4), ptePfn: bulk.ptePfn.subarray(0, 4), pteFlags: bulk.pteFlags.subarray(0, 4) };
    render(<PteCanvas bulk={one} />);
    const img = lastImage as ImageData | null;
    expect(img).not.toBeNull();
    const px = new Int32Array((img as ImageData).data.buffer);
    const p = readPalette(null);
    const at = (k: number, dx: number, dy: number): number => {
      const { clientX, clientY } = pteCentre(4, k);
      return px[Math.floor(clientY + dy) * (img as ImageData).width + Math.floor(clientX + dx)] ?? -1;
    };
    const l = gridLayout(4, 640, pteGridOptions(17));
    /** How many pixels of cell `k` (inside its outline) have colour `c`. */
    const count = (k: number, c: number): number => {
      let n = 0;
      for (let dy = -l.cellPx / 2 + 2; dy < l.cellPx / 2 - 1; dy++) for (let dx = -l.cellPx / 2 + 2; dx < l.cellPx / 2 - 1; dx++) if (at(k, dx, dy) === c) n++;
      return n;
    };
    const inner = (l.cellPx - 3) ** 2;
    // Kinds: present, PROT_NONE, none, migration; most of each cell has its kind's colour.
    [1, 2, 0, 3].forEach((kind, k) => expect(count(k, p.pte[kind as 0 | 1 | 2 | 3].px)).toBeGreaterThan(inner / 2));
    // Not by colour alone: PROT_NONE has a centre dot, a migration entry a hatch; present and none neither.
    expect(at(1, 0, 0)).toBe(p.dots.px);
    expect(count(3, p.hatch.px)).toBeGreaterThan(inner / 8);
    expect([count(0, p.dots.px), count(0, p.hatch.px), count(2, p.dots.px), count(2, p.hatch.px)]).toEqual([0, 0, 0, 0]);
    // PTE 0 is dirty: a mark in its top-right corner; PTE 1 is not.
    const corner = l.cellPx / 2 - 3;
    expect(at(0, corner, -corner)).toBe(p.ink.px);
    expect(at(1, corner, -corner)).toBe(p.pte[2].px);
  });

  it('shows a tooltip for the cell under the pointer, links its frame, and selects it on click', () => {
    const onHoverPfn = vi.fn();
    const onSelectPfn = vi.fn();
    render(<PteCanvas bulk={testBulk()} onHoverPfn={onHoverPfn} onSelectPfn={onSelectPfn} />);
    const canvas = screen.getAllByRole('img')[0] as HTMLElement;
    fireEvent.pointerMove(canvas, pteCentre(4, 0));
    expect(screen.getByText('pid 1 vpn 0x10 → pfn 0x2: present; writable, dirty, accessed')).toBeTruthy();
    expect(onHoverPfn).toHaveBeenLastCalledWith(2);
    fireEvent.pointerMove(canvas, pteCentre(4, 2));
    expect(onHoverPfn).toHaveBeenLastCalledWith(null); // a none PTE has no frame
    fireEvent.click(canvas, pteCentre(4, 1));
    expect(onSelectPfn).toHaveBeenCalledWith(3);
    fireEvent.pointerLeave(canvas);
    expect(screen.queryByText(/pid 1 vpn/)).toBeNull();
  });

  it('can be walked with the keyboard: arrows announce the cell, Enter selects, arrows do not reach the transport', () => {
    const onSelectPfn = vi.fn();
    const onWindowKey = vi.fn();
    window.addEventListener('keydown', onWindowKey);
    render(<PteCanvas bulk={testBulk()} onSelectPfn={onSelectPfn} />);
    const canvas = screen.getAllByRole('img')[0] as HTMLElement;
    expect(canvas.tabIndex).toBe(0);
    act(() => canvas.focus());
    fireEvent.keyDown(canvas, { key: 'ArrowRight' });
    fireEvent.keyDown(canvas, { key: 'ArrowRight' });
    const live = document.querySelector('[aria-live="polite"]');
    expect(live?.textContent).toBe('pid 1 vpn 0x11 → pfn 0x3: PROT_NONE; accessed');
    fireEvent.keyDown(canvas, { key: 'Enter' });
    expect(onSelectPfn).toHaveBeenCalledWith(3);
    expect(onWindowKey).not.toHaveBeenCalledWith(expect.objectContaining({ key: 'ArrowRight' }));
    window.removeEventListener('keydown', onWindowKey);
  });
});

describe('FrameCanvas and TlbCanvas', () => {
  it('has one frame grid per node, summarised', () => {
    render(<FrameCanvas bulk={testBulk()} touchedPfns={[3]} selectedPfn={5} />);
    const labels = screen.getAllByRole('img').map((e) => e.getAttribute('aria-label'));
    expect(labels).toEqual(['Node 0: 4 frames, pfn 0–3: 2 mapped, 2 free; 1 locked, 1 dirty.', 'Node 1: 4 frames, pfn 4–7: 1 mapped, 1 free, 1 isolated, 1 migrating; 1 locked, 0 dirty.']);
  });

  it('has one TLB row per CPU, labelled, with this step\'s CPU in the summary', () => {
    render(<TlbCanvas bulk={testBulk()} slots={4} cpuCount={2} eventCpu={1} />);
    expect(screen.getByRole('img').getAttribute('aria-label')).toBe(
      'TLBs of 2 CPUs, 4 slots each: 2 entries (at most 2 on one CPU; 1 CPU with an empty TLB); 1 writable, 1 dirty. CPU 1 runs this step and holds 0 entries.',
    );
    expect(screen.getByText('CPU 0')).toBeTruthy();
    expect(screen.getByText('CPU 1')).toBeTruthy();
  });
});

describe('linking and going to a cell', () => {
  it('marks the PTEs and frames linked to the hovered or selected frame, for tests and people alike', () => {
    render(<PteCanvas bulk={testBulk()} hoverPfn={2} selectedPfn={6} />);
    const [pid1, pid2] = screen.getAllByRole('img');
    expect(pid1?.getAttribute('data-linked')).toBe('0x10');
    expect(pid2?.getAttribute('data-linked')).toBe('0x20');
    cleanup();
    render(<FrameCanvas bulk={testBulk()} hoverPfn={5} />);
    expect(screen.getAllByRole('img').map((e) => e.getAttribute('data-linked'))).toEqual(['', '5']);
  });

  it('puts the cursor on the PTE or frame gone to, once the bulk holds it', () => {
    const { rerender } = render(<PteCanvas bulk={testBulk()} reveal={{ pid: 1, vpn: 0x40 }} />);
    expect(screen.queryByText(/pid 1 vpn/)).toBeNull();
    rerender(<PteCanvas bulk={testBulk()} reveal={{ pid: 1, vpn: 0x11 }} />);
    expect(screen.getByTestId('pte-canvas-1-tooltip').textContent).toBe('pid 1 vpn 0x11 → pfn 0x3: PROT_NONE; accessed');
    cleanup();
    render(<FrameCanvas bulk={testBulk()} revealPfn={6} />);
    expect(screen.getByTestId('frame-canvas-1-tooltip').textContent).toBe('pfn 0x6 (6), node 1: mapped by pid 2 vpn 0x20');
  });
});

describe('WindowPager', () => {
  it('reads vpns and pfns in hex or decimal', () => {
    expect(parseIndex('0x7F000')).toBe(0x7f000);
    expect(parseIndex(' 70,000 ')).toBe(70_000);
    expect(parseIndex('7f000')).toBeNull();
    expect(parseIndex('')).toBeNull();
  });

  it('pages by a window, goes to what is typed and says when the window is on its way', () => {
    const onPage = vi.fn();
    const onGo = vi.fn((text: string) => (text === 'bad' ? 'no such vpn' : null));
    const shown = { total: 100_000, offset: 0, count: 65_536 };
    const { rerender } = render(<WindowPager what="PTEs" shown={shown} asked={0} size={65_536} onPage={onPage} goName="vpn" goPlaceholder="0x7f000" onGo={onGo} found={null} />);
    expect(screen.getByRole('group', { name: 'Window of PTEs' }).textContent).toMatch(/^PTEs 1–65,536 of 100,000/);
    expect((screen.getByRole('button', { name: 'Earlier PTEs' }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(screen.getByRole('button', { name: 'Later PTEs' }));
    expect(onPage).toHaveBeenCalledWith(65_536);
    const input = screen.getByLabelText('Go to vpn');
    fireEvent.change(input, { target: { value: 'bad' } });
    fireEvent.submit(input);
    expect(screen.getByRole('status').textContent).toBe('no such vpn');
    expect(input.getAttribute('aria-invalid')).toBe('true');
    fireEvent.change(input, { target: { value: '0x8a170' } });
    fireEvent.submit(input);
    expect(onGo).toHaveBeenLastCalledWith('0x8a170');
    rerender(<WindowPager what="PTEs" shown={shown} asked={34_464} size={65_536} onPage={onPage} goName="vpn" goPlaceholder="0x7f000" onGo={onGo} found={null} />);
    expect(screen.getByRole('status').textContent).toBe('loading the window of PTEs…');
    rerender(<WindowPager what="PTEs" shown={{ ...shown, offset: 34_464 }} asked={34_464} size={65_536} onPage={onPage} goName="vpn" goPlaceholder="0x7f000" onGo={onGo} found="pid 1 vpn 0x8a170: none" />);
    expect(screen.getByRole('status').textContent).toBe('pid 1 vpn 0x8a170: none');
    expect((screen.getByRole('button', { name: 'Later PTEs' }) as HTMLButtonElement).disabled).toBe(true);
  });
});
