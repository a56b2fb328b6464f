import { afterEach, describe, expect, it, vi } from 'vitest';

/** A canvas whose font measures every glyph at `em` of its size (italic 10 % wider, as the lecture's state line is). */
function stubCanvas(em: number) {
  class FakeContext {
    font = '';
    measureText(text: string) {
      const px = Number(/(\d+(?:\.\d+)?)px/.exec(this.font)?.[1] ?? 10);
      const italic = this.font.startsWith('italic') ? 1.1 : 1;
      return { width: Array.from(text).length * px * em * italic };
    }
  }
  vi.stubGlobal(
    'OffscreenCanvas',
    class {
      getContext() {
        return new FakeContext();
      }
    },
  );
}

afterEach(() => {
  vi.unstubAllGlobals();
  vi.resetModules();
});

describe('fitText with a measuring canvas', () => {
  it('shortens by the measured width of the label font, not the average estimate', async () => {
    stubCanvas(0.6);
    const { fitText } = await import('./format');
    // 17 glyphs at 24 px italic: 0.66 em each = 269 px; 9 fit with the ellipsis (the space before it goes); the estimate (0.52 em) would keep 12.
    const fitted = fitText('running user code', 156, 24, 0.52, { italic: true });
    expect(fitted).toBe('running…');
    expect(Array.from(fitted).length * 24 * 0.66).toBeLessThanOrEqual(156);
    expect(fitText('idle', 156, 24, 0.52, { italic: true })).toBe('idle');
  });

  it('falls back to the estimate where nothing can measure (Node)', async () => {
    const { fitText } = await import('./format');
    const { textWidthPx } = await import('./measureText');
    expect(textWidthPx('x', 10)).toBeNull();
    expect(fitText('running user code on the CPU', 56, 10, 0.5, { italic: true })).toBe('running us…');
  });
});

describe('the CPU box', () => {
  it('says "mask" beside the name where it fits, squeezed where the type is room-sized, "M" where nothing fits', async () => {
    stubCanvas(0.62);
    const { maskBadge } = await import('../panels/MachineView');
    const { labFontsPx, LECTURE_FONTS } = await import('./machineLayout');
    const lab = maskBadge(3, 200, labFontsPx(200), false);
    expect(lab).toMatchObject({ text: 'mask', squeezeToPx: null });
    // Lecture type (24 px) in a 170 px box: "CPU 3" takes 74 px, "mask" 60 px of the 76 px left.
    const lecture = maskBadge(3, 170, LECTURE_FONTS, false);
    expect(lecture.text).toBe('mask');
    expect(8 + 5 * 24 * 0.62 + 6 + lecture.widthPx + 7).toBeLessThanOrEqual(170);
    expect(maskBadge(3, 130, LECTURE_FONTS, false).text).toBe('M');
    expect(maskBadge(3, 120, labFontsPx(120), true).text).toBe('M');
  });

  it('does not repeat the line below on the state line', async () => {
    const { boxState } = await import('../panels/MachineView');
    expect(boxState({ state: 'in ptep_clear_flush', inFunction: 'ptep_clear_flush' })).toBe('in the kernel');
    expect(boxState({ state: 'running user code', inFunction: '' })).toBe('computing');
    expect(boxState({ state: 'waiting for 2 IPI ack(s)', inFunction: 'flush_tlb_mm_range' })).toBe('waiting for 2 IPI ack(s)');
  });
});
