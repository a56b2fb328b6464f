// Dense (canvas) views of a frame's bulk state. Views with more than DENSE_THRESHOLD cells use these;
// smaller ones stay SVG / HTML.
export { DENSE_THRESHOLD, isDense } from './denseMath';
export { PteCanvas, type PteCanvasProps } from './PteCanvas';
export { FrameCanvas, type FrameCanvasProps } from './FrameCanvas';
export { TlbCanvas, type TlbCanvasProps } from './TlbCanvas';
export { parseIndex, WindowPager, type WindowPagerProps } from './WindowPager';
