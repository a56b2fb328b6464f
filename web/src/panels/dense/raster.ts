// A reusable ImageData surface: cells are written as 32-bit pixels (no path building, no
// per-cell objects) and put on the canvas in one call.

export class Raster {
  private image: ImageData | null = null;
  /** The pixels, one Uint32 each (see palette.packRgb). */
  px = new Uint32Array(0);
  width = 0;
  height = 0;

  /** Makes the surface `width` x `height` device pixels, reusing the buffer when the size is unchanged. */
  ensure(ctx: CanvasRenderingContext2D, width: number, height: number): void {
    if (this.image && this.width === width && this.height === height) return;
    this.width = Math.max(1, width);
    this.height = Math.max(1, height);
    this.image = ctx.createImageData(this.width, this.height);
    this.px = new Uint32Array(this.image.data.buffer);
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
  }

  /** Puts the pixels on the canvas (device pixels, any transform ignored). */
  put(ctx: CanvasRenderingContext2D): void {
    if (this.image) ctx.putImageData(this.image, 0, 0);
  }
}
