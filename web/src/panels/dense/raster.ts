// A reusable ImageData surface: cells are written as 32-bit pixels (no path building, no
// per-cell objects) and put on the canvas in one call.

export class Raster {
  private image: ImageData | null = null;
  /** The pixels, one Int32 each (see palette.packRgb). */
  px = new Int32Array(0);
  width = 0;
  height = 0;

  /** A surface of its own pixels (no canvas): the cell stamps. */
  static sized(width: number, height: number): Raster {
    const r = new Raster();
    r.width = Math.max(1, width);
    r.height = Math.max(1, height);
    r.px = new Int32Array(r.width * r.height);
    return r;
  }

  /** Style key last drawn in each cell (-1: not drawn): a step redraws only the cells whose key changed. */
  keys = new Int16Array(0);
  /** Per-row state a view keeps (e.g. the TLB rows' bands), -1 when not drawn. */
  rowKeys = new Int16Array(0);
  /** Device-pixel rectangles [x0, y0, x1, y1] changed since the last put (or overdrawn by last frame's overlay). */
  private dirty = new Int32Array(4 * 64);
  private dirtyCount = 0;
  /** More rectangles than fit: the next put copies everything. */
  private allDirty = true;
  /** Rectangles the last overlay drew over: restored from these pixels on the next draw. */
  private overlaid = new Int32Array(4 * 64);
  private overlaidCount = 0;
  private overlaidAll = false;

  /** What the pixels were drawn for: a new layout, ratio or palette redraws everything. */
  private drawnFor: readonly unknown[] = [];

  /** Makes the surface `width` x `height` device pixels, reusing the buffer when the size is unchanged. */
  ensure(ctx: CanvasRenderingContext2D, width: number, height: number): void {
    if (this.image && this.width === width && this.height === height) return;
    this.width = Math.max(1, width);
    this.height = Math.max(1, height);
    this.image = ctx.createImageData(this.width, this.height);
    this.px = new Int32Array(this.image.data.buffer);
    this.drawnFor = [];
    this.allDirty = true;
  }

  /** Records a changed device-pixel rectangle (for the next put). */
  markDirty(x0: number, y0: number, x1: number, y1: number): void {
    if (this.allDirty) return;
    if (this.dirtyCount * 4 >= this.dirty.length) {
      this.allDirty = true;
      return;
    }
    const d = this.dirty;
    const o = this.dirtyCount++ * 4;
    d[o] = x0;
    d[o + 1] = y0;
    d[o + 2] = x1;
    d[o + 3] = y1;
  }

  /** Records a rectangle (device pixels) an overlay draws over the pixels: the next draw restores it. */
  markOverlaid(x0: number, y0: number, x1: number, y1: number): void {
    if (this.overlaidCount * 4 >= this.overlaid.length) {
      this.overlaidAll = true;
      return;
    }
    const d = this.overlaid;
    const o = this.overlaidCount++ * 4;
    d[o] = x0;
    d[o + 1] = y0;
    d[o + 2] = x1;
    d[o + 3] = y1;
  }

  /**
   * Starts a draw of `cells` cells in `rows` rows for the inputs `deps` (layout, ratio, palette, …):
   * when they differ from the last draw's, forgets every key and returns true (the caller clears).
   */
  begin(cells: number, rows: number, deps: readonly unknown[]): boolean {
    const same = deps.length === this.drawnFor.length && deps.every((d, i) => d === this.drawnFor[i]) && this.keys.length === cells && this.rowKeys.length === rows;
    // Last frame's overlay is erased by putting those pixels back.
    if (this.overlaidAll) this.allDirty = true;
    for (let i = 0; i < this.overlaidCount; i++) {
      const o = i * 4;
      this.markDirty(this.overlaid[o] ?? 0, this.overlaid[o + 1] ?? 0, this.overlaid[o + 2] ?? 0, this.overlaid[o + 3] ?? 0);
    }
    this.overlaidCount = 0;
    this.overlaidAll = false;
    if (same) return false;
    this.allDirty = true;
    this.drawnFor = deps;
    this.keys = new Int16Array(cells).fill(-1);
    this.rowKeys = new Int16Array(rows).fill(-1);
    return true;
  }

  /** Whether cell `k` needs drawing for style `key` (and records that it is drawn). */
  changed(k: number, key: number): boolean {
    if (this.keys[k] === key) return false;
    this.keys[k] = key;
    return true;
  }

  clear(colour: number): void {
    this.px.fill(colour);
  }

  /** Fills the device-pixel rectangle [x0, x1) x [y0, y1), clipped. */
  fill(x0: number, y0: number, x1: number, y1: number, colour: number): void {
    const w = this.width;
    const xa = x0 < 0 ? 0 : x0;
    const xb = x1 > w ? w : x1;
    const ya = y0 < 0 ? 0 : y0;
    const yb = y1 > this.height ? this.height : y1;
    if (xa >= xb) return;
    const px = this.px;
    for (let y = ya; y < yb; y++) px.fill(colour, y * w + xa, y * w + xb);
    if (ya < yb) this.markDirty(xa, ya, xb, yb);
  }

  /** Copies a `side` x `side` stamp with its top-left corner at (x0, y0), clipped. */
  stamp(x0: number, y0: number, pat: Int32Array, side: number): void {
    const w = this.width;
    const px = this.px;
    this.markDirty(x0, y0, x0 + side, y0 + side);
    if (x0 >= 0 && y0 >= 0 && x0 + side <= w && y0 + side <= this.height) {
      let o = y0 * w + x0;
      let s = 0;
      for (let y = 0; y < side; y++) {
        for (let x = 0; x < side; x++) px[o + x] = pat[s + x] as number;
        o += w;
        s += side;
      }
      return;
    }
    for (let y = 0; y < side; y++) {
      const yy = y0 + y;
      if (yy < 0 || yy >= this.height) continue;
      for (let x = 0; x < side; x++) {
        const xx = x0 + x;
        if (xx >= 0 && xx < w) px[yy * w + xx] = pat[y * side + x] as number;
      }
    }
  }

  /** Puts the changed pixels on the canvas (device pixels, any transform ignored): the changed rectangles, or all. */
  put(ctx: CanvasRenderingContext2D): void {
    if (!this.image) return;
    if (this.allDirty) {
      ctx.putImageData(this.image, 0, 0);
    } else {
      const d = this.dirty;
      for (let i = 0; i < this.dirtyCount; i++) {
        const o = i * 4;
        const x0 = d[o] ?? 0;
        const y0 = d[o + 1] ?? 0;
        ctx.putImageData(this.image, 0, 0, x0, y0, (d[o + 2] ?? 0) - x0, (d[o + 3] ?? 0) - y0);
      }
    }
    this.dirtyCount = 0;
    this.allDirty = false;
  }
}
