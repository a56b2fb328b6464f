// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { buildFrameSvg, captionLines, viewBoxOf } from './svgExport';

const colours = { background: '#ffffff', text: '#1a1a1a', link: '#005a8c' };

function drawing(label: string): SVGSVGElement {
  const host = document.createElement('section');
  host.setAttribute('aria-label', label);
  host.innerHTML = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="-4 -36 300 200" role="group" aria-roledescription="machine drawing" aria-label="2 NUMA nodes"><rect class="cpu" x="1" y="2" width="10" height="10" style="fill: red"></rect><text x="3" y="4">CPU 0</text></svg>`;
  document.body.appendChild(host);
  return host.querySelector('svg') as SVGSVGElement;
}

describe('captionLines', () => {
  it('breaks prose at spaces and a link anywhere, losing nothing', () => {
    const link = `https://example.org/#${'x'.repeat(250)}`;
    const lines = captionLines(link, 100);
    expect(lines.every((l) => l.length <= 100)).toBe(true);
    expect(lines.join('')).toBe(link);
    expect(captionLines('one two three', 8)).toEqual(['one two', 'three']);
  });
});

describe('viewBoxOf', () => {
  it('reads the attribute, and says null for none or a bad one', () => {
    expect(viewBoxOf(drawing('Run A'))).toEqual({ x: -4, y: -36, width: 300, height: 200 });
    const bare = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
    expect(viewBoxOf(bare)).toBeNull();
    bare.setAttribute('viewBox', '0 0 nope 3');
    expect(viewBoxOf(bare)).toBeNull();
  });
});

describe('buildFrameSvg', () => {
  it('gives a standalone SVG with the drawing, styles written in, and the caption with its link', () => {
    const svg = drawing('Run A');
    const link = 'https://example.org/mmviz/#v=2&sc=numa-hint-fault-101&h=5d0c4a91&step=37';
    const text = buildFrameSvg([{ svg, label: 'Run A' }], { lines: ['mmviz numa-hint-fault-101: <b>hint</b> & faults', 'At step 37 of 161.'], link }, colours);
    const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
    expect(doc.getElementsByTagName('parsererror')).toHaveLength(0);
    const root = doc.documentElement;
    expect(root.namespaceURI).toBe('http://www.w3.org/2000/svg');
    expect(root.getAttribute('viewBox')).toMatch(/^0 0 \d+/);
    // The caption: text, never markup; the link is a real link.
    expect(text).toContain('&lt;b&gt;hint&lt;/b&gt; &amp; faults');
    expect(doc.getElementsByTagName('b')).toHaveLength(0);
    const a = root.getElementsByTagName('a')[0];
    expect(a?.getAttribute('href')).toBe(link);
    // The drawing is there, its classes replaced by inline styles, its ARIA roles gone.
    expect(text).toContain('CPU 0');
    expect(text).not.toContain('class=');
    expect(text).not.toContain('role=');
    expect(root.getElementsByTagName('rect')[0]?.getAttribute('fill')).toBe('#ffffff');
  });

  it('puts A and B side by side under their headings', () => {
    const text = buildFrameSvg(
      [
        { svg: drawing('Run A'), label: 'Run A' },
        { svg: drawing('Run B'), label: 'Run B' },
      ],
      { lines: ['x'], link: 'https://example.org/' },
      colours,
    );
    const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
    const inner = Array.from(doc.documentElement.children).filter((c) => c.tagName === 'svg');
    expect(inner.map((s) => s.getAttribute('x'))).toEqual(['0', '324']);
    expect(text).toContain('>Run A<');
    expect(text).toContain('>Run B<');
  });
});
